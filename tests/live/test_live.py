"""Live updates with transactions committed for real: a service → publish → the stream.

Every test runs on SQLite (the in-process broadcaster, through on_commit) and on PostgreSQL
(NOTIFY from the writing transaction, one LISTEN connection per process). The scenario runs in
an event loop through async_to_sync, so that the ORM calls it makes (sync_to_async) come back
to the test's own thread and database connection.
"""

from __future__ import annotations

import asyncio
import re
import threading

import pytest
from asgiref.sync import sync_to_async
from django.db import OperationalError, connection, transaction
from django.test import AsyncClient
from django.test.utils import CaptureQueriesContext

from campaign.models import Membership, PartyVisibility
from journal import events as live
from journal.models import AuditEntry
from live import stream
from play.cards import CSRF_PLACEHOLDER
from tests.live.helpers import (
    CSRF_FIELD,
    QUIET,
    TOKEN,
    WAIT,
    Reader,
    adamage,
    as_fetched,
    damage,
    open_stream,
    parse,
    play,
    without_seal,
)
from tests.play.steps import run

pytestmark = pytest.mark.django_db(transaction=True)

POSTGRES_ONLY = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="LISTEN/NOTIFY and pg_terminate_backend are PostgreSQL's; SQLite runs the "
    "in-process broadcaster, tested by the other tests here",
)


def ids_in(events):
    return [(e["id"], e["data"]["characters"]) for e in events]


# ---------------------------------------------------------------------------------------------
# Committed and rolled back


def test_it_streams_a_change_made_through_the_service_once_committed(world):
    async def scenario():
        reader = await open_stream(world.gm_membership)
        result = await adamage(world.campaign, world.gm, world.pc)
        event = await reader.event()
        last = result.entries[-1].pk
        assert without_seal(event) == {
            "id": last,
            "event": "change",
            "data": {"characters": [world.pc.pk], "log_id": last},
        }
        await reader.silence()
        await reader.close()

    play(scenario)


def test_it_sends_nothing_for_a_rolled_back_change(world):
    def rolled_back():
        with pytest.raises(RuntimeError), transaction.atomic():
            damage(world.campaign, world.gm, world.pc)
            raise RuntimeError("the caller fails after the service: everything rolls back")

    async def scenario():
        reader = await open_stream(world.gm_membership)
        await sync_to_async(rolled_back)()
        await reader.silence()
        assert not await AuditEntry.objects.filter(campaign=world.campaign).aexists()
        # The next committed change is the first event the stream carries.
        result = await adamage(world.campaign, world.gm, world.other_pc)
        assert (await reader.event())["id"] == result.entries[-1].pk
        await reader.close()

    play(scenario)


def test_a_stream_of_another_campaign_hears_nothing(world, gm):
    from campaign import services as campaign_services

    async def scenario():
        other = await sync_to_async(campaign_services.campaign_create)(user=gm, name="Ailleurs")
        membership = await Membership.objects.aget(campaign=other, user=gm)
        reader = await open_stream(membership)
        await adamage(world.campaign, world.gm, world.pc)
        await reader.silence()
        await reader.close()

    play(scenario)


# ---------------------------------------------------------------------------------------------
# Catch-up: Last-Event-ID / ?after=


