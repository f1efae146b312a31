"""Live updates: "these characters changed, at log id V", delivered only once committed.

Writers call `publish` inside their transaction (play/services/). Streams
(live/stream.py) call `subscribe` / `unsubscribe`. Between the two:

- On PostgreSQL, `publish` issues `pg_notify` in the writing transaction: PostgreSQL delivers
  it at commit, in commit order, and never for a rollback. Each process keeps ONE dedicated
  async psycopg connection that LISTENs (started by the first stream, on that process's event
  loop) and hands every notification to the in-process broadcaster, which fans it out to that
  process's streams. When that connection drops it reconnects with backoff, and once it
  listens again every stream is told to re-read the audit log after its last id (`RESYNC`):
  whatever was committed while nobody listened is found there.
- On SQLite (one process, the run command and most tests), `publish` hands the event to the
  broadcaster through `transaction.on_commit`.

How events cross from the writing process to every other one is a *transport*, one class with
three methods (`Transport` below): `publish` an event inside the writing transaction, `ready`
once this process hears every later one, `stop`. `PostgresNotify` and `InProcess` are here;
`settings.LIVE_TRANSPORT` names another by its dotted path (e.g. a Redis pub/sub one: publish
after commit, subscribe on one connection per process, call `broadcaster.publish` per message
and `broadcaster.resync()` after a reconnection). Nothing else changes for such a swap.

NOTIFY's payload must stay under 8000 bytes: an event is small JSON of ids (campaign, last
entry, characters); when the characters would not fit (over PAYLOAD_LIMIT) they are left out
and each process reads them from the log (live/stream.py), so no batch is too big to announce.

Events carry only ids; the stream decides per viewer what they may know (journal.visibility)
and renders the cards that viewer's page shows, through the viewer's permissions.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import weakref
from dataclasses import dataclass
from typing import Protocol

from django.conf import settings
from django.db import connections, transaction
from django.utils.module_loading import import_string

from journal.models import AuditEntry

logger = logging.getLogger(__name__)

CHANNEL = "chroniqueur_live"
LISTEN_READY_TIMEOUT = 5.0  # a stream waits at most this long for the listener to listen
BACKOFF_MIN, BACKOFF_MAX = 0.1, 5.0
PAYLOAD_LIMIT = 7000  # bytes; NOTIFY refuses 8000 and more
KEEPALIVE = 10.0  # idle seconds before the listener checks that its connection still answers


@dataclass(frozen=True)
class Event:
    """One committed batch of audit entries of a campaign, named by its last entry: `log_id`
    is the event's id on the stream (its "version")."""

    campaign_id: int
    character_ids: tuple[int, ...]
    log_id: int
    # The batch changed the campaign itself (clock, scene, hour rests): no character id says so,
    # and a GM's stream, which does not read the log at each event, would not know.
    campaign_changed: bool = False

    def to_payload(self) -> str:
        data = {
            "c": self.campaign_id,
            "ch": list(self.character_ids),
            "l": self.log_id,
        }
        if self.campaign_changed:
            data["cc"] = 1
        payload = json.dumps(data, separators=(",", ":"))
        if len(payload.encode()) > PAYLOAD_LIMIT:  # streams read the ids from the log instead
            payload = json.dumps({**data, "ch": []}, separators=(",", ":"))
        return payload

    @classmethod
    def from_payload(cls, payload: str) -> Event:
        data = json.loads(payload)
        return cls(
            int(data["c"]),
            tuple(int(i) for i in data["ch"]),
            int(data["l"]),
            bool(data.get("cc")),
        )


class _Resync:
    """Sent to every stream when events may have been missed: re-read the log."""

    def __repr__(self) -> str:
        return "RESYNC"


RESYNC = _Resync()


