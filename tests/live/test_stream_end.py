"""Streams end at logout, at the session's expiry, at removal from the campaign, and one account
holds at most STREAMS_PER_ACCOUNT of them per process (live/stream.py: the guard, `end`).

Streams are opened through the view (django.test.AsyncClient), so the session they watch is the
request's own; each test runs on SQLite and on PostgreSQL like tests/live/test_live.py.
"""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.contrib.sessions.models import Session
from django.test import AsyncClient
from django.urls import reverse
from django.utils import timezone

from journal import events as live
from live import stream
from play import services
from tests.live.helpers import WAIT, Reader, adamage, parse, play

pytestmark = pytest.mark.django_db(transaction=True)

WITHIN = 5.0  # seconds by which a stream must have ended


async def logged_in(user) -> AsyncClient:
    client = AsyncClient()
    await client.aforce_login(user)
    return client


async def open_view_stream(client, campaign) -> Reader:
    response = await client.get(f"/c/{campaign.pk}/events/")
    assert response.status_code == 200
    return await Reader(response._iterator).live()


async def ends(reader: Reader, timeout: float = WITHIN) -> tuple[list[dict], float]:
    """Every message until the stream ends, and how long that took."""
    start = time.monotonic()
    await asyncio.wait_for(asyncio.shield(reader.task), timeout)
    elapsed = time.monotonic() - start
    messages = [m for m in (parse(c) for c in reader.raw) if m is not None]
    await reader.close()
    return messages, elapsed


END = "end"


def ended(reason: str) -> dict:
    return {"id": None, "event": END, "data": {"reason": reason}}


def test_logging_out_ends_the_stream_within_5_s(world):
    async def scenario():
        client = await logged_in(world.player)
        reader = await open_view_stream(client, world.campaign)
        other = await open_view_stream(await logged_in(world.gm), world.campaign)
        response = await client.post(reverse("logout"))
        assert response.status_code == 302
        messages, elapsed = await ends(reader)
        assert messages == [ended("logout")]
        assert elapsed < WITHIN
        # The GM's stream goes on, and hears the next change.
        result = await adamage(world.campaign, world.gm, world.pc)
        assert (await other.event())["id"] == result.entries[-1].pk
        await other.close()
        # Coming back without a session: no stream.
        assert (await client.get(f"/c/{world.campaign.pk}/events/")).status_code == 404

    play(scenario)


def test_a_change_right_after_logout_never_reaches_the_stream(world, monkeypatch):
    """The logout itself ends the session's streams of this process: a change with cards
    committed right after it is not sent, though the guard (slowed here to a minute) has not
    looked yet. The other session of the same account keeps its stream."""
    monkeypatch.setattr(stream, "GUARD_EVERY", 60.0)

    async def scenario():
        client = await logged_in(world.player)
        response = await client.get(f"/c/{world.campaign.pk}/events/?cards={world.pc.pk}")
        reader = await Reader(response._iterator).live()
        phone = await logged_in(world.player)
        kept = await open_view_stream(phone, world.campaign)
        start = time.monotonic()
        assert (await client.post(reverse("logout"))).status_code == 302
        result = await adamage(world.campaign, world.gm, world.pc)
        messages, _ = await ends(reader, timeout=2.0)
        assert messages == [ended("logout")]
        assert time.monotonic() - start < 2.0
        assert (await kept.event())["id"] == result.entries[-1].pk
        await kept.close()

    play(scenario)


def test_end_session_streams_tells_only_that_sessions_streams(world):
    assert stream.end_session_streams(None) == 0
    assert stream.end_session_streams("no-such-session") == 0


def test_removal_from_the_campaign_ends_the_stream_within_5_s(world):
    async def scenario():
        client = await logged_in(world.player)
        reader = await open_view_stream(client, world.campaign)
        # The GM removes the player from the members page's service: their character loses
        # its player, logged, and that batch is announced to the campaign's streams.
        await sync_to_async(services.membership_end)(
            membership_id=world.player_membership.pk, actor=world.gm
        )
        messages, elapsed = await ends(reader)
        assert messages == [ended("removed")]  # not even the ids of the removal's batch
        assert elapsed < WITHIN
        assert (await client.get(f"/c/{world.campaign.pk}/events/")).status_code == 404

    play(scenario)


