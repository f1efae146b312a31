"""Who gets what on every campaign URL: anonymous, outsider, player, GM.

ROUTES lists every campaign-scoped route of campaign/urls.py; tests/test_urls.py checks that
every named route of the project is listed in one of these tables.
"""

import re
import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse

from campaign.models import Invitation, Membership, Role
from characters.models import Character
from tests.helpers import (
    Route,
    assert_redirects_to_login,
    call,
    db_state,
    route_params,
    settings_data,
)

ROUTES = {
    "campaign": Route(("get",), lambda w: reverse("campaign", args=[w.campaign.pk]), gm_only=False),
    "campaign_settings": Route(
        ("get", "post"),
        lambda w: reverse("campaign_settings", args=[w.campaign.pk]),
        lambda w: settings_data(w.campaign, name="Renommée", default_difficulty=12),
    ),
    "members": Route(("get",), lambda w: reverse("members", args=[w.campaign.pk]), gm_only=False),
    "leave": Route(("post",), lambda w: reverse("leave", args=[w.campaign.pk]), gm_only=False),
    "member_remove": Route(
        ("post",),
        lambda w: reverse("member_remove", args=[w.campaign.pk, w.other_player_membership.pk]),
    ),
    "invitation_create": Route(
        ("post",),
        lambda w: reverse("invitation_create", args=[w.campaign.pk]),
        lambda w: {"role": "player", "max_uses": "1", "valid_days": "3"},
    ),
    "invitation_revoke": Route(
        ("post",),
        lambda w: reverse("invitation_revoke", args=[w.campaign.pk, w.invitation.pk]),
    ),
    "invitation_qr": Route(
        ("get",), lambda w: reverse("invitation_qr", args=[w.campaign.pk, w.invitation.pk])
    ),
}


@pytest.mark.parametrize(("name", "method"), route_params(ROUTES))
def test_it_redirects_anonymous_to_login(anon_client, world, name, method):
    before = db_state()
    url, response = call(anon_client, ROUTES, name, method, world)
    assert_redirects_to_login(response, url)
    assert db_state() == before


@pytest.mark.parametrize(("name", "method"), route_params(ROUTES))
def test_it_returns_404_to_outsider(outsider_client, world, name, method):
    before = db_state()
    _url, response = call(outsider_client, ROUTES, name, method, world)
    assert response.status_code == 404
    # An outsider must not learn that the campaign exists, nor anything in it.
    assert world.campaign.name not in response.content.decode()
    assert db_state() == before


@pytest.mark.parametrize("who", ["player_client", "other_player_client"])
@pytest.mark.parametrize(("name", "method"), route_params(ROUTES, lambda r: r.gm_only))
def test_it_returns_403_to_player_on_gm_pages(request, world, who, name, method):
    client = request.getfixturevalue(who)
    before = db_state()
    _url, response = call(client, ROUTES, name, method, world)
    assert response.status_code == 403
    assert "403.html" in [t.name for t in response.templates]
    assert db_state() == before


@pytest.mark.parametrize(("name", "method"), route_params(ROUTES, lambda r: r.gm_only))
def test_it_lets_the_gm_do_what_players_may_not(gm_client, world, name, method):
    # The same request a player gets a 403 for works for the GM: the 403 is the permission.
    before = db_state()
    _url, response = call(gm_client, ROUTES, name, method, world)
    if method == "get":
        assert response.status_code == 200
        assert db_state() == before
    else:
        assert response.status_code == 302
        assert db_state() != before


def test_it_shows_the_gm_a_dashboard_with_every_card(gm_client, world):
    response = gm_client.get(reverse("campaign", args=[world.campaign.pk]))
    assert response.status_code == 200
    content = response.content.decode()
    assert len(re.findall(r'<article class="card[ "]', content)) == 3
    for character in (world.pc, world.other_pc, world.npc):
        assert f'id="character-{character.pk}"' in content
        assert reverse("character", args=[world.campaign.pk, character.pk]) in content
    assert reverse("campaign_settings", args=[world.campaign.pk]) in content


