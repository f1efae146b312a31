"""History pages and exports at 1,000 and 1,000,000 audit entries (PostgreSQL).

Run: `DATABASE_URL=postgres://… .venv/bin/python bench/history.py`. It builds a throwaway
test database the way the test runner does (`test_<name>`) and drops it at the end.

Rows are written in bulk (on PostgreSQL one INSERT … SELECT over generate_series;
`bulk_create` on another database, where the big size defaults to 100,000): their hash chain
is NOT valid (`verify_log` would reject them), which reading pages and exports does not look
at. The two campaigns share the table, as they would in production, so the small one is
measured beside a million rows of another.

Each page figure is the median / p95 of REQUESTS requests through Django's test client in
this one process; the small and the big campaign's requests alternate, so that the load of
the machine at any moment weighs on both alike. Pages are fetched as the GM (no visibility
filter) and as a player (the `visible_entries` filter, party_visibility STATE): the first
page, a page in the middle (`?before=<id>`) and the last page (`?after=0`, the oldest). The
export rate is a CSV export of the big campaign's latest ~30 % (a date-range filter) read to
the end, in entries per second.

The campaign archive (journal/archive.py) is measured on a third campaign of ARCHIVE
(100,000) entries whose chain IS valid (signed with this process's audit log key, as `append`
would): `campaign_export`'s writer to a file, then `campaign_import`'s reading, verifying
(before writing and as stored) and writing into a second, empty test database, each in
entries per second. `verify_log` runs over a fourth campaign of VERIFY (1,000,000 on
PostgreSQL) entries whose keyed chain is valid too (written with the app's own hash function
and key, COPY), proven by the command as an operator runs it; its rate must stay above
50,000 entries/s. The last line is the headline: the worst 1,000,000-entry page median over
the same page's 1,000-entry median (target <= 1.5x).
"""

from __future__ import annotations

import copy
import gc
import hmac
import io
import json
import os
import resource
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

REQUESTS = int(os.environ.get("BENCH_REQUESTS", "25"))
ARCHIVE = int(os.environ.get("BENCH_ARCHIVE", "100000"))
# BENCH_ONLY=verify runs the verify_log figure alone, BENCH_ONLY=archive the archive's.
ONLY = os.environ.get("BENCH_ONLY", "")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, connections, router  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from campaign.models import Membership, PartyVisibility, Role  # noqa: E402
from campaign.services import campaign_create  # noqa: E402
from characters.models import Character  # noqa: E402
from journal import archive, audit  # noqa: E402
from journal.audit import HASHED_FIELDS, keyring, payload  # noqa: E402
from journal.models import AuditEntry, PlaySession  # noqa: E402

POSTGRES = connection.vendor == "postgresql"
BIG = int(os.environ.get("BENCH_BIG", "1000000" if POSTGRES else "100000"))
VERIFY = int(os.environ.get("BENCH_VERIFY", "1000000" if POSTGRES else "100000"))
SMALL = 1000
START = datetime(2026, 1, 5, 19, tzinfo=UTC)
GAME = datetime(2000, 1, 1, 8, tzinfo=UTC)

# The audit columns the bench fills: those the hash covers (no undo links here), and the hash.
COLUMNS = (*(name for name in HASHED_FIELDS if name != "reverts_id"), "hash")
ROLL = (
    '{"expression": "1d20", "dice": [%d], "stat": "VAI", "skill": "Survie", "stat_value": 2, '
    '"natural": %d, "die_value": %d, "die_rule": null, "modifiers": [], "total": %d, '
    '"difficulty": 10, "success": %s, "extreme": null}'
)


def row(campaign, characters, actors, i: int) -> tuple:
    character = characters[i % len(characters)]
    actor = actors[i % len(actors)]
    kind = "roll" if i % 3 == 0 else "change"
    die = i % 20 + 1
    roll = ROLL % (die, die, die, die + 2, "true" if die + 2 >= 10 else "false")
    return (
        campaign.pk,
        character.pk,
        character.name,
        actor.pk if actor else None,
        actor.username if actor else "",
        START + timedelta(seconds=20 * i),
        GAME + timedelta(minutes=i),
        "bench",
        uuid.uuid4(),
        kind,
        "R10" if kind == "roll" else "R1",
        "" if kind == "roll" else "pv",
        None if kind == "roll" else str(i % 14),
        None if kind == "roll" else str((i + 1) % 14),
        roll if kind == "roll" else None,
        i % 5 == 0,
        f"R10 · Survie (VAI) : {die} (d20) + 2 (VAI) = {die + 2}",
        f"R10 · Survie (VAI): {die} (d20) + 2 (VAI) = {die + 2}",
        "gm" if i % 10 == 0 else "everyone",
        [],
        i + 1,
        "bench",
        "",
        f"bench-{campaign.pk}-{i}",
    )