def test_a_change_of_the_campaign_itself_is_announced_as_such(world):
    """The clock bar of every open dashboard follows the clock and the scene: the
    event says the campaign changed, live and when caught up on, for a GM and for a player
    who may see the entry; a player is told nothing of a GM-only one."""

    async def scenario():
        gm = await open_stream(world.gm_membership)
        player = await open_stream(world.player_membership)
        scene = await sync_to_async(run)(world.campaign, world.gm, "end_scene", {})
        for reader in (gm, player):
            event = await reader.event()
            assert event["id"] == scene.entries[-1].pk
            # Naming no character, the batch is read for the GM too: no step of a proposal.
            assert without_seal(event)["data"] == {
                "characters": [],
                "log_id": event["id"],
                "campaign": True,
                "proposals": False,
            }
        secret = await sync_to_async(run)(
            world.campaign, world.gm, "clock", {"minutes": "10"}, visibility="gm"
        )
        assert (await gm.event())["data"]["campaign"] is True
        await player.silence()
        # A damage is no change of the campaign.
        hurt = await adamage(world.campaign, world.gm, world.pc, 5)
        assert "campaign" not in (await gm.event())["data"]
        for reader in (gm, player):
            await reader.close()
        return scene, secret, hurt

    play(scenario)
    changes, _ = stream.missed_changes(world.gm_membership, 0)
    assert [c.campaign for c in changes] == [True, True, False]
    changes, _ = stream.missed_changes(world.player_membership, 0)
    assert [c.campaign for c in changes] == [True, False]


def test_a_stream_opened_with_an_older_id_gets_every_later_event_in_order_once(world):
    results = [damage(world.campaign, world.gm, c, 6) for c in (world.pc, world.other_pc)]
    results.append(run(world.campaign, world.gm, "heal", {"amount": "1"}, character=world.pc))
    results.append(run(world.campaign, world.gm, "end_scene", {}))
    # The end of scene names no character: it is sent for the campaign's own change.
    expected = [(r.entries[-1].pk, sorted(r.character_ids)) for r in results]

    async def scenario():
        before_all = expected[0][0] - 1
        reader = await open_stream(world.gm_membership, after=before_all)
        assert ids_in(await reader.events(len(expected))) == expected
        # Then live, without repeating anything.
        live_result = await adamage(world.campaign, world.gm, world.pc, 4)
        event = await reader.event()
        assert event["id"] == live_result.entries[-1].pk
        await reader.silence()
        await reader.close()

        # From the middle: only what came after.
        reader = await open_stream(world.gm_membership, after=expected[1][0])
        after_second = [*expected[2:], (live_result.entries[-1].pk, [world.pc.pk])]
        assert ids_in(await reader.events(len(after_second))) == after_second
        await reader.silence()
        await reader.close()

    play(scenario)


def test_a_change_committed_while_the_stream_reads_the_log_is_sent_exactly_once(world, monkeypatch):
    """Subscribed first, then the read: a change between the two is both queued and read."""
    real_head = stream.log_head
    committed = []

    def head_after_a_change(campaign_id):
        if not committed:
            committed.append(damage(world.campaign, world.gm, world.pc, 3))
        return real_head(campaign_id)

    monkeypatch.setattr(stream, "log_head", head_after_a_change)
    first = damage(world.campaign, world.gm, world.other_pc, 6)

    async def scenario():
        reader = await open_stream(world.gm_membership, after=first.entries[-1].pk - 1)
        events = await reader.events(2)
        assert [e["id"] for e in events] == [first.entries[-1].pk, committed[0].entries[-1].pk]
        await asyncio.sleep(0.3)  # give the queued copy (NOTIFY on PostgreSQL) time to arrive
        await reader.silence()
        await reader.close()

    play(scenario)


def test_a_stream_without_an_id_starts_from_now(world):
    damage(world.campaign, world.gm, world.pc)

    async def scenario():
        reader = await open_stream(world.gm_membership)
        await reader.silence()
        await reader.close()

    play(scenario)


# ---------------------------------------------------------------------------------------------
# What a player's stream may carry (journal.visibility decides)


