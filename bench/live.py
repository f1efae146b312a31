"""Live updates end to end: two uvicorn processes on one PostgreSQL, N SSE clients, GM POSTs.

Run: `DATABASE_URL=postgres://… .venv/bin/python bench/live.py`. It creates its own throwaway
database (`<name>_bench_live`), migrates and seeds it (`seed_demo`), starts two app processes
on free loopback ports, and drops everything at the end. Without PostgreSQL it says so and
exits 0 (the cross-process path is what it measures).

N = 1, 50 and 500 clients hold `/c/<id>/events/?cards=<character id>` open (as static/live.js
does: the ids of the cards its page shows), spread over both processes, half as the GM and
half as the player who owns the character (so each process serves two viewers). The GM's POST
(over htmx, to process A) spends or restores one Flux of that character. For each round we
measure, from the start of the POST:
  (a) each client receiving the `change` event (every N);
  (b) each client having its card up to date (N = 1 and 50): when the event announced the
      card (`"cards": [<id>]`), the moment the `cards` message that follows brought its HTML
      (its data holding `id="character-<id>"` and a `data-version="`); otherwise the moment it had
      refetched `…/card/` on its own keep-alive connection, as static/live.js does. How many
      samples came from pushed cards and how many from refetches is printed.
At N = 50 a second set of rounds runs with fresh clients connected without `cards=` (the
refetch-only path, still used to catch up after a reconnection, by polling and for the
players' party rows): its (a), and its (b') card refetched, printed for comparison.
Memory per idle connection: the RSS growth of both server processes once N clients are
connected and idle, divided by N. Targets: (b) p95 < 150 ms at 50 on the push path; the last
line is the headline: (a) p95 at 500 clients, target < 100 ms.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.lib.http import (  # noqa: E402 (importable once ROOT is on the path)
    EventStream,
    free_port,
    pct,
    read_body,
    read_chunks,
    read_head,
    request,
    rss_kib,
    summary,
    wait_healthy,
)
from bench.lib.server import (  # noqa: E402
    migrate,
    postgres_url,
    production_env,
    session_cookie,
    stop,
    throwaway_database,
    uvicorn,
    with_csrf,
)

SIZES = (1, 50, 500)
REFETCH_SIZES = (1, 50)
ROUNDS = {1: 20, 50: 10, 500: 5}
EVENT_TIMEOUT = 5.0  # seconds a round waits for every client
TARGET_A_MS, TARGET_B_MS = 100, 150


def announced(data: str, character_id: int) -> bool:
    """Whether a `change` event says its card's HTML follows in a `cards` message."""
    return character_id in (json.loads(data).get("cards") or [])


def pushed_card(data: str, character_id: int) -> bool:
    """Whether a `cards` message (the cards' HTML, as htmx swaps it) carries this card whole."""
    return f'id="character-{character_id}"' in data and 'data-version="' in data