class indexes_after:
    """Drop the table's indexes and unique constraints, load, then build them once: much
    faster than updating them row by row."""

    def __init__(self, cursor, table):
        self.cursor, self.table = cursor, table

    def __enter__(self):
        self.cursor.execute(
            "SELECT i.indexname, i.indexdef, c.conname FROM pg_indexes i "
            "LEFT JOIN pg_constraint c ON c.conname = i.indexname "
            "WHERE i.tablename = %s AND i.indexname NOT LIKE %s",
            [self.table, "%pkey"],
        )
        self.indexes = self.cursor.fetchall()
        for name, _definition, constraint in self.indexes:
            if constraint:
                self.cursor.execute(f'ALTER TABLE {self.table} DROP CONSTRAINT "{constraint}"')
            else:
                self.cursor.execute(f'DROP INDEX "{name}"')

    def __exit__(self, *exc):
        if exc[0] is not None:
            return
        for name, definition, constraint in self.indexes:
            self.cursor.execute(definition)
            if constraint:
                self.cursor.execute(
                    f'ALTER TABLE {self.table} ADD CONSTRAINT "{constraint}" '
                    f'UNIQUE USING INDEX "{name}"'
                )
        self.cursor.execute(f"ANALYZE {self.table}")


def fill(campaign, characters, actors, n: int) -> None:
    if POSTGRES:
        # Generated inside PostgreSQL: the same rows as `row()`, without a Python round trip.
        table = AuditEntry._meta.db_table
        with connection.cursor() as cursor, indexes_after(cursor, table):
            cursor.execute(
                f"""
                INSERT INTO {table} ({", ".join(COLUMNS)})
                SELECT %(campaign)s, (%(characters)s::bigint[])[i %% 3 + 1],
                    (%(names)s::text[])[i %% 3 + 1], (%(actors)s::int[])[i %% 3 + 1],
                    (%(actor_names)s::text[])[i %% 3 + 1],
                    %(start)s::timestamptz + i * interval '20 seconds',
                    %(game)s::timestamptz + i * interval '1 minute',
                    'bench', gen_random_uuid(),
                    CASE WHEN i %% 3 = 0 THEN 'roll' ELSE 'change' END,
                    CASE WHEN i %% 3 = 0 THEN 'R10' ELSE 'R1' END,
                    CASE WHEN i %% 3 = 0 THEN '' ELSE 'pv' END,
                    CASE WHEN i %% 3 = 0 THEN NULL ELSE to_jsonb(i %% 14) END,
                    CASE WHEN i %% 3 = 0 THEN NULL ELSE to_jsonb((i + 1) %% 14) END,
                    CASE WHEN i %% 3 = 0 THEN format(%(roll)s, i %% 20 + 1, i %% 20 + 1,
                        i %% 20 + 1, i %% 20 + 3, (i %% 20 + 3 >= 10)::text)::jsonb END,
                    i %% 5 = 0,
                    format('R10 · Survie (VAI) : %%s (d20) + 2 (VAI) = %%s', i %% 20 + 1,
                        i %% 20 + 3),
                    format('R10 · Survie (VAI): %%s (d20) + 2 (VAI) = %%s', i %% 20 + 1,
                        i %% 20 + 3),
                    CASE WHEN i %% 10 = 0 THEN 'gm' ELSE 'everyone' END,
                    '[]'::jsonb, i + 1, 'bench', '', 'bench-' || %(campaign)s || '-' || i
                FROM generate_series(0, %(n)s - 1) AS i
                """,
                {
                    "campaign": campaign.pk,
                    "characters": [c.pk for c in characters],
                    "names": [c.name for c in characters],
                    "actors": [a.pk if a else None for a in actors],
                    "actor_names": [a.username if a else "" for a in actors],
                    "start": START,
                    "game": GAME,
                    "roll": ROLL.replace("%d", "%s"),
                    "n": n,
                },
            )
    else:
        batch = []
        for i in range(n):
            values = dict(zip(COLUMNS, row(campaign, characters, actors, i), strict=True))
            batch.append(AuditEntry(**values))
            if len(batch) == 5000:
                AuditEntry.objects.bulk_create(batch)
                batch = []
        AuditEntry.objects.bulk_create(batch)
    # A play session per evening of four hours of play.
    per_session = 4 * 3600 // 20
    PlaySession.objects.bulk_create(
        PlaySession(campaign=campaign, started_at=START + timedelta(seconds=20 * i))
        for i in range(0, n, per_session)
    )