def test_a_players_stream_never_names_a_character_they_may_not_see(world):
    campaign = world.campaign
    assert campaign.party_visibility == PartyVisibility.STATE
    gm, pc, other_pc, npc = world.gm, world.pc, world.other_pc, world.npc

    async def scenario():
        player = await open_stream(world.player_membership)
        gm_stream = await open_stream(world.gm_membership)

        hidden = [
            await adamage(campaign, gm, other_pc),  # another PC's PV: not public under STATE
            await adamage(campaign, gm, npc),  # an NPC's PV
            await adamage(campaign, gm, pc, visibility="gm"),  # their own, but GM only
        ]
        await player.silence()
        assert [e["id"] for e in await gm_stream.events(3)] == [r.entries[-1].pk for r in hidden]

        own = await adamage(campaign, gm, pc)
        events = [await player.event()]
        assert [without_seal(e) for e in events] == [
            {
                "id": own.entries[-1].pk,
                "event": "change",
                "data": {
                    "characters": [pc.pk],
                    "log_id": own.entries[-1].pk,
                    "proposals": False,
                },
            }
        ]
        await player.silence()

        # Nothing about the others anywhere in the bytes, catch-up included.
        catch_up = await open_stream(world.player_membership, after=0)
        caught = []
        try:
            while True:
                caught.append(await catch_up.event(timeout=QUIET))
        except TimeoutError:
            pass
        assert [e["id"] for e in caught] == [e["id"] for e in events]
        for reader in (player, catch_up):
            for chunk in reader.raw:
                event = parse(chunk)
                if event is not None:
                    assert set(event["data"]["characters"]) <= {pc.pk}
            await reader.close()
        await gm_stream.close()

    play(scenario)


def test_a_player_sees_others_live_when_the_party_shows_their_bars(world):
    world.campaign.party_visibility = PartyVisibility.BARS
    world.campaign.save()

    async def scenario():
        player = await open_stream(world.player_membership)
        result = await adamage(world.campaign, world.gm, world.other_pc)
        event = await player.event()
        assert (event["id"], event["data"]["characters"]) == (
            result.entries[-1].pk,
            [world.other_pc.pk],
        )
        await player.close()

    play(scenario)


def test_a_member_removed_from_the_campaign_stops_hearing_of_it(world):
    async def scenario():
        player = await open_stream(world.player_membership)
        await Membership.objects.filter(pk=world.player_membership.pk).adelete()
        await adamage(world.campaign, world.gm, world.pc)
        await asyncio.wait_for(player.task, WAIT)  # the stream ended, saying why, and only that
        messages = [m for m in (parse(c) for c in player.raw) if m is not None]
        assert messages == [{"id": None, "event": "end", "data": {"reason": "removed"}}]
        await player.close()

    play(scenario)


def test_it_sends_a_heartbeat_when_nothing_happens(world):
    async def scenario():
        reader = await open_stream(world.gm_membership, heartbeat=0.05)
        chunk = await asyncio.wait_for(reader.chunks.get(), WAIT)
        assert chunk == b": heartbeat\n\n"
        await reader.close()

    play(scenario)


# ---------------------------------------------------------------------------------------------
# PostgreSQL: the listening connection


@POSTGRES_ONLY
def test_a_new_subscription_holds_no_resync_from_the_listener_connecting_for_it(world):
    # The first stream of a process connects the listener, which tells every stream to re-read
    # the log; the new stream reads it after subscribing anyway. Kept, that marker made it
    # re-read later, and a change committed meanwhile came without its cards.
    async def scenario():
        assert live.listener().backend_pid is None  # a new loop: not connected yet
        queue = await live.subscribe(world.campaign.pk)
        assert live.listener().connects == 1
        assert queue.empty()
        live.unsubscribe(world.campaign.pk, queue)

    play(scenario)


@POSTGRES_ONLY
def test_one_listening_connection_serves_every_stream_of_the_process(world):
    async def scenario():
        readers = [await open_stream(world.gm_membership) for _ in range(5)]
        readers.append(await open_stream(world.player_membership))
        listeners = await _listening_backends()
        assert len(listeners) == 1, listeners
        assert listeners[0] == live.listener().backend_pid
        result = await adamage(world.campaign, world.gm, world.pc)
        for reader in readers:
            assert (await reader.event())["id"] == result.entries[-1].pk
            await reader.close()

    play(scenario)


