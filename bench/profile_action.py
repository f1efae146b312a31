"""Where the CPU of one GM action goes, for a table of a GM and five phones as the pages run.

Run: `DATABASE_URL=postgres://… .venv/bin/python bench/profile_action.py [--app PATH]`
(about a minute). Like bench/tables.py: a throwaway database, TABLES campaigns, each with the
GM's dashboard and five phones (bench/lib/pages.py: the stream and every refetch static/live.js
makes), the GMs acting every 4 s or so; but the app is one uvicorn process with CPU probes
(bench/lib/probe_server.py), read before and after a WINDOW of play. Printed per action (one
event to six pages): the POST (queries, engine, audit, render, the rest), the fan-out (the
event's read, the pushed cards, the stream's loop: HTTP, sends, heartbeats; the guard), the
refetches the pages make, by part, and the database's own CPU. The last line is the headline.

BENCH_PROFILE_TABLES (10) and BENCH_PROFILE_WINDOW (20 s) make it shorter or longer;
BENCH_TABLES_PHONES chooses the phones' pages as in bench/tables.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.lib.http import free_port, wait_healthy  # noqa: E402
from bench.lib.server import (  # noqa: E402
    migrate,
    postgres_url,
    production_env,
    stop,
    throwaway_database,
)
from bench.tables import Bench, cpu_seconds, load, make_tables  # noqa: E402

TABLES = int(os.environ.get("BENCH_PROFILE_TABLES", "10"))
WINDOW = float(os.environ.get("BENCH_PROFILE_WINDOW", "20"))
WARM = 8.0


def snapshot(out: Path) -> dict:
    out.unlink(missing_ok=True)
    Path(str(out) + ".ask").write_text("")
    deadline = time.monotonic() + 10
    while not out.exists():
        if time.monotonic() > deadline:
            raise RuntimeError("the probe server did not answer")
        time.sleep(0.02)
    return json.loads(out.read_text())


def delta(before: dict, after: dict) -> tuple[dict, dict]:
    totals = {
        k: v - before["totals"].get(k, 0.0) for k, v in after["totals"].items()
    }  # fmt: skip
    calls = {k: v - before["calls"].get(k, 0) for k, v in after["calls"].items()}
    totals["loop|self"] = after["loop"] - before["loop"]
    threads = after["threads"] - before["threads"]
    seen = sum(v for k, v in totals.items() if not k.startswith("loop|"))
    totals["threads, outside every probe|self"] = max(threads - seen, 0.0)
    return totals, calls


def report(totals: dict, calls: dict, actions: int, db: float) -> None:
    per = 1000 / max(actions, 1)
    areas: dict[str, dict[str, float]] = {}
    for key, seconds in totals.items():
        area, kind = key.split("|")
        areas.setdefault(area, {})[kind] = seconds * per

    def show(area: str) -> float:
        kinds = areas.get(area, {})
        total = sum(kinds.values())
        if not total:
            return 0.0
        n = calls.get(area, 0) / max(actions, 1)
        parts = ", ".join(f"{k} {v:.1f}" for k, v in sorted(kinds.items(), key=lambda x: -x[1]))
        # Entries into a thread: a request's middleware chain may take more than one.
        count = f"{n:.1f} thread entries per action, " if n else ""
        print(f"  {area:<34} {total:6.1f} ms  ({count}{parts})")
        return total

    print(f"\nCPU per action (ms), over {actions} actions:")
    post = show("post")
    renders = sorted(a for a in areas if a.startswith("fanout: renders"))
    fanout = sum(
        show(a)
        for a in ("fanout: reads", *renders, "fanout: seal check", "fanout: other reads", "guard")
    )
    loop = show("loop")
    refetch = sum(show(a) for a in sorted(areas) if a.startswith("refetch:"))
    seal = show("seal check")
    rest = sum(
        show(a)
        for a in sorted(areas)
        if a in ("stream open", "page load", "other", "threads, outside every probe")
    )
    print(f"  {'database backends':<34} {db * per:6.1f} ms")
    app = post + fanout + loop + refetch + seal + rest
    print(
        f"\nheadline: {app + db * per:.1f} ms of CPU per action (app {app:.1f} + database "
        f"{db * per:.1f}): POST {post:.1f}, fan-out {fanout:.1f} + event loop {loop:.1f}, "
        f"refetches {refetch:.1f}, seal checks {seal:.1f}, other {rest:.1f}"
    )


async def play(port, proc, dbname, bench_url, out: Path) -> None:
    import psycopg
    from asgiref.sync import sync_to_async

    async with await psycopg.AsyncConnection.connect(
        bench_url.replace("postgres://", "postgresql://", 1), autocommit=True
    ) as conn:
        bench = Bench(port, [proc], conn, dbname)
        bench.head_lock = asyncio.Lock()
        rng = random.Random(26)
        tables = await sync_to_async(make_tables, thread_sensitive=True)(TABLES, 0)
        await bench.open_streams(tables)
        bench.tables = tables
        for table in tables:
            table.head = await bench.log_head(table.campaign_id)
            table.active = True
            bench.gm_tasks.append(asyncio.create_task(bench.gm(table, rng)))
        await asyncio.sleep(WARM)
        backends = await bench.db_backends()
        before, db0 = snapshot(out), sum(cpu_seconds(p) for p in backends)
        for table in tables:
            table.actions.clear()
        await asyncio.sleep(WINDOW)
        backends = sorted(set(backends) | set(await bench.db_backends()))
        after, db1 = snapshot(out), sum(cpu_seconds(p) for p in backends)
        actions = sum(1 for t in tables for a in t.actions if a.log_id is not None)
        errors = len(bench.errors) + sum(len(p.errors) for t in tables for p in t.streams)
        for task in bench.gm_tasks:
            task.cancel()
        for table in tables:
            for page in table.streams:
                page.close()
        totals, calls = delta(before, after)
        phones = os.environ.get("BENCH_TABLES_PHONES", "sheet,home")
        print(
            f"{TABLES} tables (a GM's dashboard and 5 phones: {phones}), {WINDOW:.0f} s, "
            f"{errors} errors, load {load()}"
        )
        report(totals, calls, actions, db1 - db0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--app", type=Path, default=ROOT, help="the checkout to serve")
    args = parser.parse_args()
    url = postgres_url()
    if url is None:
        print("bench/profile_action.py needs PostgreSQL: set DATABASE_URL=postgres://… (skipped)")
        return 0
    app = args.app.resolve()
    proc = None
    with throwaway_database(url, "bench_profile") as bench_url, tempfile.TemporaryDirectory() as d:
        env = production_env(bench_url)
        try:
            migrate(env, app)
            os.environ.update(env)
            os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
            import django

            django.setup()
            port = free_port()
            out = Path(d) / "probe.json"
            proc = subprocess.Popen(
                [sys.executable, str(ROOT / "bench/lib/probe_server.py"), str(port), str(out)],
                env=env,
                cwd=app,
            )
            wait_healthy(port)
            print(f"one uvicorn process with CPU probes serving {app}, load {load()}")
            asyncio.run(play(port, proc, bench_url.rsplit("/", 1)[1], bench_url, out))
            return 0
        finally:
            if proc is not None:
                stop([proc])


if __name__ == "__main__":
    sys.exit(main())