def signed_rows(campaign, characters, actors, n: int):
    """`n` entries like `row()`'s, with a step each, chained and signed with the app's key and
    hash function: a log `verify_log` accepts. Yields (columns' values, JSON columns)."""
    ring = keyring()
    key_id, key = ring.current, ring.key(ring.current)
    previous = ""
    for i in range(n):
        character, actor = characters[i % len(characters)], actors[i % len(actors)]
        die = i % 20 + 1
        roll = i % 3 == 0
        text = f"R10 · Survie (VAI) : {die} (d20) + 2 (VAI) = {die + 2}"
        content = {
            "campaign_id": campaign.pk,
            "character_id": character.pk,
            "character_name": character.name,
            "actor_id": actor.pk if actor else None,
            "actor_name": actor.username if actor else "",
            "created_at": START + timedelta(seconds=20 * i),
            "game_time": GAME + timedelta(minutes=i),
            "action": "bench",
            "batch": uuid.uuid4(),
            "kind": "roll" if roll else "change",
            "rule_id": "R10" if roll else "R3",
            "field": "" if roll else "pv",
            "before": None if roll else i % 14,
            "after": None if roll else (i + 1) % 14,
            "roll": json.loads(ROLL % (die, die, die, die + 2, str(die + 2 >= 10).lower()))
            if roll
            else None,
            "typed_in": i % 5 == 0,
            "text_fr": text,
            "text_en": text.replace(" :", ":"),
            "visibility": "gm" if i % 10 == 0 else "everyone",
            "reverts_id": None,
            "steps": [{"rule_id": "R10", "fr": f"{character.name} — {text}", "en": text}],
            "seq": i + 1,
            "key_id": key_id,
            "prev_hash": previous,
        }
        previous = hmac.digest(key, payload(content), "sha256").hex()
        yield content, previous


def signed_fill(campaign, characters, actors, n: int) -> None:
    names = (*HASHED_FIELDS, "hash")
    json_columns = {"before", "after", "roll", "steps"}
    rows = signed_rows(campaign, characters, actors, n)
    if POSTGRES:
        from psycopg.types.json import Jsonb

        table = AuditEntry._meta.db_table
        with connection.cursor() as cursor, indexes_after(cursor, table):
            sql = f"COPY {table} ({', '.join(names)}) FROM STDIN"
            with cursor.cursor.copy(sql) as copy:
                for content, hash_ in rows:
                    copy.write_row(
                        [
                            Jsonb(value) if name in json_columns and value is not None else value
                            for name, value in content.items()
                        ]
                        + [hash_]
                    )
    else:
        batch = []
        for content, hash_ in rows:
            batch.append(AuditEntry(**content, hash=hash_))
            if len(batch) == 5000:
                AuditEntry.objects.bulk_create(batch)
                batch = []
        AuditEntry.objects.bulk_create(batch)


