"""What the owner, another player and the GM see of a character and may do with it: sheets,
cards, the GM's forms, and characters or actions that are not there.

Who may use each character URL at all is tests/test_permissions.py's table.
"""

import pytest
from django.urls import reverse

from characters.models import Character
from tests.helpers import (
    character_data,
    db_state,
)


def test_it_shows_the_owner_their_full_sheet_without_gm_notes(player_client, world):
    pc = world.pc
    response = player_client.get(reverse("character", args=[world.campaign.pk, pc.pk]))
    assert response.status_code == 200
    content = response.content.decode()
    assert f"<h1>{pc.name}</h1>" in content
    assert f"{pc.pv} / {pc.pv_max}" in content
    assert f"{pc.flux} / {pc.flux_max}" in content
    for code in world.campaign.stats:  # no sequel: effective values are the base ones
        value = pc.stats.get(code, 0)
        assert f"<dt>{code}</dt><dd>{value}</dd>" in content
    assert pc.public_notes in content
    assert pc.gm_notes not in content
    assert reverse("character_edit", args=[world.campaign.pk, pc.pk]) not in content


@pytest.mark.parametrize("character", ["pc", "other_pc", "npc"])
def test_it_shows_the_gm_every_sheet_with_gm_notes(gm_client, world, character):
    character = getattr(world, character)
    response = gm_client.get(reverse("character", args=[world.campaign.pk, character.pk]))
    assert response.status_code == 200
    content = response.content.decode()
    assert character.public_notes.replace("'", "&#x27;") in content
    assert character.gm_notes in content
    assert reverse("character_edit", args=[world.campaign.pk, character.pk]) in content


def test_it_shows_the_gm_the_character_forms(gm_client, world):
    response = gm_client.get(reverse("character_create", args=[world.campaign.pk]))
    assert response.status_code == 200
    form = response.context["form"]
    assert [f.name for f in form.stat_fields()] == [f"stat_{c}" for c in world.campaign.stats]
    # Only players of this campaign can be given a PC.
    owners = set(form.fields["owner"].queryset)
    assert owners == {world.player, world.other_player}

    response = gm_client.get(reverse("character_edit", args=[world.campaign.pk, world.pc.pk]))
    assert response.status_code == 200
    assert response.context["form"].instance == world.pc
    assert 'value="Isaure"' in response.content.decode()


def test_it_lets_the_gm_create_and_edit_characters(gm_client, world):
    before = Character.objects.count()
    response = gm_client.post(
        reverse("character_create", args=[world.campaign.pk]),
        character_data(world.campaign, name="Nouvelle venue", owner=world.player.pk),
    )
    assert response.status_code == 302
    assert Character.objects.count() == before + 1
    created = Character.objects.get(name="Nouvelle venue")
    assert created.campaign == world.campaign
    assert created.owner == world.player
    assert created.stats == {code: 1 for code in world.campaign.stats}
    assert response["Location"] == reverse("character", args=[world.campaign.pk, created.pk])

    response = gm_client.post(
        reverse("character_edit", args=[world.campaign.pk, world.pc.pk]),
        character_data(world.campaign, name="Isaure", owner=world.player.pk, pv=3, pv_max=14),
    )
    assert response.status_code == 302
    world.pc.refresh_from_db()
    assert world.pc.pv == 3


def test_it_returns_404_for_a_character_of_another_campaign(gm_client, world, outsider):
    from campaign.services import campaign_create

    foreign = campaign_create(user=outsider, name="Ailleurs")
    stranger = Character.objects.create(
        campaign=foreign, name="Inconnu", pv=5, pv_max=5, flux=0, flux_max=0
    )
    before = db_state()
    sheet = reverse("character", args=[world.campaign.pk, stranger.pk])
    edit = reverse("character_edit", args=[world.campaign.pk, stranger.pk])
    assert gm_client.get(sheet).status_code == 404
    assert gm_client.get(edit).status_code == 404
    assert gm_client.post(edit, character_data(world.campaign)).status_code == 404
    assert db_state() == before


def test_it_serves_the_owner_their_card_without_gm_actions(player_client, world):
    response = player_client.get(reverse("character_card", args=[world.campaign.pk, world.pc.pk]))
    assert response.status_code == 200
    content = response.content.decode()
    assert f'id="character-{world.pc.pk}"' in content
    assert f"{world.pc.pv} / {world.pc.pv_max}" in content
    assert "/act/" not in content
    assert world.pc.gm_notes not in content


def test_it_gives_the_gm_cards_with_actions(gm_client, world):
    response = gm_client.get(reverse("character_card", args=[world.campaign.pk, world.npc.pk]))
    assert response.status_code == 200
    damage = reverse("character_action", args=[world.campaign.pk, world.npc.pk, "damage"])
    assert damage in response.content.decode()


@pytest.mark.parametrize("name", ["character_action", "party_action"])
def test_it_returns_404_for_an_unknown_action(gm_client, world, name):
    args = [world.campaign.pk, world.pc.pk] if name == "character_action" else [world.campaign.pk]
    before = db_state()
    response = gm_client.post(reverse(name, args=[*args, "explode"]), {"visibility": "everyone"})
    assert response.status_code == 404
    assert db_state() == before