class Broadcaster:
    """This process's streams, by campaign; safe to publish to from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[int, set[tuple[asyncio.AbstractEventLoop, asyncio.Queue]]] = {}

    def add(self, campaign_id: int) -> asyncio.Queue:
        queue: asyncio.Queue = asyncio.Queue()
        with self._lock:
            self._subscribers.setdefault(campaign_id, set()).add(
                (asyncio.get_running_loop(), queue)
            )
        return queue

    def remove(self, campaign_id: int, queue: asyncio.Queue) -> None:
        with self._lock:
            subscribers = self._subscribers.get(campaign_id, set())
            for item in [s for s in subscribers if s[1] is queue]:
                subscribers.discard(item)
            if not subscribers:
                self._subscribers.pop(campaign_id, None)

    def count(self) -> int:
        with self._lock:
            return sum(len(s) for s in self._subscribers.values())

    def publish(self, event: Event) -> None:
        with self._lock:
            targets = list(self._subscribers.get(event.campaign_id, ()))
        self._deliver(targets, event)

    def resync(self) -> None:
        with self._lock:
            targets = [t for subscribers in self._subscribers.values() for t in subscribers]
        self._deliver(targets, RESYNC)

    @staticmethod
    def _deliver(targets, item) -> None:
        by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Queue]] = {}
        for loop, queue in targets:
            by_loop.setdefault(loop, []).append(queue)
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        for loop, queues in by_loop.items():
            if loop is here:  # the listener, on the streams' own loop: no hand-over
                _put_all(queues, item)
                continue
            # Writers run in sync threads: one hand-over per loop, however many streams it
            # serves (a closed loop means its streams are gone).
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_put_all, queues, item)


def _put_all(queues, item) -> None:
    for queue in queues:
        queue.put_nowait(item)


broadcaster = Broadcaster()


def _changes_campaign(log_id: int) -> bool:
    """Whether the batch ending at `log_id` has entries of the campaign itself (one read by
    the writer, rather than one per stream and event)."""
    batch = AuditEntry.objects.filter(pk=log_id).values("batch")
    return AuditEntry.objects.filter(batch__in=batch, character__isnull=True).exists()


def publish(
    campaign_id: int, character_ids, log_id: int, *, changes_campaign: bool | None = None
) -> None:
    """Announce the batch ending at entry `log_id`, written in the current transaction, for
    delivery once it commits. Call it inside the transaction (after commit works too).
    `changes_campaign`: whether the batch has entries of the campaign itself, when the
    writer holds the whole batch (else read)."""
    if changes_campaign is None:
        changes_campaign = _changes_campaign(log_id)
    event = Event(campaign_id, tuple(character_ids), log_id, changes_campaign)
    transport().publish(event)


# ---------------------------------------------------------------------------------------------
# Transports: how an event reaches every process's broadcaster


class Transport(Protocol):
    def publish(self, event: Event) -> None:
        """Called inside the writing transaction: deliver `event` to the broadcaster of every
        process once it commits, in commit order, and never if it rolls back."""

    async def ready(self) -> None:
        """Return once this process receives every event committed from now on (start what
        that needs on this event loop). After any gap, call `broadcaster.resync()`."""

    async def stop(self) -> None:
        """Let go of what `ready` started on this event loop (tests; a server just exits)."""


class InProcess:
    """One process (SQLite, the run command, most tests): the broadcaster itself, at commit."""

    def publish(self, event: Event) -> None:
        transaction.on_commit(lambda: broadcaster.publish(event))

    async def ready(self) -> None:
        pass

    async def stop(self) -> None:
        pass


class PostgresNotify:
    """NOTIFY from the writing transaction; one LISTEN connection per process (`Listener`)."""

    def publish(self, event: Event) -> None:
        # Transactional: delivered at commit, dropped on rollback.
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, event.to_payload()])

    async def ready(self) -> None:
        await listener().wait_listening()

    async def stop(self) -> None:
        loop = asyncio.get_running_loop()
        found = _listeners.pop(loop, None)
        if found is not None:
            await found.stop()


def transport() -> Transport:
    """`settings.LIVE_TRANSPORT`'s class, else NOTIFY on PostgreSQL and in-process otherwise
    (one instance of each per process)."""
    path = getattr(settings, "LIVE_TRANSPORT", "") or (
        "journal.events.PostgresNotify"
        if connections["default"].vendor == "postgresql"
        else "journal.events.InProcess"
    )
    found = _transports.get(path)
    if found is None:
        found = _transports[path] = import_string(path)()
    return found


_transports: dict[str, Transport] = {}


# ---------------------------------------------------------------------------------------------
# PostgreSQL: one listening connection per process (per event loop, for tests' sake)


def conninfo(using: str = "default") -> str:
    """The listener's connection string: DATABASE_LISTEN_URL when set (PostgreSQL itself, when
    the app's connections go through PgBouncer's transaction mode), else the Django
    database's."""
    from psycopg.conninfo import make_conninfo

    if getattr(settings, "DATABASE_LISTEN_URL", ""):
        return make_conninfo(settings.DATABASE_LISTEN_URL, application_name="chroniqueur-live")
    database = connections[using].settings_dict
    options = {
        k: v
        for k, v in (database.get("OPTIONS") or {}).items()
        if k
        not in {
            "pool",
            "server_side_binding",
            "isolation_level",
            "assume_role",
            "context",
            "prepare_threshold",
        }
        and not k.endswith("_factory")
    }
    params = {
        "dbname": database.get("NAME") or None,
        "user": database.get("USER") or None,
        "password": database.get("PASSWORD") or None,
        "host": database.get("HOST") or None,
        "port": str(database["PORT"]) if database.get("PORT") else None,
        "application_name": "chroniqueur-live",
        **options,
    }
    return make_conninfo(**{k: v for k, v in params.items() if v is not None})


