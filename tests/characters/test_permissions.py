"""Who gets what on every character URL: anonymous, outsider, player, the owner, GM."""

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
    for code, value in pc.stat_rows():
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