def verify_rate(gm, player) -> None:
    """`manage.py verify_log <campaign>` over VERIFY valid entries, as an operator runs it."""
    campaign = campaign_create(user=gm, name=f"Verify {VERIFY}")
    characters = [
        Character.objects.create(
            campaign=campaign, name=name, pv=10, pv_max=14, flux=5, flux_max=10
        )
        for name in ("Aveline", "Bastien", "Corentin")
    ]
    started = time.perf_counter()
    signed_fill(campaign, characters, [gm, player, None], VERIFY)
    print(f"{VERIFY:>9,} signed entries written in {time.perf_counter() - started:6.1f} s")
    gc.collect()
    out = io.StringIO()
    started, cpu = time.perf_counter(), cpu_seconds()
    call_command("verify_log", str(campaign.pk), stdout=out)
    seconds, cpu = time.perf_counter() - started, cpu_seconds() - cpu
    assert f"{VERIFY} entries, chain intact" in out.getvalue(), out.getvalue()
    # The CPU time of this process and of the one verify_log spawns for a long chain (reading
    # rows, hashing; not the database server's) says what a busy machine does to the
    # wall-clock figure.
    print(
        f"verify_log at {VERIFY:,} entries: {seconds:.1f} s, {VERIFY / seconds:,.0f} entries/s "
        f"(keyed HMAC-SHA256; target > 50,000 entries/s); verifying processes' CPU "
        f"{cpu:.1f} s, {VERIFY / cpu:,.0f} entries per CPU second"
    )


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def make(gm, player, n: int):
    campaign = campaign_create(user=gm, name=f"Bench {n}")
    campaign.party_visibility = PartyVisibility.STATE
    campaign.save()
    Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
    stats = dict.fromkeys(campaign.stats, 2)
    characters = [
        Character.objects.create(
            campaign=campaign,
            name=name,
            owner=owner,
            stats=stats,
            pv=10,
            pv_max=14,
            flux=5,
            flux_max=10,
        )
        for name, owner in (("Aveline", player), ("Bastien", None), ("Corentin", None))
    ]
    started = time.perf_counter()
    fill(campaign, characters, [gm, player, None], n)
    return campaign, time.perf_counter() - started


def measure_pair(client: Client, small: str, big: str):
    """Median / p95 of `small` and of `big`, requests alternating so that the machine's
    load at any moment weighs on both alike."""
    gc.collect()  # the bulk load's garbage is not the page's cost
    for url in (small, big) * 3:
        assert client.get(url).status_code == 200, url
    timings = {small: [], big: []}
    for _ in range(REQUESTS):
        for url in (small, big):
            start = time.perf_counter()
            response = client.get(url)
            timings[url].append(time.perf_counter() - start)
            assert response.status_code == 200, (url, response.status_code)
    figures = []
    for url in (small, big):
        with CaptureQueriesContext(connection) as queries:
            client.get(url)
        values = sorted(timings[url])
        p95 = values[int(0.95 * (len(values) - 1))]
        figures.append((statistics.median(values), p95, len(queries)))
    return figures