class Listener:
    """LISTEN on a dedicated autocommit connection; fan out through the broadcaster."""

    def __init__(self, using: str = "default") -> None:
        self.using = using
        self.task: asyncio.Task | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.listening: asyncio.Event | None = None
        self.backend_pid: int | None = None
        self.connects = 0  # successful LISTENs so far: 2 or more means it reconnected

    def ensure_started(self) -> None:
        loop = asyncio.get_running_loop()
        if self.task is not None and not self.task.done() and self.loop is loop:
            return
        self.loop = loop
        self.listening = asyncio.Event()
        self.task = loop.create_task(self._run(), name="chroniqueur-live-listener")

    async def wait_listening(self, timeout: float = LISTEN_READY_TIMEOUT) -> bool:
        self.ensure_started()
        try:
            await asyncio.wait_for(self.listening.wait(), timeout)
        except TimeoutError:
            logger.warning("live: not listening after %.1f s; streams will catch up later", timeout)
            return False
        return True

    async def stop(self) -> None:
        task, self.task = self.task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        import psycopg

        delay = BACKOFF_MIN
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(conninfo(self.using), autocommit=True)
            except psycopg.Error as error:
                logger.warning("live: cannot connect to listen (%s); retry in %.1f s", error, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, BACKOFF_MAX)
                continue
            try:
                async with conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.backend_pid = conn.info.backend_pid
                    self.connects += 1
                    self.listening.set()
                    delay = BACKOFF_MIN
                    # Whatever was committed while nobody listened is in the log: every
                    # stream re-reads after its last id (a no-op for a stream just opened).
                    broadcaster.resync()
                    while True:
                        async for notify in conn.notifies(timeout=KEEPALIVE):
                            self._dispatch(notify.payload)
                        await conn.execute("SELECT 1")  # a dead connection raises here
            except psycopg.Error as error:
                logger.warning("live: listening connection lost (%s); reconnecting", error)
            finally:
                self.listening.clear()
                self.backend_pid = None
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX)

    @staticmethod
    def _dispatch(payload: str) -> None:
        try:
            event = Event.from_payload(payload)
        except (ValueError, KeyError, TypeError):
            logger.warning("live: ignored a malformed notification %r", payload[:200])
            return
        broadcaster.publish(event)


# One listener per event loop: uvicorn has one per process; tests open several in turn.
_listeners: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Listener] = (
    weakref.WeakKeyDictionary()
)


def listener() -> Listener:
    loop = asyncio.get_running_loop()
    found = _listeners.get(loop)
    if found is None:
        found = _listeners[loop] = Listener()
    return found


async def subscribe(campaign_id: int) -> asyncio.Queue:
    """A queue of this campaign's events (and RESYNC markers) from now on.

    On PostgreSQL it returns once this process listens, so that a read of the log made after
    it misses nothing: every later commit reaches the queue.
    """
    queue = broadcaster.add(campaign_id)
    await transport().ready()
    # The listener (re)connecting while this waited told every stream to re-read the log: this
    # one reads it after returning anyway. Kept, the marker made it re-read later, and a change
    # committed meanwhile came through that re-read, with no cards, its own event then skipped
    # as already read (a page's pushed card missing; tests/live/test_compact_stream.py).
    _drop_resyncs(queue)
    return queue


def _drop_resyncs(queue: asyncio.Queue) -> None:
    kept = []
    while not queue.empty():
        item = queue.get_nowait()
        if item is not RESYNC:
            kept.append(item)
    for item in kept:
        queue.put_nowait(item)


def unsubscribe(campaign_id: int, queue: asyncio.Queue) -> None:
    broadcaster.remove(campaign_id, queue)


async def shutdown() -> None:
    """Stop what this loop's transport started (tests; a server process just exits)."""
    await transport().stop()