class Client:
    """One SSE connection, plus (optionally) a keep-alive connection to refetch its card.

    With `cards`, it asks the stream for its character's card (`?cards=<id>`) and takes a
    pushed card as its update; without, or when an event announces no card for it, it refetches.
    """

    def __init__(self, port, cookie, campaign_id, character_id, refetch, cards=True):
        self.port, self.cookie, self.refetch, self.cards = port, cookie, refetch, cards
        self.character_id = character_id
        self.events_path = f"/c/{campaign_id}/events/"
        if cards:
            self.events_path += f"?cards={character_id}"
        self.card_path = f"/c/{campaign_id}/characters/{character_id}/card/"
        self.received: dict[int, float] = {}
        self.updated: dict[int, float] = {}  # log id -> when the card was up to date
        self.pushed: set[int] = set()  # log ids whose card came in the stream
        self.awaiting: set[int] = set()  # log ids whose card the stream announced
        self.last_change = None  # a `cards` message completes the change just before it
        self.unasked = 0  # events carrying a card although this client did not ask for one
        self.waiters: dict[int, asyncio.Future] = {}
        self.pending: set[asyncio.Task] = set()
        self.stream = EventStream()
        self.live = False
        self.card = None
        self.card_lock = asyncio.Lock()

    async def connect(self):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.writer.write(
            request(
                "GET", self.events_path, self.port, self.cookie, "Accept: text/event-stream\r\n"
            )
        )
        status, headers = await read_head(self.reader)
        assert status == 200 and headers["content-type"] == "text/event-stream", (status, headers)
        chunked = headers.get("transfer-encoding", "").lower() == "chunked"
        self.body = read_chunks(self.reader, chunked)
        while not self.live:  # the stream's first bytes: `: live`
            self.handle(await anext(self.body), time.perf_counter())
        if self.refetch:
            self.card = await asyncio.open_connection("127.0.0.1", self.port)
        self.task = asyncio.create_task(self.listen())

    async def listen(self):
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            async for data in self.body:
                self.handle(data, time.perf_counter())

    def handle(self, data: bytes, now: float):
        for event in self.stream.feed(data):
            if "live" in event["comments"]:
                self.live = True
            if event["event"] == "cards" and self.refetch:
                log_id = self.last_change
                if log_id in self.awaiting and pushed_card(event["data"], self.character_id):
                    self.awaiting.discard(log_id)
                    self.pushed.add(log_id)
                    self.updated[log_id] = now
                    self.done(log_id)
                continue
            if event["event"] != "change" or event["id"] is None:
                continue
            log_id = self.last_change = int(event["id"])
            if log_id in self.received:
                continue
            self.received[log_id] = now
            if not self.refetch:  # (b) not measured: no need to read the data
                self.done(log_id)
                continue
            coming = announced(event["data"], self.character_id)
            if coming and not self.cards:
                self.unasked += 1
            if coming and self.cards:
                self.awaiting.add(log_id)  # its HTML follows, in a `cards` message
            else:
                self.pending.add(task := asyncio.create_task(self.refetch_card(log_id)))
                task.add_done_callback(self.pending.discard)

    async def refetch_card(self, log_id):
        async with self.card_lock:  # one request at a time on the keep-alive connection
            for attempt in (1, 2):
                reader, writer = self.card
                try:
                    writer.write(
                        request(
                            "GET", self.card_path, self.port, self.cookie, "HX-Request: true\r\n"
                        )
                    )
                    status, headers = await read_head(reader)
                    await read_body(reader, headers)
                    break
                except (asyncio.IncompleteReadError, ConnectionError):
                    # The server closed the idle keep-alive connection: a new one, as a browser.
                    writer.close()
                    if attempt == 2:
                        raise
                    self.card = await asyncio.open_connection("127.0.0.1", self.port)
            assert status == 200, status
            self.updated[log_id] = time.perf_counter()
        self.done(log_id)

    def done(self, log_id):
        waiter = self.waiters.pop(log_id, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def wait_for(self, log_id) -> asyncio.Future:
        future = asyncio.get_running_loop().create_future()
        if log_id in self.received and (not self.refetch or log_id in self.updated):
            future.set_result(None)
        else:
            self.waiters[log_id] = future
        return future

    async def close(self):
        self.task.cancel()
        for task in list(self.pending):
            task.cancel()
        self.writer.close()
        if self.card is not None:
            self.card[1].close()


# ---------------------------------------------------------------------------------------------


def main() -> int:
    url = postgres_url()
    if url is None:
        print("bench/live.py needs PostgreSQL: set DATABASE_URL=postgres://… (skipped)")
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 4096), hard), hard))

    procs = []
    with throwaway_database(url, "bench_live") as bench_url:
        env = production_env(bench_url)
        try:
            migrate(env)
            manage = [sys.executable, str(ROOT / "manage.py")]
            subprocess.run(
                [*manage, "seed_demo"], env=env, cwd=ROOT, check=True, capture_output=True
            )
            os.environ.update(env)
            os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
            import django

            django.setup()
            ids, cookies = prepare()
            ports = [free_port(), free_port()]
            procs = [uvicorn(port, env) for port in ports]
            for port in ports:
                wait_healthy(port)
            print(
                f"two uvicorn processes (pids {procs[0].pid}, {procs[1].pid}) on ports {ports}, "
                f"PostgreSQL database {bench_url.rsplit('/', 1)[1]}"
            )
            return asyncio.run(run(ports, procs, ids, cookies))
        finally:
            stop(procs)


def prepare():
    """Sessions for the GM and the player, and the CSRF pair for the GM's POSTs."""
    from django.contrib.auth import get_user_model

    from characters.models import Character

    users = {u.username: u for u in get_user_model().objects.filter(username__in=["mj", "alice"])}
    character = Character.objects.get(owner=users["alice"])
    cookies = {username: session_cookie(user) for username, user in users.items()}
    cookies["mj_post"], csrf = with_csrf(cookies["mj"])
    return (character.campaign_id, character.pk, csrf), cookies


