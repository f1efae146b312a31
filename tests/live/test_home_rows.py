"""A player's home follows the party by the rows the stream pushes (live/stream.py, `rows`):
each row as that home's own GET draws it, for its owner (their list) and for every other player
(the party, under each party visibility), drawn once per change for all of them; never to a GM,
never a row the player may not be told of."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from campaign.models import PartyVisibility
from live import stream
from tests.live.helpers import adamage, open_stream, play

pytestmark = pytest.mark.django_db(transaction=True)
HOME = stream.Shown(rows=True)


def row_in_page(client, campaign, element_id: str) -> str | None:
    """The row as the player's home page draws it (None: not on the page)."""
    page = client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    tag = "li" if element_id.startswith("party-") else "p"
    found = re.search(rf'<{tag} id="{element_id}".*?</{tag}>', page, re.DOTALL)
    return found[0].strip() if found else None


def told(world, membership, character, *, shown=HOME, amount=5) -> list[dict]:
    """What a home's stream says when the GM damages `character`: the change and what follows."""
    messages = []

    async def scenario():
        reader = await open_stream(membership, shown=shown)
        await adamage(world.campaign, world.gm, character, amount)
        try:
            messages.append(await reader.event(timeout=2))
        except TimeoutError:
            return  # told nothing
        while True:
            try:
                messages.append(await reader.event(timeout=0.6))
            except TimeoutError:
                break
        await reader.close()

    play(scenario)
    return messages


@pytest.mark.parametrize("shown", PartyVisibility.values)
def test_another_players_row_comes_as_their_home_draws_it_under_each_visibility(
    world, player_client, shown
):
    world.campaign.party_visibility = shown
    world.campaign.save()
    # Under STATE a player is told of another's vital state only: a blow that knocks them out.
    messages = told(world, world.player_membership, world.other_pc, amount=50)
    expected = row_in_page(player_client, world.campaign, f"party-{world.other_pc.pk}")
    assert expected is not None
    if shown == PartyVisibility.NOTHING:
        assert messages == []  # told nothing of another's character: no row either
        return
    change, rows = messages
    assert change["data"]["rows"] == [world.other_pc.pk] == change["data"]["characters"]
    assert rows["event"] == "rows" and rows["id"] is None  # a position only changes move
    assert rows["data"]["log_id"] == change["id"]
    assert rows["data"]["rows"] == {str(world.other_pc.pk): expected}
    world.other_pc.refresh_from_db()
    assert f'data-version="{world.other_pc.version}"' in expected
    if shown == PartyVisibility.STATE:
        assert "vital" in expected and 'data-testid="pv"' not in expected
    if shown == PartyVisibility.BARS:
        assert 'data-testid="pv"' in expected


@pytest.mark.parametrize("shown", PartyVisibility.values)
def test_the_owner_gets_the_row_of_their_own_list(world, player_client, shown):
    world.campaign.party_visibility = shown
    world.campaign.save()
    change, rows = told(world, world.player_membership, world.pc)
    expected = row_in_page(player_client, world.campaign, f"own-{world.pc.pk}")
    assert expected is not None and f"party-{world.pc.pk}" not in expected
    assert change["data"]["rows"] == [world.pc.pk]
    assert rows["data"]["rows"] == {str(world.pc.pk): expected}


def test_the_same_change_draws_each_row_once_for_every_home(world, monkeypatch):
    """The owner and another player are both told: one drawing, each their own row."""
    world.campaign.party_visibility = PartyVisibility.BARS
    world.campaign.save()
    drawn = []
    home_rows = stream._home_rows

    def counting(*args):
        drawn.append(args[1])  # the language
        return home_rows(*args)

    monkeypatch.setattr(stream, "_home_rows", counting)
    messages = {}

    async def scenario():
        owner = await open_stream(world.player_membership, shown=HOME)
        other = await open_stream(world.other_player_membership, shown=HOME)
        await adamage(world.campaign, world.gm, world.pc)
        messages["owner"] = await owner.events(2)
        messages["other"] = await other.events(2)
        await owner.silence()
        await other.silence()
        await owner.close()
        await other.close()

    play(scenario)
    assert len(drawn) == 1
    (owner_row,) = messages["owner"][1]["data"]["rows"].values()
    (other_row,) = messages["other"][1]["data"]["rows"].values()
    assert owner_row.startswith(f'<p id="own-{world.pc.pk}"')
    assert other_row.startswith(f'<li id="party-{world.pc.pk}"')


