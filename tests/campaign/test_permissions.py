"""What each member sees and may do on a campaign's pages: the dashboard and the player's home,
the members page, settings, leaving, and objects of another campaign.

Who may use each URL at all (anonymous, outsider, player, GM) is tests/test_permissions.py's
table.
"""

import re

from django.urls import reverse

from campaign.models import Invitation, Membership, Role
from characters.models import Character
from tests.helpers import db_state


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
