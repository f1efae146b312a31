"""Inviting players (issue 11): the page and the QR code carry the same link, and the QR code
is an SVG a browser's <img> can show.
The browser side (the code on screen, read back by a scanner) is tests/e2e/test_invitations.py.
"""

import xml.etree.ElementTree as ET

from django.urls import reverse

SVG_NS = "{http://www.w3.org/2000/svg}"


def test_the_page_shows_the_absolute_link_the_qr_code_encodes(gm_client, campaign, invitation):
    response = gm_client.get(reverse("members", args=[campaign.pk]))
    link = f"http://testserver{reverse('join', args=[invitation.token])}"
    assert [inv.link for inv in response.context["invitations"]] == [link]
    assert f'value="{link}"' in response.content.decode()
    assert f'id="invitation-{invitation.pk}"' in response.content.decode()


def test_a_player_gets_no_invitation_links(player_client, campaign, invitation):
    response = player_client.get(reverse("members", args=[campaign.pk]))
    assert response.context["invitations"] == []
    assert invitation.token not in response.content.decode()


def test_the_qr_code_is_an_svg_an_img_can_show(gm_client, campaign, invitation):
    response = gm_client.get(reverse("invitation_qr", args=[campaign.pk, invitation.pk]))
    assert response["Content-Type"] == "image/svg+xml"
    root = ET.fromstring(response.content)
    # Without the namespace a browser's <img> draws nothing (the bug of issue 11).
    assert root.tag == f"{SVG_NS}svg"
    # A natural size: the image has a width before any CSS gives it one.
    assert int(root.get("width")) > 0 and root.get("width") == root.get("height")