async def run(ports, procs, ids, cookies) -> int:
    campaign_id, character_id, csrf = ids
    spend = True
    posts: list[float] = []

    async def post_change() -> int:
        nonlocal spend
        action = "spend_flux" if spend else "restore_flux"
        spend = not spend
        body = b"amount=1&visibility=everyone"
        started = time.perf_counter()
        # A new connection per POST: uvicorn closes idle keep-alive ones after 5 s.
        gm = await asyncio.open_connection("127.0.0.1", ports[0])
        gm[1].write(
            request(
                "POST",
                f"/c/{campaign_id}/characters/{character_id}/act/{action}/",
                ports[0],
                cookies["mj_post"],
                f"X-CSRFToken: {csrf}\r\nHX-Request: true\r\n"
                "Content-Type: application/x-www-form-urlencoded\r\n",
                body,
            )
        )
        status, headers = await read_head(gm[0])
        await read_body(gm[0], headers)
        posts.append(time.perf_counter() - started)
        gm[1].close()
        assert status == 200, status
        return await asyncio.to_thread(latest_log_id, campaign_id)

    # Warm both processes (listener started, code paths loaded, pushed cards and refetches)
    # with two clients each.
    warm = [
        Client(p, cookies["mj"], campaign_id, character_id, True, cards)
        for p in ports
        for cards in (True, False)
    ]
    for client in warm:
        await client.connect()
    log_id = await post_change()
    await asyncio.wait_for(asyncio.gather(*(c.wait_for(log_id) for c in warm)), EVENT_TIMEOUT)
    for client in warm:
        await client.close()
    await asyncio.sleep(0.5)

    async def measure(n: int, cards: bool) -> tuple[list[float], list[float]]:
        """One set of rounds with n fresh clients; prints its lines; returns (a) and (b)."""
        refetch = n in REFETCH_SIZES
        base_rss = [rss_kib(p.pid) for p in procs]
        clients = [
            Client(
                ports[i % 2],
                cookies["mj" if (i // 2) % 2 == 0 else "alice"],
                campaign_id,
                character_id,
                refetch,
                cards,
            )
            for i in range(n)
        ]
        started = time.perf_counter()
        for batch in range(0, n, 100):
            await asyncio.gather(*(c.connect() for c in clients[batch : batch + 100]))
        connect_s = time.perf_counter() - started
        await asyncio.sleep(1.0)  # idle
        grown = sum(rss_kib(p.pid) for p in procs) - sum(base_rss)
        received, updated, missing, not_updated, pushed = [], [], 0, 0, 0
        posts.clear()
        for _ in range(ROUNDS[n]):
            t0 = time.perf_counter()
            log_id = await post_change()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    asyncio.gather(*(c.wait_for(log_id) for c in clients)), EVENT_TIMEOUT
                )
            for c in clients:
                if log_id in c.received:
                    received.append(c.received[log_id] - t0)
                else:
                    missing += 1
                if refetch and log_id in c.updated:
                    updated.append(c.updated[log_id] - t0)
                    pushed += log_id in c.pushed
                elif refetch:
                    not_updated += 1
            await asyncio.sleep(0.2)
        unasked = sum(c.unasked for c in clients)
        for c in clients:
            await c.close()
        if cards:
            print(f"\nN = {n} clients ({ROUNDS[n]} changes; connected in {connect_s:.2f} s)")
        else:
            print(
                f"\nN = {n} clients without cards=, the refetch path ({ROUNDS[n]} changes; "
                f"connected in {connect_s:.2f} s)"
            )
        print(f"  (a) event received      {summary(received)}")
        if refetch and cards:
            print(f"  (b) card up to date     {summary(updated)}")
            print(
                f"      of which {pushed} from pushed cards, {len(updated) - pushed} from refetches"
            )
        elif refetch:
            print(f"  (b') card refetched, refetch path {summary(updated)}")
        print(f"  for scale, the POST itself {summary(posts)}")
        print(f"  memory per idle connection: {grown / n:.1f} KiB (RSS +{grown} KiB, 2 processes)")
        if missing:
            print(f"  MISSING: {missing} client-events never arrived within {EVENT_TIMEOUT} s")
        if not_updated:
            print(f"  MISSING: {not_updated} card updates not done within {EVENT_TIMEOUT} s")
        if unasked:
            print(f"  UNEXPECTED: {unasked} events carried a card although cards= was not sent")
        await asyncio.sleep(0.5)
        return received, updated

    headline = None
    for n in SIZES:
        received, updated = await measure(n, cards=True)
        if n == 500:
            headline = pct([v * 1000 for v in received], 95)
        if n == 50:
            b95 = pct([v * 1000 for v in updated], 95)
            verdict = "met" if b95 < TARGET_B_MS else "MISSED"
            print(f"  target (b) p95 < {TARGET_B_MS} ms at 50, push path: {verdict}")
            _, refetched = await measure(n, cards=False)
            b95 = pct([v * 1000 for v in refetched], 95)
            print(f"  (b') p95 at 50 on the refetch path: {b95:.1f} ms (for comparison, no target)")
    verdict = "met" if headline < TARGET_A_MS else "MISSED"
    print(
        f"\nheadline: (a) p95 at 500 clients = {headline:.1f} ms "
        f"(target < {TARGET_A_MS} ms: {verdict})"
    )
    return 0


def latest_log_id(campaign_id: int) -> int:
    from django.db import close_old_connections

    from journal.models import AuditEntry

    close_old_connections()
    return (
        AuditEntry.objects.filter(campaign_id=campaign_id)
        .order_by("-id")
        .values_list("id", flat=True)[0]
    )


if __name__ == "__main__":
    sys.exit(main())
