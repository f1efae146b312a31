"""Who gets what on every character URL: anonymous, outsider, player, the owner, GM."""

import re

import pytest
from django.urls import reverse

from characters.models import Character
from tests.helpers import (
    Route,
    assert_redirects_to_login,
    call,
    character_data,
    db_state,
    route_params,
)

ROUTES = {
    "character_create": Route(
        ("get", "post"),
        lambda w: reverse("character_create", args=[w.campaign.pk]),
        lambda w: character_data(w.campaign, name="Nouvelle venue", owner=w.player.pk),
    ),
    "character": Route(
        ("get",), lambda w: reverse("character", args=[w.campaign.pk, w.pc.pk]), gm_only=False
    ),
    "character_edit": Route(
        ("get", "post"),
        lambda w: reverse("character_edit", args=[w.campaign.pk, w.pc.pk]),
        lambda w: character_data(w.campaign, name="Isaure", owner=w.player.pk, pv=3, pv_max=14),
    ),
    "character_card": Route(
        ("get",),
        lambda w: reverse("character_card", args=[w.campaign.pk, w.pc.pk]),
        gm_only=False,
    ),
    "check_probability": Route(
        ("get",),
        lambda w: reverse("check_probability", args=[w.campaign.pk, w.pc.pk]),
        gm_only=False,
        query=lambda w: {"stat": "ADR", "difficulty": "10", "modifier": "0"},
    ),
    "character_action": Route(
        ("get", "post"),
        lambda w: reverse("character_action", args=[w.campaign.pk, w.pc.pk, "damage"]),
        lambda w: {"amount": "3", "visibility": "everyone", "dice": ""},
    ),
    "party_action": Route(
        ("get", "post"),
        lambda w: reverse("party_action", args=[w.campaign.pk, "end_scene"]),
        lambda w: {"visibility": "everyone"},
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
    content = response.content.decode()
    assert world.campaign.name not in content
    assert world.pc.name not in content
    assert db_state() == before


# `player_client` owns the PC these routes use; `other_player_client` does not.
@pytest.mark.parametrize("who", ["player_client", "other_player_client"])
@pytest.mark.parametrize(("name", "method"), route_params(ROUTES, lambda r: r.gm_only))
def test_it_returns_403_to_players_on_gm_pages(request, world, who, name, method):
    client = request.getfixturevalue(who)
    before = db_state()
    _url, response = call(client, ROUTES, name, method, world)
    assert response.status_code == 403
    assert world.pc.gm_notes not in response.content.decode()
    assert db_state() == before


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


@pytest.mark.parametrize("character", ["pc", "npc"])
def test_it_returns_403_on_a_sheet_that_is_not_yours(other_player_client, world, character):
    character = getattr(world, character)
    response = other_player_client.get(reverse("character", args=[world.campaign.pk, character.pk]))
    assert response.status_code == 403
    content = response.content.decode()
    assert character.public_notes not in content
    assert character.gm_notes not in content


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
        ROUTES["character_create"].data(world),
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
        ROUTES["character_edit"].data(world),
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


@pytest.mark.parametrize("name", ["character_card", "check_probability"])
def test_it_returns_403_on_another_players_card_and_odds(other_player_client, world, name):
    response = other_player_client.get(
        reverse(name, args=[world.campaign.pk, world.pc.pk]), ROUTES[name].query(world)
    )
    assert response.status_code == 403
    assert world.pc.name not in response.content.decode()


def test_it_tells_the_owner_their_odds(player_client, world):
    response = player_client.get(
        reverse("check_probability", args=[world.campaign.pk, world.pc.pk]),
        ROUTES["check_probability"].query(world),
    )
    assert response.status_code == 200
    assert re.fullmatch(r"\d{1,3} %", response.content.decode())


@pytest.mark.parametrize("name", ["character_action", "party_action"])
def test_it_returns_404_for_an_unknown_action(gm_client, world, name):
    args = [world.campaign.pk, world.pc.pk] if name == "character_action" else [world.campaign.pk]
    before = db_state()
    response = gm_client.post(reverse(name, args=[*args, "explode"]), {"visibility": "everyone"})
    assert response.status_code == 404
    assert db_state() == before


@pytest.mark.parametrize(("name", "method"), route_params(ROUTES))
def test_it_lets_the_gm_in(gm_client, world, name, method):
    # The requests refused to others above succeed for the GM: the refusal is the permission.
    before = db_state()
    _url, response = call(gm_client, ROUTES, name, method, world)
    if method == "get":
        assert response.status_code == 200
        assert db_state() == before
    else:
        assert response.status_code == 302
        assert db_state() != before
