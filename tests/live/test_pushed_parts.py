"""The page parts the stream pushes with a change (live/stream.py, `parts`), instead of the
refetches static/live.js made for them: the GM's log, clock bar and fight section (R33) on the
dashboard, a player's fight strip (R33) on their home and their sheet. Each comes as the page's
own GET aimed at it draws it for that viewer (compared here with the CSRF token set aside),
drawn once per event for every viewer who sees it the same; never a GM's part to a player,
never a part of a change the viewer is not told of."""

from __future__ import annotations

import contextlib
import re

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from campaign.models import PartyVisibility
from live import stream
from play import services
from tests.live.helpers import adamage, open_stream, play

pytestmark = pytest.mark.django_db(transaction=True)
GM_PAGE = stream.Shown(parts=frozenset(stream.GM_PARTS))
TOKEN = "stream-token"
CSRF_VALUE = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*(")')


def home(strip: str = stream.HOME_STRIP) -> stream.Shown:
    return stream.Shown(rows=True, parts=frozenset({stream.FIGHT_STRIP}), strip=strip)


def without_token(html: str) -> str:
    return CSRF_VALUE.sub(r"\1TOKEN\2", html).strip()


def part_as_fetched(client, url: str, element_id: str) -> str:
    """The part as the page's refetch gets it (static/live.js refetchPart)."""
    response = client.get(url, headers={"HX-Request": "true", "HX-Target": element_id})
    assert response.status_code == 200
    return without_token(response.content.decode())


async def next_turn(world, visibility="everyone"):
    await sync_to_async(services.fight_next_turn)(
        campaign_id=world.campaign.pk, actor=world.gm, visibility=visibility
    )


async def clock(world, visibility="everyone"):
    await sync_to_async(services.clock_advance)(
        campaign_id=world.campaign.pk, actor=world.gm, minutes=10, visibility=visibility
    )


def start_fight(world):
    services.fight_start(
        campaign_id=world.campaign.pk,
        actor=world.gm,
        character_ids=[world.pc.pk, world.other_pc.pk, world.npc.pk],
    )


def told(pairs, action) -> dict:
    """What each (membership, shown) stream says after `action`: its messages by stream."""
    messages: dict = {}

    async def scenario():
        readers = [
            (await open_stream(m, shown=s, token=TOKEN), key) for key, (m, s) in pairs.items()
        ]
        await action()
        for reader, key in readers:
            found = []
            with contextlib.suppress(TimeoutError):  # told nothing
                found.append(await reader.event(timeout=3))
            while found:
                try:
                    found.append(await reader.event(timeout=0.6))
                except TimeoutError:
                    break
            messages[key] = found
            await reader.close()

    play(scenario)
    return messages


def parts_of(messages: list[dict]) -> dict:
    (message,) = [m for m in messages if m["event"] == "parts"]
    assert message["id"] is None  # a position only changes move
    return {k: without_token(v) for k, v in message["data"]["parts"].items()}


def test_the_gm_parts_come_as_the_dashboard_draws_them(world, gm_client):
    """R33: a turn passes; the GM's log, clock bar and fight section come with the change, each
    as the dashboard's refetch aimed at it answers, with the stream's own CSRF token."""
    world.campaign.party_visibility = PartyVisibility.BARS
    world.campaign.save()
    start_fight(world)
    messages = told({"gm": (world.gm_membership, GM_PAGE)}, lambda: next_turn(world))["gm"]
    change = messages[0]
    assert change["event"] == "change" and change["data"]["campaign"] is True
    assert change["data"]["parts"] == ["roll-log", "party-bar", "fight"]
    raw = next(m for m in messages if m["event"] == "parts")["data"]["parts"]
    assert f'value="{TOKEN}"' in raw["fight"] and "__csrf" not in "".join(raw.values())
    pushed = parts_of(messages)
    assert pushed["roll-log"].startswith('<section class="log panel" id="roll-log"')
    assert f'data-log-id="{change["id"]}"' in pushed["roll-log"]
    url = reverse("campaign", args=[world.campaign.pk])
    for element_id in ("roll-log", "party-bar", "fight"):
        assert pushed[element_id] == part_as_fetched(gm_client, url, element_id), element_id


def test_a_change_of_one_character_brings_the_gm_only_the_log(world, gm_client):
    messages = told(
        {"gm": (world.gm_membership, GM_PAGE)},
        lambda: adamage(world.campaign, world.gm, world.pc, visibility="gm"),
    )["gm"]
    assert messages[0]["data"]["parts"] == ["roll-log"]
    pushed = parts_of(messages)
    url = reverse("campaign", args=[world.campaign.pk])
    assert pushed == {"roll-log": part_as_fetched(gm_client, url, "roll-log")}
    assert "MJ uniquement" in pushed["roll-log"]  # the GM-only entry, shown to the GM


@pytest.mark.parametrize("shown", PartyVisibility.values)
@pytest.mark.parametrize("page", ["home", "sheet"])
def test_each_players_strip_comes_as_their_page_draws_it(
    world, player_client, other_player_client, shown, page
):
    """R33: each player's strip shows their own combatant with its spend buttons (R9), as their
    home or their sheet draws it, under every party visibility; drawn for each of them."""
    world.campaign.party_visibility = shown
    world.campaign.players_roll = True
    world.campaign.save()
    start_fight(world)

    def shown_for(character):
        return home(stream.HOME_STRIP if page == "home" else str(character.pk))

    pairs = {
        "player": (world.player_membership, shown_for(world.pc)),
        "other": (world.other_player_membership, shown_for(world.other_pc)),
    }
    messages = told(pairs, lambda: next_turn(world))
    for key, client, character in (
        ("player", player_client, world.pc),
        ("other", other_player_client, world.other_pc),
    ):
        change = messages[key][0]
        assert change["data"]["parts"] == ["fight-strip"], key
        url = (
            reverse("campaign", args=[world.campaign.pk])
            if page == "home"
            else reverse("character", args=[world.campaign.pk, character.pk])
        )
        pushed = parts_of(messages[key])
        assert pushed == {"fight-strip": part_as_fetched(client, url, "fight-strip")}, key
        strip = pushed["fight-strip"]
        # Their own combatant, with its spend buttons (R9: the campaign lets players roll).
        assert (
            strip.count('data-testid="my-fighter"') == 1 and 'data-action="spend-action"' in strip
        )
        assert f'name="next" value="{url}"' in strip
    assert parts_of(messages["player"]) != parts_of(messages["other"])


def test_without_a_fight_one_strip_is_drawn_for_every_player(world, monkeypatch):
    drawn = []
    strip_html = stream._strip_html

    def counting(*args):
        drawn.append(args[2])
        return strip_html(*args)

    monkeypatch.setattr(stream, "_strip_html", counting)
    pairs = {
        "player home": (world.player_membership, home()),
        "player sheet": (world.player_membership, home(str(world.pc.pk))),
        "other": (world.other_player_membership, home(str(world.other_pc.pk))),
    }
    messages = told(pairs, lambda: clock(world))
    assert len(drawn) == 1
    strips = {key: parts_of(found)["fight-strip"] for key, found in messages.items()}
    assert len(set(strips.values())) == 1
    assert 'id="fight-strip"' in strips["other"] and "my-fighter" not in strips["other"]


def test_a_player_never_gets_the_gm_parts_nor_a_gm_the_strip(world):
    """A page may ask for any part: a player is pushed only their strip, a GM only theirs."""
    start_fight(world)
    every = frozenset(stream.PARTS)
    pairs = {
        "player": (world.player_membership, stream.Shown(parts=every, strip="home")),
        "gm": (world.gm_membership, stream.Shown(parts=every, strip="home")),
    }
    messages = told(pairs, lambda: next_turn(world))
    assert messages["player"][0]["data"]["parts"] == ["fight-strip"]
    assert set(next(m for m in messages["player"] if m["event"] == "parts")["data"]["parts"]) == {
        "fight-strip"
    }
    assert messages["gm"][0]["data"]["parts"] == ["roll-log", "party-bar", "fight"]
    gm_parts = next(m for m in messages["gm"] if m["event"] == "parts")["data"]["parts"]
    assert "fight-strip" not in gm_parts


def test_a_gm_only_change_pushes_nothing_to_a_player(world):
    """The GM moves the clock for their eyes only: the player is told nothing, no strip."""
    messages = told({"player": (world.player_membership, home())}, lambda: clock(world, "gm"))
    assert messages["player"] == []


def test_a_players_damage_brings_no_strip(world):
    """Only a change of the campaign redraws the strip (static/live.js did the same)."""
    world.campaign.party_visibility = PartyVisibility.BARS
    world.campaign.save()
    messages = told(
        {"player": (world.player_membership, home())},
        lambda: adamage(world.campaign, world.gm, world.other_pc),
    )
    assert "parts" not in messages["player"][0]["data"]
    assert all(m["event"] != "parts" for m in messages["player"])


def test_a_change_caught_up_on_names_no_part(world):
    """After a reconnection the page refetches its parts, as before (no `parts`)."""
    head = stream.log_head(world.campaign.pk)
    services.clock_advance(
        campaign_id=world.campaign.pk, actor=world.gm, minutes=10, visibility="everyone"
    )
    changes, _ = stream.missed_changes(world.gm_membership, head)
    assert changes and all("parts" not in c.as_dict() for c in changes)


def test_the_stream_view_reads_which_parts_the_page_shows(world, rf):
    shown = stream._shown(rf.get("/e/?parts=roll-log,fight,bogus,character-3&strip=home"))
    assert shown.parts == {"roll-log", "fight"} and shown.strip == "home"
    assert stream._shown(rf.get("/e/?parts=fight-strip&strip=12")).strip == "12"
    assert stream._shown(rf.get("/e/?parts=fight-strip&strip=../x")).strip == ""
    assert stream._shown(rf.get("/e/")).parts == frozenset()


def test_parts_that_cannot_be_drawn_leave_the_stream_going(world, monkeypatch):
    """The database fails while the parts are drawn: no `parts` message (the page refetches
    what was announced when it does not come, static/live.js), and the next change comes."""
    from django.db import OperationalError

    def failing(*args):
        raise OperationalError("the database went away")

    monkeypatch.setattr(stream, "_gm_parts", failing)
    monkeypatch.setattr(stream, "RETRY_DELAYS", ())
    messages = []

    async def scenario():
        reader = await open_stream(world.gm_membership, shown=GM_PAGE, token=TOKEN)
        await adamage(world.campaign, world.gm, world.pc)
        messages.append(await reader.event())
        await adamage(world.campaign, world.gm, world.pc)
        messages.append(await reader.event())
        await reader.silence()
        await reader.close()

    play(scenario)
    first, second = messages
    assert first["event"] == second["event"] == "change"
    assert first["data"]["parts"] == second["data"]["parts"] == ["roll-log"]
    assert second["id"] > first["id"]


RENDERED_AT = re.compile(r'data-rendered-at="\d+"')


def feed_page(character) -> stream.Shown:
    return stream.Shown(parts=frozenset({stream.FEED}), feed=character.pk)


@pytest.mark.parametrize("shown", PartyVisibility.values)
def test_a_sheets_feed_comes_as_its_own_url_draws_it_for_the_owner_and_the_gm(
    world, player_client, gm_client, shown
):
    """The sheet's feed (journal/feed.py) pushed with a change of its character, as the feed's
    URL draws it for each: the owner's without the GM-only blow, the GM's with it."""
    world.campaign.party_visibility = shown
    world.campaign.save()

    async def blows():
        await adamage(world.campaign, world.gm, world.pc, amount=3, visibility="gm")
        await adamage(world.campaign, world.gm, world.pc, amount=4)

    pairs = {
        "owner": (world.player_membership, feed_page(world.pc)),
        "gm": (world.gm_membership, feed_page(world.pc)),
    }
    messages = told(pairs, blows)
    url = reverse("character_feed", args=[world.campaign.pk, world.pc.pk])
    pushed = {}
    for key, client in (("owner", player_client), ("gm", gm_client)):
        found = [m for m in messages[key] if m["event"] == "parts"]
        assert all(m["data"]["parts"] == ["feed"] for m in messages[key] if m["event"] == "change")
        last = RENDERED_AT.sub("", without_token(found[-1]["data"]["parts"]["feed"]))
        fetched = client.get(url, headers={"HX-Request": "true", "HX-Target": "feed"})
        assert last == RENDERED_AT.sub("", without_token(fetched.content.decode())), key
        pushed[key] = last
    # The owner was told of the second blow only, and their feed never shows the first.
    assert len([m for m in messages["owner"] if m["event"] == "change"]) == 1
    entries = {k: v.count('data-testid="feed-entry"') for k, v in pushed.items()}
    assert entries["gm"] == entries["owner"] + 1


def test_another_players_page_naming_a_feed_gets_none(world):
    """A player may not see another's full sheet: naming its feed brings nothing."""
    world.campaign.party_visibility = PartyVisibility.BARS  # they are told of the blow
    world.campaign.save()
    messages = told(
        {"other": (world.other_player_membership, feed_page(world.pc))},
        lambda: adamage(world.campaign, world.gm, world.pc),
    )["other"]
    assert messages[0]["data"]["characters"] == [world.pc.pk]
    assert "parts" not in messages[0]["data"]
    assert all(m["event"] != "parts" for m in messages)