def test_it_shows_a_player_their_characters_and_the_partys_names(player_client, world):
    response = player_client.get(reverse("campaign", args=[world.campaign.pk]))
    assert response.status_code == 200
    assert "play/player_home.html" in [t.name for t in response.templates]
    content = response.content.decode()
    assert reverse("character", args=[world.campaign.pk, world.pc.pk]) in content
    assert world.other_pc.name in content
    # Not another player's sheet, nor the GM's cards, settings, NPCs or secrets.
    assert reverse("character", args=[world.campaign.pk, world.other_pc.pk]) not in content
    assert not re.search(r'<article class="card[ "]', content)
    assert reverse("campaign_settings", args=[world.campaign.pk]) not in content
    assert world.npc.name not in content
    assert world.pc.gm_notes not in content
    assert world.other_pc.gm_notes not in content


def test_it_shows_a_player_the_members_but_no_invitation(player_client, world):
    response = player_client.get(reverse("members", args=[world.campaign.pk]))
    assert response.status_code == 200
    content = response.content.decode()
    for user in (world.gm, world.player, world.other_player):
        assert user.username in content
    assert world.invitation.token not in content
    assert reverse("invitation_create", args=[world.campaign.pk]) not in content
    assert "/remove/" not in content
    assert reverse("leave", args=[world.campaign.pk]) in content


def test_it_shows_the_gm_the_invitations_and_removal_buttons(gm_client, world):
    response = gm_client.get(reverse("members", args=[world.campaign.pk]))
    assert response.status_code == 200
    content = response.content.decode()
    assert reverse("join", args=[world.invitation.token]) in content
    assert reverse("invitation_qr", args=[world.campaign.pk, world.invitation.pk]) in content
    assert reverse("member_remove", args=[world.campaign.pk, world.player_membership.pk]) in content
    # The GM's own row offers to leave, never to remove themselves.
    assert reverse("member_remove", args=[world.campaign.pk, world.gm_membership.pk]) not in content


def test_it_serves_the_qr_code_as_svg(gm_client, world):
    response = gm_client.get(
        reverse("invitation_qr", args=[world.campaign.pk, world.invitation.pk])
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    root = ET.fromstring(response.content)
    assert root.tag.rsplit("}", 1)[-1] == "svg"
    assert len(root) > 0


def test_it_shows_the_gm_the_settings_form(gm_client, world):
    response = gm_client.get(reverse("campaign_settings", args=[world.campaign.pk]))
    assert response.status_code == 200
    assert response.context["form"].instance == world.campaign
    assert "ADR, PUI, INS, PRE, VAI, SAV, ESP" in response.content.decode()


def test_it_lets_a_player_leave(player_client, world):
    response = player_client.post(reverse("leave", args=[world.campaign.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    assert not Membership.objects.filter(campaign=world.campaign, user=world.player).exists()
    world.pc.refresh_from_db()
    assert world.pc.owner is None
    assert Character.objects.filter(pk=world.pc.pk, campaign=world.campaign).exists()


def test_it_refuses_get_on_post_only_urls(gm_client, world):
    for name in ("leave", "member_remove", "invitation_create", "invitation_revoke"):
        route = ROUTES[name]
        before = db_state()
        response = gm_client.get(route.url(world))
        assert response.status_code == 405, name
        assert db_state() == before


def test_it_returns_404_for_objects_of_another_campaign(gm_client, world, outsider):
    # The GM of this campaign cannot reach into another one through this campaign's URLs.
    from campaign.services import campaign_create

    foreign = campaign_create(user=outsider, name="Ailleurs")
    foreign_invitation = Invitation.objects.create(campaign=foreign, created_by=outsider)
    foreign_membership = foreign.memberships.get()
    before = db_state()
    urls = [
        reverse("invitation_revoke", args=[world.campaign.pk, foreign_invitation.pk]),
        reverse("member_remove", args=[world.campaign.pk, foreign_membership.pk]),
    ]
    for url in urls:
        assert gm_client.post(url).status_code == 404, url
    qr = reverse("invitation_qr", args=[world.campaign.pk, foreign_invitation.pk])
    assert gm_client.get(qr).status_code == 404
    assert db_state() == before


def test_it_lets_a_second_gm_manage_the_campaign(world, outsider, outsider_client):
    Membership.objects.create(campaign=world.campaign, user=outsider, role=Role.GM)
    response = outsider_client.get(reverse("campaign_settings", args=[world.campaign.pk]))
    assert response.status_code == 200