def test_a_removed_member_is_told_nothing_later_even_after_a_resync(world, monkeypatch):
    """Removed without an event (the admin, a script), then a change whose notification this
    process missed (the listening connection was down): the resync re-reads the log, as a
    member or not at all."""
    monkeypatch.setattr(stream, "GUARD_EVERY", 60.0)  # only the resync may notice

    async def scenario():
        client = await logged_in(world.player)
        reader = await open_view_stream(client, world.campaign)
        await world.player_membership.__class__.objects.filter(
            pk=world.player_membership.pk
        ).adelete()
        with monkeypatch.context() as m:
            m.setattr(live.broadcaster, "publish", lambda event: None)  # missed
            await adamage(world.campaign, world.gm, world.pc)
        live.broadcaster.resync()
        messages, _ = await ends(reader)
        assert messages == [ended("removed")]

    play(scenario)


def test_the_guard_ends_a_stream_whose_member_was_removed_without_an_event(world):
    async def scenario():
        reader = await open_view_stream(await logged_in(world.player), world.campaign)
        await world.player_membership.__class__.objects.filter(
            pk=world.player_membership.pk
        ).adelete()
        messages, elapsed = await ends(reader)
        assert messages == [ended("removed")]
        assert elapsed < WITHIN

    play(scenario)


def test_an_expired_session_ends_the_stream(world):
    async def scenario():
        client = await logged_in(world.player)
        reader = await open_view_stream(client, world.campaign)
        key = client.session.session_key
        past = timezone.now() - timedelta(seconds=1)
        await Session.objects.filter(session_key=key).aupdate(expire_date=past)
        messages, elapsed = await ends(reader)
        assert messages == [ended("expired")]
        assert elapsed < WITHIN

    play(scenario)


def test_a_password_changed_elsewhere_ends_the_stream(world):
    async def scenario():
        reader = await open_view_stream(await logged_in(world.player), world.campaign)

        def change_password():
            world.player.set_password("un tout nouveau secret")
            world.player.save()

        await sync_to_async(change_password)()
        messages, _ = await ends(reader)
        assert messages == [ended("logout")]

    play(scenario)


def test_a_stream_whose_session_and_membership_hold_stays_open(world, monkeypatch):
    monkeypatch.setattr(stream, "GUARD_EVERY", 0.05)

    async def scenario():
        reader = await open_view_stream(await logged_in(world.player), world.campaign)
        await reader.silence(0.6)  # a dozen rounds of the guard
        assert not reader.task.done()
        result = await adamage(world.campaign, world.gm, world.pc)
        assert (await reader.event())["id"] == result.entries[-1].pk
        await reader.close()

    play(scenario)


def test_one_account_holds_at_most_its_share_of_streams(world):
    cap = stream.STREAMS_PER_ACCOUNT
    assert cap == 8  # settings.LIVE_STREAMS_PER_ACCOUNT's default

    async def scenario():
        client = await logged_in(world.player)
        readers = [await open_view_stream(client, world.campaign) for _ in range(cap)]
        # One more: a stream that says at once it will not serve (the page polls instead),
        # with a 200 and the stream's type, so that the browser logs no error.
        response = await client.get(f"/c/{world.campaign.pk}/events/")
        assert response.status_code == 200
        assert response["Content-Type"] == "text/event-stream"
        busy = Reader(response._iterator)
        messages, _ = await ends(busy, WAIT)
        assert messages == [ended("busy")]
        # Another account is not counted with this one.
        gm = await open_view_stream(await logged_in(world.gm), world.campaign)
        # One closed, one more may open.
        await readers.pop().close()
        readers.append(await open_view_stream(client, world.campaign))
        for reader in [*readers, gm]:
            await reader.close()
        assert stream.guard().watches == set()

    play(scenario)