def pages(campaign) -> dict[str, str]:
    ids = AuditEntry.objects.filter(campaign=campaign).order_by("id").values_list("id", flat=True)
    count = ids.count()
    middle = ids[count // 2]
    base = f"/c/{campaign.pk}/history/"
    return {"first": base, "middle": f"{base}?before={middle}", "last": f"{base}?after=0"}


def export_rate(client: Client, campaign, n: int) -> tuple[float, int]:
    """A CSV export of about the latest 30 % of the campaign (a date-range filter), read to
    the end: the rate holds for any length, and the run stays short."""
    since = (START + timedelta(seconds=20 * int(n * 0.7))).date() + timedelta(days=1)
    start = time.perf_counter()
    response = client.get(f"/c/{campaign.pk}/history/export.csv?since={since.isoformat()}")
    lines = 0
    for chunk in response.streaming_content:
        lines += chunk.count(b"\n")
    elapsed = time.perf_counter() - start
    return (lines - 1) / elapsed, lines - 1


class _ToFresh:
    """Every query to the second test database (the instance the archive moves to)."""

    def db_for_read(self, model, **hints):
        return "fresh"

    db_for_write = db_for_read

    def allow_relation(self, *args, **hints):
        return True


def archive_rates(gm, player, n: int) -> None:
    """Export a campaign of `n` chained entries to a file, import it into an empty database."""
    campaign = campaign_create(user=gm, name=f"Archive {n}")
    Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
    characters = [
        Character.objects.create(
            campaign=campaign,
            name=name,
            owner=owner,
            stats={},
            pv=10,
            pv_max=14,
            flux=5,
            flux_max=10,
        )
        for name, owner in (("Aveline", player), ("Bastien", None), ("Corentin", None))
    ]
    started = time.perf_counter()
    signed_fill(campaign, characters, [gm, player, None], n)
    print(f"{n:>9,} signed entries written in {time.perf_counter() - started:6.1f} s")
    assert audit.verify_chain(campaign) is None
    path = Path(tempfile.mkdtemp()) / "archive.json"
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    with path.open("w", encoding="utf-8") as out:
        for chunk in archive.archive_chunks(campaign.pk):
            out.write(chunk)
    exported, cpu = time.perf_counter() - start, time.process_time() - cpu
    size = path.stat().st_size / 1e6
    print(
        f"archive export ({n:,} entries, {size:,.0f} MB): {exported:5.1f} s, "
        f"{n / exported:,.0f} entries/s (this process's CPU {cpu:.1f} s)"
    )
    fresh = copy.deepcopy(connections.settings["default"])
    fresh["TEST"]["NAME"] = None if connection.vendor == "sqlite" else f"{fresh['NAME']}_fresh"
    connections.settings["fresh"] = fresh
    target = connections["fresh"]
    old_name = target.creation.create_test_db(verbosity=0)
    routers = router.routers
    try:
        router.routers = [_ToFresh()]
        gc.collect()
        start, cpu = time.perf_counter(), time.process_time()
        with path.open("rb") as stream:
            data = archive.load(stream, limit=None)  # the bench's archive is larger
        loaded = time.perf_counter() - start
        imported = archive.campaign_import(data=data)
        total, cpu = time.perf_counter() - start, time.process_time() - cpu
        assert AuditEntry.objects.filter(campaign=imported).count() == n
        print(
            f"archive import ({n:,} entries, read, verified before and after writing, "
            f"written): {total:5.1f} s, {n / total:,.0f} entries/s (JSON read {loaded:.1f} s; "
            f"this process's CPU {cpu:.1f} s)"
        )
    finally:
        router.routers = routers
        target.creation.destroy_test_db(old_name, verbosity=0)
        path.unlink()
        path.parent.rmdir()


def main() -> None:
    old_name = connection.creation.create_test_db(verbosity=0)
    try:
        run()
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def run() -> None:
    settings.DEBUG = False
    User = get_user_model()
    gm = User.objects.create_user("bench_gm", password="x")
    player = User.objects.create_user("bench_player", password="x")
    clients = {}
    for who, user in (("gm", gm), ("player", player)):
        clients[who] = Client()
        clients[who].force_login(user)
    print(
        f"database: {connection.vendor}; {REQUESTS} requests per figure (median, p95); "
        "hash chain of the bulk rows not valid (bench only)"
    )
    if ONLY == "verify":
        verify_rate(gm, player)
        return
    if ONLY == "archive":
        archive_rates(gm, player, ARCHIVE)
        return
    campaigns = {}
    for n in (SMALL, BIG):
        campaign, seconds = make(gm, player, n)
        campaigns[n] = campaign
        print(f"{n:>9,} entries written in {seconds:6.1f} s")
    small_pages, big_pages = pages(campaigns[SMALL]), pages(campaigns[BIG])
    results: dict[tuple[str, str, int], float] = {}
    for who, client in clients.items():
        for name in ("first", "middle", "last"):
            pair = measure_pair(client, small_pages[name], big_pages[name])
            for n, (median, p95, queries) in zip((SMALL, BIG), pair, strict=True):
                results[(who, name, n)] = median
                print(
                    f"  {who:<6} {name:<6} page at {n:>9,}: {median * 1000:7.2f} ms "
                    f"(p95 {p95 * 1000:7.2f}), {queries} queries"
                )
    rate, exported = export_rate(clients["gm"], campaigns[BIG], BIG)
    print(f"CSV export (GM, date range): {exported:,} entries at {rate:,.0f} entries/s")
    archive_rates(gm, player, ARCHIVE)
    verify_rate(gm, player)
    buffer = io.StringIO()
    worst = (0.0, "")
    for who in clients:
        for name in ("first", "middle", "last"):
            ratio = results[(who, name, BIG)] / results[(who, name, SMALL)]
            buffer.write(f"{who}/{name} {ratio:.2f}x  ")
            worst = max(worst, (ratio, f"{who}/{name}"))
    print(f"{BIG:,} / {SMALL:,} ratios: {buffer.getvalue().strip()}")
    print(
        f"history page at {BIG:,} entries over {SMALL:,}: {worst[0]:.2f}x "
        f"(worst page, {worst[1]}; target <= 1.5x)"
    )


if __name__ == "__main__":
    main()
