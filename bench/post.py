"""What one GM quick action costs in its own request: wall time, CPU and SQL queries, in process.

Run: `.venv/bin/python bench/post.py [--app PATH]` (SQLite in memory by default; with
DATABASE_URL=postgres://… a throwaway `test_<name>_bench_post` database, dropped at the end, as
bench/dashboard.py does). `--app` measures another checkout (e.g. /work/main) with this
script: its code is imported instead of this one's.

A campaign of CHARACTERS characters (a GM, one player owning half of them); the GM's session
clicks, from the dashboard (htmx headers, HX-Current-URL the dashboard), the card actions in
turn: Damage 1, Heal 1, Spend Flux 1, Restore Flux 1 and a Test (typed-in die, R9), each on the
next character, through Django's test client (middleware, session, CSRF off as the client
does). Each answer must hold the acted card out of band and the result. Per kind of action:
median wall ms, median CPU ms (this thread's), the queries of one request (BEGIN and COMMIT,
the session and the user counted) and the answer's median size. Then a second
pass with probes (bench/lib/probe_server.py's, wrapped around the ORM's SQL, the templates,
the engine and the audit log) splits the CPU of the POST by area. The last line is the
headline.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
REQUESTS = int(os.environ.get("BENCH_REQUESTS", "200"))  # per kind of action
CHARACTERS = 30
KINDS = ("damage", "heal", "spend_flux", "restore_flux", "check")


def setup(app: Path) -> None:
    sys.path.insert(0, str(app))
    os.chdir(app)  # locale/, templates as the app finds them
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.db import connection

    if connection.vendor != "sqlite":  # SQLite: in memory
        # A test database of its own (not the one a test run beside it may be using).
        name = connection.settings_dict["NAME"]
        connection.settings_dict["TEST"]["NAME"] = f"test_{name}_bench_post"


def make_campaign():
    from django.contrib.auth import get_user_model

    from campaign.models import Membership, Role
    from campaign.services import campaign_create

    users = get_user_model().objects
    gm = users.create_user("bench_gm")
    player = users.create_user("bench_player")
    campaign = campaign_create(user=gm, name="Bench post")
    Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
    ids = _bench_module("seed").characters(campaign, gm, CHARACTERS)
    from characters.models import Character

    Character.objects.filter(pk__in=ids[::2]).update(owner=player)
    return gm, campaign, ids


def body(kind: str, stat: str) -> dict:
    if kind == "check":
        return {"visibility": "everyone", "stat": stat, "difficulty": "10", "dice": "7"}
    return {"visibility": "everyone", "amount": "1"}


def one(client, campaign, character: int, kind: str, stat: str, headers: dict):
    url = f"/c/{campaign.pk}/characters/{character}/act/{kind}/"
    response = client.post(url, body(kind, stat), **headers)
    assert response.status_code == 200, (url, response.status_code, response.content[:300])
    content = response.content
    assert f'id="character-{character}"'.encode() in content, content[:300]
    assert b'data-testid="explanation"' in content, content[:300]
    return response


def plan(ids: list[int], count: int):
    """(character, kind) in turn: the same character is damaged before it is healed, spends
    Flux before it restores it, so its PV and Flux stay in range."""
    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        yield ids[(i // len(KINDS)) % len(ids)], kind


def measure(client, campaign, ids, stat, headers):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for character, kind in plan(ids, 5 * len(KINDS)):  # warm-up: templates, translations
        one(client, campaign, character, kind, stat, headers)
    wall = {k: [] for k in KINDS}
    cpu = {k: [] for k in KINDS}
    size = {k: [] for k in KINDS}
    for character, kind in plan(ids, REQUESTS * len(KINDS)):
        start, start_cpu = time.perf_counter(), time.thread_time()
        response = one(client, campaign, character, kind, stat, headers)
        cpu[kind].append(time.thread_time() - start_cpu)
        wall[kind].append(time.perf_counter() - start)
        size[kind].append(len(response.content))
    queries = {}
    for character, kind in plan(ids, len(KINDS)):
        with CaptureQueriesContext(connection) as captured:
            one(client, campaign, character, kind, stat, headers)
        queries[kind] = len(captured)
    return wall, cpu, queries, size


def _bench_module(name: str):
    """bench/lib/`name`.py of this checkout, whatever checkout `--app` serves (an older one
    may not have it)."""
    spec = importlib.util.spec_from_file_location(name, HERE / "bench" / "lib" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    saved = list(sys.path)
    spec.loader.exec_module(module)  # probe_server sets sys.path[0] to the served checkout
    sys.path[:] = saved
    return module


def split(client, campaign, ids, stat, headers) -> tuple[dict[str, float], int]:
    """The probes' CPU per area of the POST, per action (ms), over a pass of every kind."""
    probes = _bench_module("probe_server")
    probes.install()
    for character, kind in plan(ids, 5 * len(KINDS)):
        one(client, campaign, character, kind, stat, headers)
    before = dict(probes.totals)
    count = REQUESTS * len(KINDS)
    for character, kind in plan(ids, count):
        one(client, campaign, character, kind, stat, headers)
    areas: dict[str, float] = {}
    for key, seconds in probes.totals.items():
        area, what = key.split("|")
        if area != "post":
            continue
        areas[what] = areas.get(what, 0.0) + (seconds - before.get(key, 0.0)) * 1000 / count
    return areas, count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--app", type=Path, default=HERE, help="the checkout to measure")
    args = parser.parse_args()
    setup(args.app.resolve())
    from django.conf import settings
    from django.db import connection
    from django.test import Client

    old_name = connection.creation.create_test_db(verbosity=0)
    try:
        settings.DEBUG = False
        gm, campaign, ids = make_campaign()
        stat = next(iter(campaign.stats))
        client = Client()
        client.force_login(gm)
        dashboard = f"/c/{campaign.pk}/"
        assert client.get(dashboard).status_code == 200
        headers = {
            "HTTP_HX_REQUEST": "true",
            "HTTP_HX_CURRENT_URL": f"http://testserver{dashboard}",
        }
        print(
            f"app: {args.app.resolve()}; database: {connection.vendor}; {CHARACTERS} characters; "
            f"{REQUESTS} requests per kind of action, one at a time"
        )
        wall, cpu, queries, size = measure(client, campaign, ids, stat, headers)
        for kind in KINDS:
            print(
                f"  {kind:<13} median {statistics.median(wall[kind]) * 1000:6.2f} ms, "
                f"CPU {statistics.median(cpu[kind]) * 1000:6.2f} ms, {queries[kind]:3} queries, "
                f"answer {int(statistics.median(size[kind]))} bytes"
            )
        areas, count = split(client, campaign, ids, stat, headers)
        total = sum(areas.values())
        parts = ", ".join(f"{k} {v:.2f}" for k, v in sorted(areas.items(), key=lambda x: -x[1]))
        print(f"CPU of the POST by area (probes on, {count} actions): {total:.2f} ms = {parts}")
        all_wall = [t for k in KINDS for t in wall[k]]
        all_cpu = [t for k in KINDS for t in cpu[k]]
        mean_queries = sum(queries.values()) / len(KINDS)
        print(
            f"headline: a GM quick action's POST: median "
            f"{statistics.median(all_wall) * 1000:.2f} ms,"
            f" CPU {statistics.median(all_cpu) * 1000:.2f} ms, {mean_queries:.1f} queries "
            f"(damage {queries['damage']}, heal {queries['heal']}, check {queries['check']})"
        )
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
