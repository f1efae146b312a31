"""The live stream and its polling fallback tell players of a sealed roll: its
commitment, never its result; after the reveal, the change names the character, whose sheet
refetches the revealed roll through the viewer's permissions."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from campaign.models import Membership
from journal.services import roll_reveal
from live import stream
from play.models import RollRequest
from play.requests import roll_request_answer, roll_request_create
from tests.live.helpers import open_stream, play
from tests.play.steps import run

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = {"stat": "INS", "skill": "Secretissime", "difficulty": "10"}


def sealed_check(world, die=17):
    result = run(
        world.campaign, world.gm, "check", SECRET, character=world.pc, typed=[die], visibility="gm"
    )
    return result, next(e for e in result.entries if e.kind == "roll")


def test_r5_a_players_stream_holds_the_commitment_of_a_sealed_roll_never_its_result(world):
    shown = stream.Shown(cards=frozenset({world.pc.pk}))
    found = {}

    async def scenario():
        player = await open_stream(world.player_membership, shown=shown)
        gm = await open_stream(world.gm_membership, shown=shown)
        _, entry = await sync_to_async(sealed_check)(world)
        found["entry"] = entry
        found["player"] = await player.event()
        found["gm"] = await gm.event()
        await sync_to_async(roll_reveal)(
            campaign_id=world.campaign.pk, entry_id=entry.pk, actor=world.gm
        )
        found["reveal"] = next(e for e in await player.events(2) if e["event"] == "change")
        found["raw"] = b"".join(player.raw).decode()
        await player.close()
        await gm.close()

    play(scenario)
    entry = found["entry"]
    seal = entry.roll["seal"]
    event = found["player"]
    assert event["event"] == "change"
    assert event["data"]["characters"] == [world.pc.pk]
    assert event["data"]["sealed"] == {str(entry.pk): seal["commitment"]}
    # Before the reveal, nothing of the result went down this player's stream.
    before = found["raw"].split(f"id: {found['reveal']['id']}")[0]
    for secret in ("Secretissime", seal["salt"], "17 (d20)"):
        assert secret not in before
    # The GM's stream does not read the batch: no `sealed` to remember, the GM sees all.
    assert "sealed" not in found["gm"]["data"]
    # The reveal names the character: the player's sheet refetches its sealed rolls.
    assert found["reveal"]["data"]["characters"] == [world.pc.pk]
    assert "sealed" not in found["reveal"]["data"]


def test_r5_catching_up_and_polling_tell_the_commitment_too(world, player_client):
    _, entry = sealed_check(world)
    changes, _ = stream.missed_changes(world.player_membership, 0)
    assert changes[-1].sealed == ((entry.pk, entry.roll["seal"]["commitment"]),)
    gm_changes, _ = stream.missed_changes(world.gm_membership, 0)
    assert gm_changes[-1].sealed == ()
    url = reverse("campaign_events_poll", args=[world.campaign.pk])
    body = player_client.get(url, {"after": 0}).content.decode()
    assert json.loads(body)["changes"][-1]["sealed"] == {
        str(entry.pk): entry.roll["seal"]["commitment"]
    }
    assert "Secretissime" not in body and entry.roll["seal"]["salt"] not in body


def test_r34_a_gm_only_request_answered_reaches_its_player_sealed_and_nobody_else(world):
    """The player asked sees her card come with the request, then with the answer sealed;
    another player's stream is told nothing of either (a request follows its roll's
    visibility); catching up agrees."""
    type(world.campaign).objects.filter(pk=world.campaign.pk).update(party_visibility="bars")
    shown = stream.Shown(cards=frozenset({world.pc.pk}))
    found = {}

    def ask():
        roll_request_create(
            character_id=world.pc.pk,
            actor=world.gm,
            stat="ADR",
            skill="SKREQSECRET42",
            difficulty=12,
            visibility="gm",
        )
        return RollRequest.objects.get(character=world.pc)

    async def scenario():
        player = await open_stream(world.player_membership, shown=shown)
        other = await open_stream(world.other_player_membership, shown=shown)
        request = await sync_to_async(ask)()
        found["asked"] = await player.events(2)
        await sync_to_async(roll_request_answer)(request_id=request.pk, actor=world.player)
        found["answered"] = await player.events(2)
        found["other_event"] = await other.event()  # the sealed roll, as everyone is told
        await other.silence()
        found["other"] = b"".join(other.raw).decode()
        await player.close()
        await other.close()

    play(scenario)
    asked, card = found["asked"]
    assert asked["data"]["characters"] == [world.pc.pk]
    assert card["event"] == "cards"
    assert "SKREQSECRET42" in card["data"][world.pc.pk]  # she is told what to roll
    change, card = found["answered"]
    assert change["data"]["sealed"]  # the answer's roll, sealed: its commitment
    html = card["data"][world.pc.pk]
    # Her own answer is not repeated on her card (the answer's page said it, sealed); what the
    # card holds never shows the result.
    assert 'data-testid="request-result"' not in html
    for secret in ("(d20)", "≥ 12"):
        assert secret not in html
    assert found["other_event"]["data"]["sealed"]
    assert "SKREQSECRET42" not in found["other"]
    # Bruno's stream announced the sealed roll only (the request entries are not his).
    fresh = Membership.objects.select_related("campaign")
    changes, _ = stream.missed_changes(fresh.get(pk=world.other_player_membership.pk), 0)
    assert len(changes) == 1 and changes[0].sealed
    mine, _ = stream.missed_changes(fresh.get(pk=world.player_membership.pk), 0)
    assert len(mine) == 2
