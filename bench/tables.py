"""Many tables live at once on one server: how many campaigns it holds, and one table's burst.

Run: `DATABASE_URL=postgres://… .venv/bin/python bench/tables.py` (about 5–9 minutes; shorter:
BENCH_TABLES_STEPS=2,5,10 BENCH_TABLES_WINDOW=8 BENCH_TABLES_ISOLATION=0). It
creates a throwaway database (`<name>_bench_tables`, dropped at the end), migrates it and
serves the app as the Dockerfile does: one uvicorn with `--workers 2`, DEBUG off, psycopg's
connection pool, on a free loopback port. Without PostgreSQL it says so and exits 0.
`--app PATH` serves another checkout of the app (e.g. the commit before a fix, to compare in
the same sitting); the campaigns are still made by this checkout's code.

Each campaign is a table: a GM with the dashboard open and 5 players with their phones open,
each on their sheet or on the campaign's home (the party's rows), by turns (BENCH_TABLES_PHONES,
"sheet,home"); the party shows its bars (everything is visible to everyone), so every action
reaches all 6 pages. Each page is run as a browser runs it (bench/lib/pages.py): loaded once,
its stream opened at the address static/live.js builds, and on each event the refetches
live.js and feed.js make for that page (the log, the feed, the party's rows, the proposals,
the seal check…) with htmx's headers: `GET/act` counts them, `shown` is when the last of them
(and the pushed cards) arrived.
Each GM acts every ACTION_EVERY seconds or so (jittered), one request at a time, an htmx POST
with its CSRF token, in the mix of a session: damage, a test, healing, Flux, the clock
moved by 10 minutes, and a night's rest now and then. C, the number of live campaigns, grows in
STEPS (earlier campaigns keep playing) until the event p95 or the action p95 passes 150 ms or
anything fails. Per step, over a WINDOW-second window:
- action: from sending the POST to having the whole answer;
- event: from sending the POST to each of the campaign's streams having the `change` event
  (its id is the batch's last entry, read from the database after the answer);
- errors: answers other than 200, failed connections, events missing after EVENT_TIMEOUT s,
  streams ended by the server;
- DB connections (pg_stat_activity on the bench database, the bench's own left out);
- CPU per action: the CPU time of the uvicorn processes and of the database's backends over
  the window, divided by the actions made in it (the bench client's own CPU is shown apart:
  it shares the machine's cores);
- memory: RSS of the uvicorn processes; load: /proc/loadavg (other work on the machine shows
  there).
Then isolation, at half the campaigns held (at least 10): the other campaigns' event p95 over a
window where nothing special happens, then over one where, every few seconds, a campaign of 10
comatose characters advances its clock by 24 hours (R11: one Survie test per hour and
character); the ratio must stay under 2. The last line is the headline: the largest number of
tables held with both p95 under 150 ms and no error.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import resource
import sys
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.lib.http import (  # noqa: E402 (importable once ROOT is on the path)
    free_port,
    pct,
    post_form,
    rss_kib,
    wait_healthy,
)
from bench.lib.pages import Page  # noqa: E402
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

STEPS = tuple(int(s) for s in os.environ.get("BENCH_TABLES_STEPS", "").split(",") if s) or (
    2, 5, 10, 15, 20, 30, 40, 50, 60, 70, 80, 100, 120,
)  # fmt: skip
PLAYERS = 5
ACTION_EVERY = 4.0  # seconds between a GM's actions, on average (uniform ±25 %)
WINDOW = float(os.environ.get("BENCH_TABLES_WINDOW", "15"))  # seconds measured per step
WARM = 3.0  # seconds of play before a step's window opens
EVENT_TIMEOUT = 5.0  # seconds after which an event not received is an error
TARGET_MS = 150
WORKERS = 2  # the Dockerfile's WEB_CONCURRENCY
TIME_LIMIT = float(os.environ.get("BENCH_TABLES_LIMIT", 9 * 60))  # no new step after this
ISOLATION = os.environ.get("BENCH_TABLES_ISOLATION", "1") != "0"  # 0: skip the bursts' part
# Which page each player's phone shows, cycled over the 5 players: their sheet (their card,
# the feed) or the campaign's home (their characters and the party's rows).
PHONES = tuple(os.environ.get("BENCH_TABLES_PHONES", "sheet,home").split(","))
BURSTS = 4  # campaigns of 10 comatose characters, one 24-hour advance each
BURST_CHARACTERS = 10


# ---------------------------------------------------------------------------------------------
# Process figures from /proc


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
    return found


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


# ---------------------------------------------------------------------------------------------
# The tables


@dataclass
class Table:
    campaign_id: int
    character_ids: list[int]
    gm_cookie: str  # with its CSRF cookie
    csrf: str
    player_cookies: list[str]  # player i owns character_ids[i]
    burst: bool = False
    streams: list[Page] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    active: bool = False
    head: int | None = None  # the log's last id after the GM's last action


@dataclass
class Action:
    name: str
    started: float
    duration: float | None = None
    log_id: int | None = None
    status: int | None = None


def make_tables(count: int, start: int, *, burst: bool = False) -> list[Table]:
    """`count` campaigns made through the services (Django set up on the bench database)."""
    from django.contrib.auth import get_user_model
    from django.db.models import F

    from campaign.models import Campaign, Membership, PartyVisibility, Role
    from campaign.services import campaign_create
    from characters.models import Character
    from play import services

    User = get_user_model()
    tables = []
    for n in range(start, start + count):
        prefix = f"burst{n}" if burst else f"t{n}"
        gm = User.objects.create(username=f"{prefix}_gm")
        players = User.objects.bulk_create(
            [User(username=f"{prefix}_p{i}") for i in range(PLAYERS)]
        )
        campaign = campaign_create(user=gm, name=f"Table {prefix}")
        Campaign.objects.filter(pk=campaign.pk).update(party_visibility=PartyVisibility.BARS)
        Membership.objects.bulk_create(
            [Membership(campaign=campaign, user=p, role=Role.PLAYER) for p in players]
        )
        stats = dict.fromkeys(campaign.stats, 2)
        owners = players if not burst else [players[i % PLAYERS] for i in range(BURST_CHARACTERS)]
        ids = [
            services.character_create(
                campaign_id=campaign.pk,
                actor=gm,
                name=f"Perso {i}",
                pv_max=12,
                flux_max=6,
                owner=owner,
                stats=stats,
            ).character_ids[0]
            for i, owner in enumerate(owners)
        ]
        if burst:
            # R11: in a coma, one Survie test per hour of the clock (the bench's own setup).
            clock = Campaign.objects.get(pk=campaign.pk).clock
            for pk in ids:
                Character.objects.filter(pk=pk).update(
                    pv=-3,
                    vital="coma",
                    next_coma_hour=clock + timedelta(hours=1),
                    version=F("version") + 1,
                )
        gm_cookie, csrf = with_csrf(session_cookie(gm))
        tables.append(
            Table(campaign.pk, ids, gm_cookie, csrf, [session_cookie(p) for p in players], burst)
        )
    return tables


# ---------------------------------------------------------------------------------------------
# The GM's actions


def next_action(table: Table, n: int) -> tuple[str, bytes]:
    """The n-th action of a table's session: (path, form body). Each changes something, so each
    makes one batch of entries: damage, a test, healing, a Flux spent then restored on one
    character, then the clock moved by 10 minutes, and every fifth time a night's rest instead."""
    c = table.campaign_id
    everyone = "visibility=everyone"
    kind = n % 6
    if kind == 5:
        if n % 30 == 29:
            return f"/c/{c}/party/night/", f"hours=8&{everyone}".encode()
        return f"/c/{c}/party/clock/", f"minutes=10&{everyone}".encode()
    character = table.character_ids[(n // 6) % len(table.character_ids)]
    action, form = (
        ("damage", "amount=1&cause="),
        ("check", "stat=ADR&difficulty=10&modifier=0"),
        ("heal", "amount=1"),
        ("spend_flux", "amount=1"),
        ("restore_flux", "amount=1"),
    )[kind]
    return f"/c/{c}/characters/{character}/act/{action}/", f"{form}&{everyone}".encode()


class Bench:
    def __init__(self, port, procs, head_conn, dbname):
        self.port, self.procs, self.head_conn, self.dbname = port, procs, head_conn, dbname
        self.tables: list[Table] = []
        self.errors: list[str] = []
        self.gm_tasks: list[asyncio.Task] = []
        self.no_batch: list[str] = []  # actions that wrote nothing (none expected)

    async def log_head(self, campaign_id: int) -> int:
        async with self.head_lock:
            cursor = await self.head_conn.execute(
                "SELECT max(id) FROM journal_auditentry WHERE campaign_id = %s", [campaign_id]
            )
            return (await cursor.fetchone())[0]

    async def act(self, table: Table, name: str, path: str, body: bytes) -> Action:
        action = Action(name, time.perf_counter())
        table.actions.append(action)
        # Posted from the GM's dashboard, as htmx posts it: the answer brings the parts of that
        # page the action changed (play/views.py action_fragments), the log among them, which
        # the page then shows (the change that follows needs no refetch of it, if it comes
        # after the answer: static/live.js).
        dashboard = table.streams[0] if table.streams else None
        extra = ""
        if dashboard is not None:
            extra = "".join(
                f"{k}: {v}\r\n" for k, v in dashboard.headers().items() if k != "HX-Request"
            )
        try:
            status, answer = await post_form(
                self.port, path, table.gm_cookie, table.csrf, body, extra
            )
        except (OSError, asyncio.IncompleteReadError) as error:
            self.errors.append(f"{name} on campaign {table.campaign_id}: {error!r}")
            return action
        action.duration = time.perf_counter() - action.started
        action.status = status
        if dashboard is not None and status == 200:
            dashboard.answered(answer.decode(errors="replace"))
        if status != 200:
            self.errors.append(
                f"{name} on campaign {table.campaign_id}: HTTP {status} {answer[:200]!r}"
            )
            return action
        head = await self.log_head(table.campaign_id)
        if head == table.head:  # nothing written: no event to wait for
            self.no_batch.append(name)
        else:
            action.log_id = table.head = head
        return action

    async def gm(self, table: Table, rng: random.Random):
        await asyncio.sleep(rng.uniform(0, ACTION_EVERY))
        n = 6 * rng.randrange(5)  # at the start of a cycle: damage comes before healing
        while True:
            if table.active:
                path, body = next_action(table, n)
                await self.act(table, path.rstrip("/").rsplit("/", 1)[1], path, body)
                n += 1
            await asyncio.sleep(ACTION_EVERY * rng.uniform(0.75, 1.25))

    async def open_streams(self, tables: list[Table]):
        for table in tables:
            c = table.campaign_id
            table.streams = [Page(self.port, table.gm_cookie, f"/c/{c}/", "dashboard")]
            for i, cookie in enumerate(table.player_cookies):
                kind = PHONES[i % len(PHONES)]
                if kind == "sheet" and i < len(table.character_ids):
                    path = f"/c/{c}/characters/{table.character_ids[i]}/"
                else:
                    kind, path = "home", f"/c/{c}/"
                table.streams.append(Page(self.port, cookie, path, kind))
        streams = [s for t in tables for s in t.streams]
        for batch in range(0, len(streams), 50):
            await asyncio.gather(*(s.connect() for s in streams[batch : batch + 50]))

    def cpu(self) -> tuple[float, float, float]:
        """CPU seconds so far: the uvicorn processes, the database's backends, this client."""
        app = sum(cpu_seconds(pid) for pid in self.app_pids())
        db = sum(cpu_seconds(pid) for pid in self.backends)
        me = resource.getrusage(resource.RUSAGE_SELF)
        return app, db, me.ru_utime + me.ru_stime

    def app_pids(self) -> list[int]:
        return [p.pid for p in self.procs] + [c for p in self.procs for c in children(p.pid)]

    async def db_backends(self) -> list[int]:
        async with self.head_lock:
            cursor = await self.head_conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                [self.dbname],
            )
            return [row[0] for row in await cursor.fetchall()]

    async def window(self, tables: list[Table], seconds: float) -> dict:
        """Play for `seconds`; the figures of the actions started in that time."""
        for table in tables:
            table.actions.clear()
            for page in table.streams:
                page.errors.clear()
                page.gets.clear()
        self.errors.clear()
        self.backends = await self.db_backends()
        cpu0, t0 = self.cpu(), time.perf_counter()
        await asyncio.sleep(seconds)
        t1 = time.perf_counter()
        # The refetches made in the window (those after it belong to the next actions).
        gets: dict[str, int] = {}
        for table in tables:
            for page in table.streams:
                for what, n in page.gets.items():
                    gets[what] = gets.get(what, 0) + n
        self.backends = sorted(set(self.backends) | set(await self.db_backends()))
        connections = len(self.backends)
        cpu1 = self.cpu()
        await asyncio.sleep(EVENT_TIMEOUT)  # the window's last events arrive (or not)
        actions, events, shown, missing, ended = [], [], [], 0, 0
        page_errors = [e for table in tables for page in table.streams for e in page.errors]
        for table in tables:
            for action in table.actions:
                if action.started > t1:
                    continue
                if action.duration is not None:
                    actions.append(action.duration)
                if action.log_id is None:
                    continue
                for stream in table.streams:
                    at = stream.received.get(action.log_id)
                    if at is None or at - action.started > EVENT_TIMEOUT:
                        missing += 1
                    else:
                        events.append(at - action.started)
                        done = stream.shown.get(action.log_id)
                        if done is not None:
                            shown.append(done - action.started)
            ended += sum(s.ended for s in table.streams)
        errors = list(self.errors) + page_errors
        if missing:
            errors.append(f"{missing} events not received within {EVENT_TIMEOUT:.0f} s")
        if ended:
            errors.append(f"{ended} streams ended by the server")
        n = n_actions = len(actions)
        return {
            "campaigns": len(tables),
            "streams": sum(len(t.streams) for t in tables),
            "rate": n / (t1 - t0),
            "actions": actions,
            "events": events,
            "errors": errors,
            "shown": shown,
            "gets": {what: n / max(n_actions, 1) for what, n in sorted(gets.items())},
            "error_count": len(self.errors) + len(page_errors) + missing + ended,
            "connections": connections,
            "app_cpu": (cpu1[0] - cpu0[0]) / max(n, 1) * 1000,
            "db_cpu": (cpu1[1] - cpu0[1]) / max(n, 1) * 1000,
            "client_cpu": (cpu1[2] - cpu0[2]) / (t1 - t0) * 100,
            "cpu_busy": (cpu1[0] + cpu1[1] - cpu0[0] - cpu0[1]) / (t1 - t0) * 100,
            "rss": sum(rss_kib(pid) for pid in self.app_pids()) / 1024,
            "load": load(),
        }


def ms(values, p) -> float:
    return pct([v * 1000 for v in values], p)


HEADER = (
    f"{'tables':>6} {'streams':>7} {'act/s':>6} {'action p50/p95 ms':>18} "
    f"{'event p50/p95 ms':>17} {'shown p50/p95 ms':>17} {'GET/act':>7} {'errors':>6} "
    f"{'db conn':>7} {'cpu/action ms':>17} "
    f"{'server cpu':>10} {'client':>6} {'RSS MiB':>7}  load (1/5/15 min)"
)


def line(figures: dict) -> str:
    a, e, s = figures["actions"], figures["events"], figures["shown"]
    gets = sum(figures["gets"].values())
    app, db = figures["app_cpu"], figures["db_cpu"]
    cpu = f"{app + db:.1f} ({app:.1f}+{db:.1f})"
    return (
        f"{figures['campaigns']:>6} {figures['streams']:>7} {figures['rate']:>6.1f} "
        f"{ms(a, 50):>8.1f} / {ms(a, 95):>7.1f} {ms(e, 50):>7.1f} / {ms(e, 95):>7.1f} "
        f"{ms(s, 50):>7.1f} / {ms(s, 95):>7.1f} {gets:>7.1f} "
        f"{figures['error_count']:>6} {figures['connections']:>7} {cpu:>17} "
        f"{figures['cpu_busy']:>9.0f}% {figures['client_cpu']:>5.0f}% {figures['rss']:>7.0f}  "
        f"{figures['load']}"
    )


def held(figures: dict) -> bool:
    return (
        not figures["error_count"]
        and bool(figures["events"])
        and ms(figures["actions"], 95) < TARGET_MS
        and ms(figures["events"], 95) < TARGET_MS
    )


async def isolation(bench: Bench, best: int, make) -> list[Table]:
    """Half the tables held play on while some campaigns advance 24 h of coma: the others'
    event p95 with and without, and its ratio (must stay under 2)."""
    iso = max(10, best // 2) if best else STEPS[0]
    for i, table in enumerate(bench.tables):
        table.active = i < iso
    others = bench.tables[:iso]
    bursts = await make(BURSTS, 0, burst=True)
    await bench.open_streams(bursts)
    for table in bursts:
        table.head = await bench.log_head(table.campaign_id)
    await asyncio.sleep(ACTION_EVERY)
    quiet = await bench.window(others, WINDOW)

    async def burst():
        for table in bursts:
            await asyncio.sleep(WINDOW / (BURSTS + 1))
            table.actions.clear()
            action = await bench.act(
                table, "clock 24 h", f"/c/{table.campaign_id}/party/clock/",
                b"minutes=1440&visibility=everyone",
            )  # fmt: skip
            bench.burst_times.append(action)

    bench.burst_times = []
    burst_task = asyncio.create_task(burst())
    busy = await bench.window(others, WINDOW)
    await burst_task
    ratio = ms(busy["events"], 95) / ms(quiet["events"], 95)
    took = [a.duration * 1000 for a in bench.burst_times if a.duration is not None]
    print(
        f"\nisolation at {iso} tables ({iso * (1 + PLAYERS)} streams), {BURSTS} bursts of "
        f"{BURST_CHARACTERS} comatose characters advancing 24 h (each POST took "
        f"{', '.join(f'{t:.0f}' for t in took)} ms; load {busy['load']}):"
    )
    print(f"  others' events without a burst: {line(quiet)}")
    print(f"  others' events with the bursts: {line(busy)}")
    print(
        f"  event p95 ratio {ratio:.2f}x (must stay under 2x: {'met' if ratio < 2 else 'MISSED'})"
    )
    return bursts


async def run(port, procs, dbname, bench_url) -> int:
    import psycopg
    from asgiref.sync import sync_to_async

    began = time.monotonic()
    async with await psycopg.AsyncConnection.connect(
        bench_url.replace("postgres://", "postgresql://", 1), autocommit=True
    ) as conn:
        bench = Bench(port, procs, conn, dbname)
        bench.head_lock = asyncio.Lock()
        rng = random.Random(14)
        make = sync_to_async(make_tables, thread_sensitive=True)
        # Warm every worker: a table played for a few seconds.
        print(f"load before: {load()}  (uptime's 1, 5 and 15 minute averages)")
        print("\nramp: each step plays for "
              f"{WINDOW:.0f} s, a GM's action every {ACTION_EVERY:.0f} s or so\n")  # fmt: skip
        print(HEADER)
        best = 0
        steps = []
        for c in STEPS:
            if time.monotonic() - began > TIME_LIMIT - WINDOW - 60:
                print(f"(time limit: no step beyond {len(bench.tables)} tables)")
                break
            new = await make(c - len(bench.tables), len(bench.tables))
            await bench.open_streams(new)
            for table in new:
                table.head = await bench.log_head(table.campaign_id)
                table.active = True
                bench.gm_tasks.append(asyncio.create_task(bench.gm(table, rng)))
            bench.tables += new
            await asyncio.sleep(WARM if steps else 3 * WARM)  # the first: workers warm up
            figures = await bench.window(bench.tables, WINDOW)
            steps.append(figures)
            print(line(figures), flush=True)
            print("    GETs per action: " + ", ".join(
                f"{what} {n:.1f}" for what, n in figures["gets"].items()))  # fmt: skip
            for error in figures["errors"][:3]:
                print(f"    error: {error}")
            if not held(figures):
                break
            best = c

        bursts = await isolation(bench, best, make) if ISOLATION else []
        for task in bench.gm_tasks:
            task.cancel()
        for table in bench.tables + bursts:
            for stream in table.streams:
                stream.close()
        if bench.no_batch:
            print(
                f"\nnote: {len(bench.no_batch)} actions wrote nothing (no event to time): "
                f"{', '.join(sorted(set(bench.no_batch)))}"
            )
        last = steps[-1] if steps else None
        held_steps = [s for s in steps if held(s)]
        per_core = max((s["rate"] for s in held_steps), default=0.0) / (os.cpu_count() or 1)
        basis = (held_steps or steps)[-1:]
        for figures in basis:
            cost = figures["app_cpu"] + figures["db_cpu"]
            print(
                f"\nCPU bound: {cost:.1f} ms of server and database CPU per action at "
                f"{figures['campaigns']} tables, so at most {1000 * ACTION_EVERY / cost:.0f} "
                f"tables per idle core at one action every {ACTION_EVERY:.0f} s (an upper bound: "
                "no latency target, no client; it depends little on other load)"
            )
        print(
            f"\nheadline: {best} tables held ({best * (1 + PLAYERS)} streams; "
            f"both p95 < {TARGET_MS} ms, no error), "
            f"{per_core:.1f} GM actions/s per core, on {os.cpu_count()} cores"
            + (f"; next step ({last['campaigns']}) failed" if last and not held(last) else "")
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--app", type=Path, default=ROOT, help="the checkout to serve")
    args = parser.parse_args()
    url = postgres_url()
    if url is None:
        print("bench/tables.py needs PostgreSQL: set DATABASE_URL=postgres://… (skipped)")
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 8192), hard), hard))
    procs = []
    with throwaway_database(url, "bench_tables") as bench_url:
        env = production_env(bench_url, WEB_CONCURRENCY=str(WORKERS))
        try:
            migrate(env, args.app.resolve())
            os.environ.update(env)
            os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
            import django

            django.setup()
            port = free_port()
            procs = [uvicorn(port, env, workers=WORKERS, root=args.app.resolve())]
            wait_healthy(port)
            dbname = bench_url.rsplit("/", 1)[1]
            print(
                f"uvicorn --workers {WORKERS} serving {args.app.resolve()} on port {port}, "
                f"PostgreSQL database {dbname}, pool on, DEBUG off; "
                f"{os.cpu_count()} cores shared with this client"
            )
            return asyncio.run(run(port, procs, dbname, bench_url))
        finally:
            stop(procs)


if __name__ == "__main__":
    sys.exit(main())