@sync_to_async
def _listening_backends() -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'chroniqueur-live' "
            "AND datname = current_database() AND query ILIKE %s",
            [f"%LISTEN {live.CHANNEL}%"],
        )
        return [row[0] for row in cursor.fetchall()]


@sync_to_async
def _terminate(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
        return cursor.fetchone()[0]


@POSTGRES_ONLY
def test_changes_made_while_the_listening_connection_is_down_still_reach_the_streams(world):
    async def scenario():
        gm_stream = await open_stream(world.gm_membership)
        player = await open_stream(world.player_membership)
        first = await adamage(world.campaign, world.gm, world.pc, 3)
        assert (await gm_stream.event())["id"] == first.entries[-1].pk
        assert (await player.event())["id"] == first.entries[-1].pk

        listener = live.listener()
        pid, connects = listener.backend_pid, listener.connects
        assert await _terminate(pid)
        # Changes while it is down and reconnecting: their NOTIFYs reach nobody.
        missed = [await adamage(world.campaign, world.gm, c, 3) for c in (world.pc, world.npc)]
        missed.append(await adamage(world.campaign, world.gm, world.pc, 3))
        expected = [r.entries[-1].pk for r in missed]

        assert [e["id"] for e in await gm_stream.events(3)] == expected
        # The player's stream re-read through the visibility rule: not the NPC.
        assert [e["id"] for e in await player.events(2)] == [expected[0], expected[2]]
        assert listener.connects > connects and listener.backend_pid not in (None, pid)

        # And live again, once each.
        after = await adamage(world.campaign, world.gm, world.pc, 3)
        assert (await gm_stream.event())["id"] == after.entries[-1].pk
        assert (await player.event())["id"] == after.entries[-1].pk
        await gm_stream.silence()
        await player.silence()
        await gm_stream.close()
        await player.close()

    play(scenario)


@POSTGRES_ONLY
def test_the_notification_is_sent_by_the_writing_transaction(world):
    """Nothing is heard before the commit; at the commit, at once."""

    def commit_later(gate):
        with transaction.atomic():
            result = damage(world.campaign, world.gm, world.pc)
            gate.append(result)
        return result

    async def scenario():
        reader = await open_stream(world.gm_membership)
        gate: list = []
        result = await sync_to_async(commit_later)(gate)
        assert (await reader.event())["id"] == result.entries[-1].pk
        await reader.close()

    play(scenario)


# ---------------------------------------------------------------------------------------------
# The cards a page shows come with the event, rendered as their own URL renders them


def fetched_card(client, campaign, character) -> str:
    """The card as live.js would refetch it, CSRF field removed."""
    response = client.get(
        f"/c/{campaign.pk}/characters/{character.pk}/card/", HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    return CSRF_FIELD.sub("", response.content.decode()).strip()


def test_a_change_announces_the_cards_the_page_shows_and_their_html_follows(world, gm_client):
    shown = stream.Shown(cards=frozenset({world.pc.pk, world.npc.pk}))
    messages = []

    async def scenario():
        reader = await open_stream(world.gm_membership, shown=shown, token_input=TOKEN)
        result = await adamage(world.campaign, world.gm, world.pc, 5)
        messages.extend(await reader.events(2))
        await reader.silence()
        await reader.close()
        messages.append(result.entries[-1].pk)

    play(scenario)
    change, cards, log_id = messages
    # The NPC did not change: the announcement names the PC's card only.
    assert without_seal(change) == {
        "id": log_id,
        "event": "change",
        "data": {"characters": [world.pc.pk], "log_id": log_id, "cards": [world.pc.pk]},
    }
    # The HTML follows its announcement, and has no id of its own (the position is the change's).
    assert (cards["id"], cards["event"]) == (None, "cards")
    assert list(cards["data"]) == [world.pc.pk]
    card = cards["data"][world.pc.pk]
    world.pc.refresh_from_db()
    assert re.search(rf'id="character-{world.pc.pk}"\s+data-version="{world.pc.version}"', card)
    assert f"{world.pc.pv} / {world.pc.pv_max}" in card
    # This stream's CSRF field, never the cache's placeholder; the GM's quick actions are there.
    assert TOKEN in card and "placeholder" not in card
    assert "act/damage/" in card
    # Exactly what the card's own URL returns to the GM, marked for an out-of-band swap.
    assert as_fetched(card) == fetched_card(gm_client, world.campaign, world.pc)


def test_a_change_brings_no_card_the_page_does_not_show(world):
    async def scenario():
        reader = await open_stream(
            world.gm_membership, shown=stream.Shown(cards=frozenset({world.npc.pk}))
        )
        await adamage(world.campaign, world.gm, world.pc)
        event = await reader.event()
        assert event["data"]["characters"] == [world.pc.pk]
        assert "cards" not in event["data"]  # the page refetches what it shows, if anything
        await reader.silence()
        await reader.close()

    play(scenario)


def test_a_players_stream_brings_only_their_own_cards_as_they_see_them(world, player_client):
    """Under BARS the player hears that another PC or an NPC changed (public entries), but gets
    only their own full card: the others' cards, asked for, never come."""
    world.campaign.party_visibility = PartyVisibility.BARS
    world.campaign.save()
    everyone = frozenset({world.pc.pk, world.other_pc.pk, world.npc.pk})
    messages = []

    async def scenario():
        player = await open_stream(world.player_membership, shown=stream.Shown(cards=everyone))
        await adamage(world.campaign, world.gm, world.other_pc)
        messages.append(await player.event())
        await adamage(world.campaign, world.gm, world.npc)  # BARS: public entries are public
        messages.append(await player.event())
        await adamage(world.campaign, world.gm, world.pc)
        messages.extend(await player.events(2))
        await player.silence()
        await player.close()

    play(scenario)
    other, npc, own, cards = messages
    assert without_seal(other)["data"] == {
        "characters": [world.other_pc.pk],
        "log_id": other["id"],
        "proposals": False,
    }
    assert without_seal(npc)["data"] == {
        "characters": [world.npc.pk],
        "log_id": npc["id"],
        "proposals": False,
    }
    assert own["data"]["cards"] == [world.pc.pk]
    assert list(cards["data"]) == [world.pc.pk]
    card = cards["data"][world.pc.pk]
    assert "act/damage/" not in card  # no GM controls in a player's card
    assert as_fetched(card) == fetched_card(player_client, world.campaign, world.pc)


def test_a_card_comes_in_the_language_of_the_stream(world):
    async def scenario():
        cards = frozenset({world.pc.pk})
        english = await open_stream(
            world.gm_membership, shown=stream.Shown(cards=cards, language="en")
        )
        french = await open_stream(world.gm_membership, shown=stream.Shown(cards=cards))
        await adamage(world.campaign, world.gm, world.pc, 5)
        _, in_english = await english.events(2)
        _, in_french = await french.events(2)
        card_en = in_english["data"][world.pc.pk]
        card_fr = in_french["data"][world.pc.pk]
        assert "Damage" in card_en and "Dégâts" not in card_en
        assert "Dégâts" in card_fr
        await english.close()
        await french.close()

    play(scenario)


def test_a_stream_catching_up_sends_ids_only_and_the_page_refetches(world):
    result = damage(world.campaign, world.gm, world.pc)

    async def scenario():
        reader = await open_stream(
            world.gm_membership,
            after=result.entries[0].pk - 1,
            shown=stream.Shown(cards=frozenset({world.pc.pk})),
        )
        event = await reader.event()
        assert event["data"] == {"characters": [world.pc.pk], "log_id": result.entries[-1].pk}
        await reader.close()

    play(scenario)


def test_the_stream_view_reads_the_cards_the_page_shows(world):
    url = f"/c/{world.campaign.pk}/events/?cards={world.pc.pk},junk,-4,,{world.npc.pk}"

    async def scenario():
        client = AsyncClient()
        await client.aforce_login(world.gm)
        response = await client.get(url)
        reader = await Reader(response._iterator).live()
        await adamage(world.campaign, world.gm, world.pc)
        await adamage(world.campaign, world.gm, world.npc)
        messages = await reader.events(4)
        await reader.close()
        assert [m["event"] for m in messages] == ["change", "cards", "change", "cards"]
        assert list(messages[1]["data"]) == [world.pc.pk]
        assert list(messages[3]["data"]) == [world.npc.pk]
        token = re.search(
            r'name="csrfmiddlewaretoken" value="(\w+)"', messages[1]["data"][world.pc.pk]
        )
        assert token and len(token.group(1)) == 64  # a masked token, as get_token gives

    play(scenario)


def test_a_read_that_fails_is_tried_again_on_a_fresh_connection(monkeypatch):
    """A dropped connection, or SQLite's "table is locked" while a writer commits."""
    monkeypatch.setattr(stream, "RETRY_DELAYS", (0, 0))
    calls = []

    def flaky(fails):
        calls.append(1)
        if len(calls) <= fails:
            raise OperationalError("database table is locked")
        return "read"

    assert stream._in_reader_thread(flaky, 2) == "read"
    assert len(calls) == 3
    calls.clear()
    with pytest.raises(OperationalError):
        stream._in_reader_thread(flaky, 3)
    assert len(calls) == 3


def test_an_open_stream_holds_no_thread(world, gm_client):
    """Under ASGI a request keeps a thread for its synchronous parts until it ends; a stream
    lets it go once its body starts (stream.release_request_thread)."""
    from asgiref.testing import ApplicationCommunicator
    from django.conf import settings
    from django.core.asgi import get_asgi_application

    application = get_asgi_application()
    cookie = (
        f"{settings.SESSION_COOKIE_NAME}={gm_client.cookies[settings.SESSION_COOKIE_NAME].value}"
    )
    scope = {
        "type": "http",
        "method": "GET",
        "path": f"/c/{world.campaign.pk}/events/",
        "query_string": b"",
        "headers": [(b"host", b"testserver"), (b"cookie", cookie.encode())],
        "client": ("127.0.0.1", 1),
        "server": ("testserver", 80),
    }
    opened = []

    async def scenario():
        threads_before = threading.active_count()
        for _ in range(STREAMS := stream.STREAMS_PER_ACCOUNT):  # one account's most
            stream_ = ApplicationCommunicator(application, scope)
            await stream_.send_input({"type": "http.request", "body": b"", "more_body": False})
            start = await stream_.receive_output(WAIT)
            assert start["status"] == 200
            body = await stream_.receive_output(WAIT)
            assert b": live" in body["body"]
            opened.append(stream_)
        grown = threading.active_count() - threads_before
        # At most the stream readers' few threads, however many streams are open.
        assert grown <= stream.READ_THREADS, grown
        assert STREAMS > stream.READ_THREADS
        for stream_ in opened:
            await stream_.send_input({"type": "http.disconnect"})
            await stream_.wait(WAIT)

    play(scenario)


def test_an_event_is_read_once_for_every_viewer_of_its_campaign(world, monkeypatch):
    """Per event, the process reads the campaign's viewers and the batch once (two queries),
    not once per viewer: the work grows with that campaign's viewers only in Python."""
    calls = []
    read_once = stream._event_views

    def counted(event, user_ids):
        with CaptureQueriesContext(connection) as queries:
            views = read_once(event, user_ids)
        calls.append((set(user_ids), len(queries)))
        return views

    monkeypatch.setattr(stream, "_event_views", counted)
    campaign, gm = world.campaign, world.gm
    memberships = {m.user_id: m for m in Membership.objects.filter(campaign=campaign)}

    async def scenario():
        people = (world.gm, world.player, world.other_player, world.player)  # two tabs
        readers = [(user, await open_stream(memberships[user.pk])) for user in people]
        result = await adamage(campaign, gm, world.pc)
        log_id = result.entries[-1].pk
        for user, reader in readers:
            if user == world.other_player:
                await reader.silence()  # STATE: another's PV is not theirs to know
            else:
                assert (await reader.event())["id"] == log_id
            await reader.close()

    play(scenario)
    viewers = {world.gm.pk, world.player.pk, world.other_player.pk}
    assert calls == [(viewers, 2)]  # the memberships, then the batch's entries


def test_a_gms_view_of_an_event_is_its_own_ids_and_a_truncated_one_is_read(world):
    """A GM sees every entry: the event's ids are what they may know, read from the log only
    when the notification had to leave them out (over NOTIFY's size limit)."""
    result = damage(world.campaign, world.gm, world.pc)
    log_id = result.entries[-1].pk
    shown = stream.Shown(cards=frozenset({world.pc.pk}))
    whole = live.Event(world.campaign.pk, (world.pc.pk,), log_id)
    with CaptureQueriesContext(connection) as queries:
        change, _ = stream._visible_change(whole, world.gm.pk, shown)
    assert (change.characters, change.cards) == ((world.pc.pk,), (world.pc.pk,))
    assert len(queries) == 1  # the membership, re-read at every event
    truncated = live.Event(world.campaign.pk, (), log_id)
    change, _ = stream._visible_change(truncated, world.gm.pk, shown)
    assert (change.characters, change.cards) == ((world.pc.pk,), (world.pc.pk,))
    # A player's view is always read from the log, through the visibility rule.
    change, _ = stream._visible_change(whole, world.player.pk, shown)
    assert (change.characters, change.cards) == ((world.pc.pk,), (world.pc.pk,))
    change, _ = stream._visible_change(whole, world.other_player.pk, shown)
    assert change.characters == ()  # STATE: another's PV is not theirs to know


def test_the_event_says_whether_the_campaign_changed_and_a_gm_reads_nothing_more(world):
    """A clock that runs the coma hours changes characters and the campaign in one batch."""
    from tests.play.steps import put

    put(world.pc, pv=-2, vital="coma", next_coma_hour=world.campaign.clock)
    result = run(world.campaign, world.gm, "clock", {"minutes": "60"}, typed=[15, 2])
    event = live.Event(world.campaign.pk, tuple(result.character_ids), result.entries[-1].pk, True)
    assert result.character_ids and live.Event.from_payload(event.to_payload()) == event
    assert live._changes_campaign(result.entries[-1].pk) is True
    shown = stream.Shown(cards=frozenset({world.pc.pk}))
    with CaptureQueriesContext(connection) as queries:
        change, _ = stream._visible_change(event, world.gm.pk, shown)
    assert len(queries) == 1  # the membership: the flag comes with the event
    assert change.campaign and change.characters == (world.pc.pk,)
    change, _ = stream._visible_change(event, world.player.pk, shown)
    assert change.campaign  # read from the log, through the visibility rule
    damage_id = damage(world.campaign, world.gm, world.other_pc, 6).entries[-1].pk
    assert live._changes_campaign(damage_id) is False


def test_the_cards_of_a_batch_are_read_in_four_queries_however_many_changed(world):
    """No query per card: a party action (a night, the end of a scene) changes them all."""
    membership = world.campaign.memberships.select_related("campaign").get(user=world.gm)
    cards = tuple(sorted((world.pc.pk, world.other_pc.pk, world.npc.pk)))
    change = stream.Change(1, cards, cards)
    with CaptureQueriesContext(connection) as queries:
        message = stream._cards_message(membership, change, stream.Shown(cards=frozenset(cards)))
    assert sorted(message.html) == list(cards)
    # The rows, their conditions, their sequels, the rolls asked of their players (R34): the
    # cache is empty.
    assert len(queries) == 4


def test_a_cards_message_is_the_cards_html_line_by_line_with_the_streams_token():
    """Each line its own `data:` field: SSE ends a line at CR, LF or CRLF, and a name typed in
    a textarea brings CRLF. A bare CR would otherwise start a line that is no field at all."""
    message = stream.CardsMessage(
        9,
        {
            3: '\n<article id="character-3" hx-swap-oob="true">Jo\r\nel\rle\n</article>\n',
            4: f'\n<article id="character-4">{CSRF_PLACEHOLDER}</article>\n',
        },
    )
    assert message.sse(TOKEN) == (
        b"event: cards\n"
        b'data: <article id="character-3" hx-swap-oob="true">Jo\n'
        b"data: el\n"
        b"data: le\n"
        b"data: </article>\n"
        b'data: <article id="character-4">' + TOKEN.encode() + b"</article>\n"
        b"\n"
    )


# ---------------------------------------------------------------------------------------------
# The view and the polling fallback


def test_the_stream_view_sends_sse_headers_and_honours_last_event_id(world):
    earlier = damage(world.campaign, world.gm, world.pc)
    later = damage(world.campaign, world.gm, world.other_pc)
    url = f"/c/{world.campaign.pk}/events/"

    async def scenario():
        client = AsyncClient()
        await client.aforce_login(world.gm)
        response = await client.get(
            f"{url}?after=0", headers={"Last-Event-ID": str(earlier.entries[-1].pk)}
        )
        assert response.status_code == 200
        assert response["Content-Type"] == "text/event-stream"
        assert response["Cache-Control"] == "no-cache"
        assert response["X-Accel-Buffering"] == "no"
        assert "Content-Encoding" not in response
        body = response._iterator  # the view's own generator, to close it
        reader = await Reader(body).live()
        # Last-Event-ID wins over the page's ?after=: only the later change.
        assert (await reader.event())["id"] == later.entries[-1].pk
        await reader.silence()
        await reader.close()

    play(scenario)


def test_the_poll_fallback_returns_the_same_changes_through_the_same_rule(
    world, gm_client, player_client, outsider_client
):
    own = damage(world.campaign, world.gm, world.pc)
    damage(world.campaign, world.gm, world.other_pc)
    url = f"/c/{world.campaign.pk}/events/poll"

    everything = gm_client.get(url, {"after": 0}).json()
    assert [c["characters"] for c in everything["changes"]] == [
        [world.pc.pk],
        [world.other_pc.pk],
    ]
    mine = player_client.get(url, {"after": 0}).json()
    assert mine == {
        "changes": [{"characters": [world.pc.pk], "log_id": own.entries[-1].pk}],
        "last_id": own.entries[-1].pk,
    }
    assert player_client.get(url, {"after": own.entries[-1].pk}).json() == {
        "changes": [],
        "last_id": own.entries[-1].pk,
    }
    assert outsider_client.get(url, {"after": 0}).status_code == 404


def test_pages_with_cards_render_where_the_stream_starts(world, gm_client, player_client):
    result = damage(world.campaign, world.gm, world.pc)
    hidden = damage(world.campaign, world.gm, world.other_pc)  # PV of another: not for Paul
    page = gm_client.get(f"/c/{world.campaign.pk}/").content.decode()
    assert f'data-after="{hidden.entries[-1].pk}"' in page
    assert 'src="/static/live.js"' in page
    sheet = player_client.get(f"/c/{world.campaign.pk}/characters/{world.pc.pk}/")
    assert f'data-after="{result.entries[-1].pk}"' in sheet.content.decode()


def test_a_page_asks_for_the_stream_only_from_a_server_that_holds_streams(world, gm_client):
    """Under WSGI (the test client, runserver) the stream would be refused: the page polls."""
    url = f"/c/{world.campaign.pk}/"
    assert 'data-stream=""' in gm_client.get(url).content.decode()

    async def scenario():
        client = AsyncClient()  # ASGI, as uvicorn serves it
        await client.aforce_login(world.gm)
        page = (await client.get(url)).content.decode()
        assert f'data-stream="/c/{world.campaign.pk}/events/"' in page

    play(scenario)
