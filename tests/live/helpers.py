"""Reading the live stream in tests: open one, parse its events, act and wait for them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re

from asgiref.sync import async_to_sync, sync_to_async

from campaign.models import Membership
from journal import events as live
from live import stream
from tests.play.steps import run

WAIT = 10.0  # seconds an expected event may take (the listener may be reconnecting)
TOKEN = '<input type="hidden" name="csrfmiddlewaretoken" value="stream-token">'
QUIET = 0.6  # seconds of silence that count as "nothing was sent"
OOB = ' hx-swap-oob="true"'
CSRF_FIELD = re.compile(r'<input type="hidden" name="csrfmiddlewaretoken" value="[^"]*">')
CARD = re.compile(r'<article\b[^>]*\bid="character-(\d+)".*?</article>', re.DOTALL)


def play(scenario):
    """Run an async scenario, then stop this loop's listener (it holds a connection)."""

    async def wrapper():
        try:
            await scenario()
        finally:
            await live.shutdown()
            await sync_to_async(stream.close_reader_connections)()

    async_to_sync(wrapper)()


def parse(chunk: bytes) -> dict | None:
    """One SSE message as {"id", "event", "data"}; None for comments (heartbeats, preamble).
    A `change` carries JSON; a `cards` message, HTML: its data here is {character id: card}."""
    fields: dict = {}
    data = []
    for line in chunk.decode().split("\n"):
        if not line or line.startswith(":"):
            continue
        name, _, value = line.partition(": ")
        if name == "data":
            data.append(value)
        else:
            fields[name] = value
    if not data:
        return None
    event_id = int(fields["id"]) if "id" in fields else None  # a `cards` message has none
    if fields["event"] == "cards":
        return {"id": event_id, "event": "cards", "data": cards_in("\n".join(data))}
    return {"id": event_id, "event": fields["event"], "data": json.loads("\n".join(data))}


class Reader:
    """Drains a stream in the background, so a test can wait for an event or for silence."""

    def __init__(self, body):
        self.body = body
        self.chunks: asyncio.Queue = asyncio.Queue()
        self.raw: list[bytes] = []
        self.task = asyncio.ensure_future(self._pump())

    async def _pump(self):
        async for chunk in self.body:
            self.raw.append(chunk)
            await self.chunks.put(chunk)

    async def live(self):
        """Wait for the preamble: from then on the stream is subscribed and has caught up."""
        chunk = await asyncio.wait_for(self.chunks.get(), WAIT)
        assert chunk.startswith(b"retry: ") and b": live" in chunk, chunk
        return self

    async def event(self, timeout: float = WAIT) -> dict:
        while True:
            try:
                chunk = await asyncio.wait_for(self.chunks.get(), timeout)
            except TimeoutError:
                # A stream that died (an exception in its generator) says why, not "timeout".
                if self.task.done() and not self.task.cancelled() and self.task.exception():
                    raise AssertionError(
                        "the stream ended with an error"
                    ) from self.task.exception()
                raise
            event = parse(chunk)
            if event is not None:
                return event

    async def events(self, count: int) -> list[dict]:
        return [await self.event() for _ in range(count)]

    async def silence(self, seconds: float = QUIET) -> None:
        try:
            event = await self.event(timeout=seconds)
        except TimeoutError:
            return
        raise AssertionError(f"unexpected event {event}")

    async def close(self):
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task
        await self.body.aclose()


async def open_stream(membership, after=None, **kwargs) -> Reader:
    membership = await Membership.objects.select_related("campaign").aget(pk=membership.pk)
    return await Reader(stream.change_stream(membership, after, **kwargs)).live()


def without_seal(event: dict) -> dict:
    """The change without the log's seal check it carries when the log extends the seal before
    it (`log_seal`, live/stream.py; tests/live/test_log_seal.py checks its value)."""
    data = dict(event["data"])
    told = data.pop("log_seal")
    assert set(told) == {"from", "to"} and told["from"] != told["to"]
    return {**event, "data": data}


def as_fetched(pushed: str) -> str:
    """A pushed card as its own URL returns it: without the out-of-band mark or a CSRF field."""
    return CSRF_FIELD.sub("", pushed.replace(OOB, "", 1)).strip()


def cards_in(html: str) -> dict[int, str]:
    """The cards of a `cards` message by character id, each checked for its out-of-band mark."""
    cards = {int(match[1]): match[0] for match in CARD.finditer(html)}
    assert all(OOB in card for card in cards.values()), html
    assert not CARD.sub("", html).strip(), html  # nothing else
    return cards


def damage(campaign, gm, character, amount=5, **kwargs):
    return run(campaign, gm, "damage", {"amount": str(amount), **kwargs}, character=character)


adamage = sync_to_async(damage)
