"""Inviting players: a new campaign leads its GM to the invitation form, the page
and the QR code carry the same link, and the QR code is an SVG a browser's <img> can show.
The browser side (the code on screen, read back by a scanner) is tests/e2e/test_invitations.py.
"""

import xml.etree.ElementTree as ET

from django.contrib.messages import get_messages
from django.urls import reverse

from campaign.models import Campaign, Invitation
from campaign.services import campaign_create

SVG_NS = "{http://www.w3.org/2000/svg}"


def test_creating_a_campaign_leads_to_inviting_players(outsider_client):
    response = outsider_client.post(
        reverse("campaign_create"),
        {"name": "Les Marais"},
        follow=True,
        headers={"accept-language": "en"},
    )
    campaign = Campaign.objects.get(name="Les Marais")
    assert response.redirect_chain == [(reverse("members", args=[campaign.pk]), 302)]
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "Campaign “Les Marais” created. Next step: invite your players."
    ]
    assert response.context["nobody_invited"]
    content = response.content.decode()
    assert 'data-testid="next-step"' in content
    assert "No active invitation." not in content  # the next step says it better
    assert reverse("invitation_create", args=[campaign.pk]) in content


def test_the_next_step_goes_once_a_link_exists(gm_client, gm):
    campaign = campaign_create(user=gm, name="Seule")
    Invitation.objects.create(campaign=campaign, created_by=gm)
    response = gm_client.get(reverse("members", args=[campaign.pk]))
    assert not response.context["nobody_invited"]
    assert 'data-testid="next-step"' not in response.content.decode()


def test_the_next_step_is_not_shown_once_players_joined(gm_client, campaign):
    response = gm_client.get(reverse("members", args=[campaign.pk]))
    assert not response.context["nobody_invited"]
    assert 'data-testid="next-step"' not in response.content.decode()


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
    # Without the namespace a browser's <img> draws nothing (a bug this app once had).
    assert root.tag == f"{SVG_NS}svg"
    # A natural size: the image has a width before any CSS gives it one.
    assert int(root.get("width")) > 0 and root.get("width") == root.get("height")
