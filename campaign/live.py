"""Live updates: "character N changed at log id V", published after commit.

This is the in-process broadcaster: subscribers (the SSE streams of this process) get every
event of their campaign. The stream carries only ids; each card refetches its own partial
through the viewer's permissions.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class Event:
    campaign_id: int
    character_ids: tuple[int, ...]
    log_id: int


class Broadcaster:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[int, set[tuple[asyncio.AbstractEventLoop, asyncio.Queue]]] = {}

    def subscribe(self, campaign_id: int) -> asyncio.Queue:
        queue: asyncio.Queue = asyncio.Queue()
        with self._lock:
            self._subscribers.setdefault(campaign_id, set()).add(
                (asyncio.get_running_loop(), queue)
            )
        return queue

    def unsubscribe(self, campaign_id: int, queue: asyncio.Queue) -> None:
        with self._lock:
            subscribers = self._subscribers.get(campaign_id, set())
            for item in [s for s in subscribers if s[1] is queue]:
                subscribers.discard(item)

    def publish(self, event: Event) -> None:
        with self._lock:
            targets = list(self._subscribers.get(event.campaign_id, ()))
        for loop, queue in targets:
            # Writers run in sync threads; hand the event to each stream's own loop.
            loop.call_soon_threadsafe(queue.put_nowait, event)


broadcaster = Broadcaster()


def publish(campaign_id: int, character_ids, log_id: int) -> None:
    broadcaster.publish(Event(campaign_id, tuple(character_ids), log_id))
