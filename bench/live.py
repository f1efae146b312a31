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

Rolls asked of a player (R34): 50 phones (the player's sheet: its stream with the
card) and 5 GM dashboards, over both processes. Each round the GM asks a test from the card
(POST …/ask/ to process A), then the player answers it with a server roll (POST
…/requests/<id>/answer/ to process B). Measured from the start of each POST:
  (c) each phone having the prompt: the pushed card holding the pending request;
  (d) each GM dashboard having the answer: the pushed card holding that request's result.
Targets: (c) and (d) p95 < 150 ms. `BENCH_ONLY=requests` runs this part alone.
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
    open_event_stream,
    pct,
    post_form,
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
REQUEST_PHONES, REQUEST_DASHBOARDS, REQUEST_ROUNDS = 50, 5, 10
TARGET_REQUEST_MS = 150


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
        # Its hundreds of clients share two accounts (a table has one phone per player): the
        # per-account cap on streams (LIVE_STREAMS_PER_ACCOUNT, 8) would end all but 8 each.
        env = production_env(bench_url, LIVE_STREAMS_PER_ACCOUNT="2000")
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
    # The player posts their answers (R34) with the same CSRF token, their own session.
    cookies["alice_post"] = cookies["alice"] + "; " + cookies["mj_post"].split("; ", 1)[1]
    return (character.campaign_id, character.pk, csrf), cookies


async def run(ports, procs, ids, cookies) -> int:
    if os.environ.get("BENCH_ONLY") == "requests":
        return await measure_requests(ports, ids, cookies)
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
    await measure_requests(ports, ids, cookies)
    verdict = "met" if headline < TARGET_A_MS else "MISSED"
    print(
        f"\nheadline: (a) p95 at 500 clients = {headline:.1f} ms "
        f"(target < {TARGET_A_MS} ms: {verdict})"
    )
    return 0


class CardWatch:
    """One stream with the character's card; notes when a pushed card first matches `want`."""

    def __init__(self, port, cookie, campaign_id, character_id):
        self.port, self.cookie = port, cookie
        self.path = f"/c/{campaign_id}/events/?cards={character_id}"
        self.stream = EventStream()
        self.want = None  # a predicate on a `cards` message's data
        self.seen: asyncio.Future | None = None

    async def connect(self):
        _reader, self.writer, self.body = await open_event_stream(self.port, self.path, self.cookie)
        live = False
        while not live:
            live = any("live" in e["comments"] for e in self.stream.feed(await anext(self.body)))
        self.task = asyncio.create_task(self.listen())

    async def listen(self):
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            async for data in self.body:
                now = time.perf_counter()
                for event in self.stream.feed(data):
                    if event["event"] != "cards" or self.want is None:
                        continue
                    if self.want(event["data"]) and not self.seen.done():
                        self.seen.set_result(now)

    def expect(self, want):
        self.want = want
        self.seen = asyncio.get_running_loop().create_future()
        return self.seen

    async def close(self):
        self.task.cancel()
        self.writer.close()


async def measure_requests(ports, ids, cookies) -> int:
    """(c) the GM's request to the prompt on 50 phones, (d) the player's roll to the GM's card
    (R34); prints both and their targets."""
    campaign_id, character_id, csrf = ids
    phones = [
        CardWatch(ports[i % 2], cookies["alice"], campaign_id, character_id)
        for i in range(REQUEST_PHONES)
    ]
    dashboards = [
        CardWatch(ports[i % 2], cookies["mj"], campaign_id, character_id)
        for i in range(REQUEST_DASHBOARDS)
    ]
    for watch in (*phones, *dashboards):
        await watch.connect()
    asked, answered, asks, answers, missing = [], [], [], [], 0
    ask_path = f"/c/{campaign_id}/characters/{character_id}/ask/"
    ask_body = b"kind=check&stat=ADR&skill=Crochetage&difficulty=10&modifier=0&visibility=everyone"
    for _ in range(REQUEST_ROUNDS + 1):  # the first round warms both processes, not counted
        waits = [w.expect(lambda data: "data-pending" in data) for w in phones]
        t0 = time.perf_counter()
        status, _body = await post_form(ports[0], ask_path, cookies["mj_post"], csrf, ask_body)
        asks.append(time.perf_counter() - t0)
        assert status == 200, (status, _body[:300])
        done, _ = await asyncio.wait(waits, timeout=EVENT_TIMEOUT)
        first = len(asks) == 1
        missing += len(waits) - len(done)
        if not first:
            asked += [w.result() - t0 for w in done]
        request_id = await asyncio.to_thread(pending_request, character_id)
        result = f'id="request-{request_id}"'
        waits = [
            w.expect(lambda data, result=result: result in data and "request-result" in data)
            for w in dashboards
        ]
        t1 = time.perf_counter()
        status, _body = await post_form(
            ports[1],
            f"/c/{campaign_id}/requests/{request_id}/answer/",
            cookies["alice_post"],
            csrf,
            b"mode=server",
        )
        answers.append(time.perf_counter() - t1)
        assert status == 200, (status, _body[:300])
        done, _ = await asyncio.wait(waits, timeout=EVENT_TIMEOUT)
        missing += len(waits) - len(done)
        if not first:
            answered += [w.result() - t1 for w in done]
        await asyncio.sleep(0.2)
    for watch in (*phones, *dashboards):
        await watch.close()
    print(
        f"\nR34 roll requests: {REQUEST_PHONES} phones and {REQUEST_DASHBOARDS} GM dashboards "
        f"over both processes ({REQUEST_ROUNDS} rounds)"
    )
    print(f"  (c) GM's request to the prompt on the phones {summary(asked)}")
    print(f"      for scale, the GM's POST {summary(asks[1:])}")
    print(f"  (d) player's roll to the GM's card         {summary(answered)}")
    print(f"      for scale, the player's POST {summary(answers[1:])}")
    if missing:
        print(f"  MISSING: {missing} prompts or cards never arrived within {EVENT_TIMEOUT} s")
    for name, values in (("(c)", asked), ("(d)", answered)):
        p95 = pct([v * 1000 for v in values], 95)
        verdict = "met" if p95 < TARGET_REQUEST_MS else "MISSED"
        print(f"  target {name} p95 < {TARGET_REQUEST_MS} ms: {p95:.1f} ms, {verdict}")
    return 0


def pending_request(character_id: int) -> int:
    from django.db import close_old_connections

    from play.models import RollRequest

    close_old_connections()
    return RollRequest.objects.get(character_id=character_id, status="pending").pk


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