def test_an_npc_is_covered_without_a_row(world):
    world.campaign.party_visibility = PartyVisibility.BARS  # the NPC's public entries are told
    world.campaign.save()
    change, rows = told(world, world.player_membership, world.npc)
    assert change["data"]["rows"] == [world.npc.pk]
    assert rows["data"]["rows"] == {}  # no home shows it: nothing to swap, nothing to refetch


def test_a_blow_that_leaves_the_vital_state_is_not_told_under_state(world):
    world.campaign.party_visibility = PartyVisibility.STATE
    world.campaign.save()
    assert told(world, world.player_membership, world.other_pc, amount=1) == []


def test_a_gm_and_a_page_that_did_not_ask_get_no_rows(world):
    (gm_change,) = told(world, world.gm_membership, world.pc)
    assert "rows" not in gm_change["data"]
    (change,) = told(world, world.player_membership, world.pc, shown=stream.NOTHING_SHOWN)
    assert "rows" not in change["data"]


def test_the_stream_view_reads_whether_the_page_is_a_home(world, rf):
    request = rf.get(f"/c/{world.campaign.pk}/events/?rows=1")
    assert stream._shown(request).rows
    assert not stream._shown(rf.get(f"/c/{world.campaign.pk}/events/?rows=yes")).rows


def test_a_player_is_told_when_a_change_holds_no_step_of_a_proposal(world):
    """The owner's sheet redraws its list of proposals only for a change that holds a step of
    one (static/live.js): a damage says so (`proposals: false`), the player's proposal and the
    GM's refusal do not; a GM's change is not read, and says nothing of it."""
    from play.proposals import proposal_make, proposal_refuse

    messages = {}

    async def scenario():
        player = await open_stream(world.player_membership)
        gm = await open_stream(world.gm_membership)
        await adamage(world.campaign, world.gm, world.pc)
        messages["damage"] = await player.event()
        messages["gm damage"] = await gm.event()
        proposal = await sync_to_async(proposal_make)(
            character_id=world.pc.pk, actor=world.player, action="damage", arguments={"amount": 2}
        )
        messages["proposed"] = await player.event()
        await sync_to_async(proposal_refuse)(
            campaign_id=world.campaign.pk, proposal_id=proposal.pk, actor=world.gm, reply="Non."
        )
        messages["refused"] = await player.event()
        await player.close()
        await gm.close()

    play(scenario)
    assert messages["damage"]["data"]["proposals"] is False
    assert "proposals" not in messages["gm damage"]["data"]
    assert "proposals" not in messages["proposed"]["data"]
    assert "proposals" not in messages["refused"]["data"]
    assert messages["refused"]["data"]["characters"] == [world.pc.pk]


def test_a_roll_asked_of_the_owner_comes_in_their_row(world, player_client):
    """R34: the GM asks the player's character for a roll; their home's row says it waits, as
    the page draws it."""
    from play.requests import roll_request_create

    messages = []

    async def scenario():
        reader = await open_stream(world.player_membership, shown=HOME)
        await sync_to_async(roll_request_create)(
            character_id=world.pc.pk, actor=world.gm, stat="ADR"
        )
        messages.extend(await reader.events(2))
        await reader.close()

    play(scenario)
    change, rows = messages
    assert change["data"]["rows"] == [world.pc.pk]
    row = rows["data"]["rows"][str(world.pc.pk)]
    assert 'data-testid="request-waiting"' in row
    assert row == row_in_page(player_client, world.campaign, f"own-{world.pc.pk}")
