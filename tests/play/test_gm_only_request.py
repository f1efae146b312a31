"""R34 with a GM-only roll: the player asked answers it, and reads it as every other player
does, sealed (its commitment, never its result); another player is not even told what test
was asked. Every path a player reads: the page the answer returns (or redirects to), the
htmx fragment, the sheet, the card, the history, its exports, the session recap; the live
stream and its catch-up are in tests/live/test_sealed_stream.py.

Isaure (`pc`, owned by `player`), Gaspard (`other_pc`, owned by `other_player`).
"""

import pytest
from django.urls import reverse

from campaign.models import PartyVisibility
from journal.models import AuditEntry
from play.models import RollRequest
from play.requests import roll_request_create
from tests.helpers import everything

SECRET = "SKREQSECRET42"
HTMX = {"HTTP_HX_REQUEST": "true"}
# What the answer's result says, and nobody but the GM may read before the reveal.
RESULT_MARKS = ("(d20)", "≥ 12", "→ réussite", "→ échec")


def gm_only_request(world):
    Campaign = type(world.campaign)
    Campaign.objects.filter(pk=world.campaign.pk).update(party_visibility=PartyVisibility.BARS)
    world.campaign.refresh_from_db()
    roll_request_create(
        character_id=world.pc.pk,
        actor=world.gm,
        stat="ADR",
        skill=SECRET,
        difficulty=12,
        modifier=1,
        visibility="gm",
    )
    return RollRequest.objects.get(character=world.pc)


def assert_sealed(text, place):
    for mark in RESULT_MARKS:
        assert mark not in text, (place, mark)


def answer(client, world, request, htmx):
    url = reverse("roll_answer", args=[world.campaign.pk, request.pk])
    sheet = reverse("character", args=[world.campaign.pk, world.pc.pk])
    # htmx's headers for an answer from her sheet: the card comes back with the answer.
    headers = {**HTMX, "HTTP_HX_CURRENT_URL": f"http://testserver{sheet}"} if htmx else {}
    return client.post(url, {"mode": "server"}, follow=not htmx, **headers)


def commitment(world):
    roll = AuditEntry.objects.get(campaign=world.campaign, kind="roll", visibility="gm")
    return roll.roll["seal"]["commitment"]


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
def test_r34_the_player_answering_a_gm_only_roll_sees_it_sealed_everywhere(
    world, player_client, gm_client, htmx
):
    request = gm_only_request(world)
    response = answer(player_client, world, request, htmx)
    assert response.status_code == 200
    returned = response.content.decode()
    # What she lands on (the sheet, or the fragment under her card): the sealed roll and
    # its commitment, no result, and no Reveal (the GM's).
    assert_sealed(returned, "answer")
    assert "jet scellé du MJ (test)" in returned
    assert commitment(world) in returned
    assert 'data-testid="reveal"' not in returned
    # Said once, above: her card does not repeat the request she answered herself.
    assert "scellé par le MJ" not in returned
    assert 'data-testid="request-result"' not in returned
    for place, text in everything(player_client, world, world.pc).items():
        assert_sealed(text, place)
    # The GM reads the result on the card and in the history.
    gm_sees = everything(gm_client, world, world.pc)
    for place in ("card", "history", "json"):
        assert "(d20)" in gm_sees[place], place
    assert "scellé par le MJ" not in gm_sees["card"]


def test_r34_the_sealed_answer_is_the_same_when_the_campaign_default_is_gm_only(
    world, player_client
):
    """A request asked with the campaign's default visibility ("") is sealed the same way
    when that default is GM-only."""
    type(world.campaign).objects.filter(pk=world.campaign.pk).update(default_roll_visibility="gm")
    roll_request_create(
        character_id=world.pc.pk, actor=world.gm, stat="ADR", skill=SECRET, difficulty=12
    )
    request = RollRequest.objects.get(character=world.pc)
    assert request.visibility == ""
    returned = answer(player_client, world, request, htmx=True).content.decode()
    assert_sealed(returned, "answer")
    assert "jet scellé du MJ (test)" in returned
    request.refresh_from_db()
    assert request.visibility == "gm"


def test_r34_another_player_is_not_told_what_a_gm_only_request_was(
    world, player_client, other_player_client, gm_client
):
    request = gm_only_request(world)
    for place, text in everything(other_player_client, world, world.pc).items():
        assert SECRET not in text, place
    answer(player_client, world, request, htmx=True)
    for place, text in everything(other_player_client, world, world.pc).items():
        assert SECRET not in text, place
        assert "demandé à" not in text, place
    # The player asked is told, in her history too; the GM reads it all.
    player_history = everything(player_client, world, world.pc)["history"]
    assert f"{SECRET} (ADR, 12) demandé à" in player_history
    assert "lancé par paul_joueur" in player_history
    gm_history = everything(gm_client, world, world.pc)["json"]
    assert f"{SECRET} (ADR, 12) demandé à" in gm_history


def test_r34_a_public_request_stays_public(world, other_player_client):
    type(world.campaign).objects.filter(pk=world.campaign.pk).update(
        party_visibility=PartyVisibility.BARS
    )
    roll_request_create(
        character_id=world.pc.pk,
        actor=world.gm,
        stat="ADR",
        skill=SECRET,
        difficulty=12,
        visibility="everyone",
    )
    history = everything(other_player_client, world, world.pc)["history"]
    assert f"{SECRET} (ADR, 12) demandé à" in history


def test_r5_a_players_own_server_roll_logged_gm_only_is_sealed_to_them_too(world, player_client):
    """The campaign logs rolls GM-only by default: the player's own test (the server's die)
    is told to them as to every player, sealed, with its commitment."""
    type(world.campaign).objects.filter(pk=world.campaign.pk).update(default_roll_visibility="gm")
    url = reverse("character_roll", args=[world.campaign.pk, world.pc.pk])
    data = {"stat": "ADR", "skill": SECRET, "difficulty": "12", "dice": ""}
    page = player_client.post(url, data, follow=True).content.decode()
    assert_sealed(page, "sheet")
    assert "jet scellé du MJ (test)" in page and commitment(world) in page
