"""The pictures and the dice's story at 1,000 and 1,000,000 audit entries (PostgreSQL): the
statistics page, a character's whole-campaign chart and, to compare them with, a history page.
`chart` is Bastien's (every PV change of the bulk rows is his: a third of the log), `chart_rolls`
Aveline's (only rolls: the chart reads her entries and draws nothing).

Run: `DATABASE_URL=postgres://… .venv/bin/python bench/story.py`. Like bench/history.py (whose
campaigns it builds, with the same bulk rows: a third rolls, two thirds PV changes, three
characters, one entry in ten GM-only) it works in a throwaway test database dropped at the end.
BENCH_BIG sets the big campaign's size (1,000,000 on PostgreSQL, 100,000 otherwise);
BENCH_REQUESTS the requests per figure (median and p95, the small and the big campaign's
requests alternating). Pages are fetched as the GM and as a player (party_visibility STATE).

The bulk rows do not go through the audit writer, which keeps the dice's tally
(journal/tally.py) and the characters' chart rows (journal/points.py): `manage.py dice_tally
--rebuild` and `manage.py chart_points --rebuild` derive them from the rows, and the same
commands without `--rebuild` prove them equal to a recomputation; all four are timed. The
whole-campaign chart reads the chart rows, aggregated by the drawing's columns in PostgreSQL
once a character has more than journal.charts.AGGREGATE_ABOVE PV and Flux changes.

`chart_changes` is Bastien's chart again with journal.charts.READ_HOURS off: drawn from his
changes aggregated by column, as before the hours were kept summed up (the figure to compare
`chart` with, measured in the same run).

A quicker run: BENCH_PROVE=0 skips the dice tally's rebuild and proof and the chart rows'
proof (the chart rows are still rebuilt: the pages read them); BENCH_WHO=gm measures the GM
only.

At the big size, each page's median over the history page's median, measured in this one run
(the machine is shared: ratios, not absolute times, are the figure); the last line is the
headline: the worst of the statistics page and the chart over the history page, target 3x.
"""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("BENCH_REQUESTS", "5")

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test import Client

from bench import history
from characters.models import Character
from journal import charts

PROVE = os.environ.get("BENCH_PROVE", "1") != "0"
WHO = os.environ.get("BENCH_WHO", "gm,player").split(",")
PAGES = ("history", "statistics", "chart", "chart_changes", "chart_rolls")


def urls(campaign) -> dict[str, str]:
    # The bulk rows give Aveline every roll and Bastien every PV change (a third of the log
    # each): Bastien's chart is the worst case, every one of his changes read and drawn.
    aveline = Character.objects.get(campaign=campaign, name="Aveline")
    bastien = Character.objects.get(campaign=campaign, name="Bastien")
    return {
        "history": f"/c/{campaign.pk}/history/",
        "statistics": f"/c/{campaign.pk}/statistics/",
        "chart": f"/c/{campaign.pk}/characters/{bastien.pk}/chart/",
        "chart_changes": f"/c/{campaign.pk}/characters/{bastien.pk}/chart/",
        "chart_rolls": f"/c/{campaign.pk}/characters/{aveline.pk}/chart/",
    }


def run() -> None:
    settings.DEBUG = False
    User = get_user_model()
    gm = User.objects.create_user("bench_gm", password="x")
    player = User.objects.create_user("bench_player", password="x")
    clients = {}
    for who, user in (("gm", gm), ("player", player)):
        if who not in WHO:
            continue
        clients[who] = Client()
        clients[who].force_login(user)
    print(f"database: {connection.vendor}; {history.REQUESTS} requests per figure (median, p95)")
    campaigns = {}
    for n in (history.SMALL, history.BIG):
        campaign, seconds = history.make(gm, player, n)
        campaigns[n] = campaign
        print(f"{n:>9,} entries written in {seconds:6.1f} s")
        # The bulk rows bypass the audit writer that keeps the dice's tally: it is derived
        # from them, then proven equal to a recomputation, as `manage.py dice_tally` does.
        if PROVE:
            started = time.perf_counter()
            call_command("dice_tally", campaign.pk, "--rebuild", stdout=io.StringIO())
            rebuilt = time.perf_counter() - started
            started = time.perf_counter()
            call_command("dice_tally", campaign.pk, stdout=io.StringIO())
            print(
                f"          dice tally rebuilt from the log in {rebuilt:6.1f} s, proven equal "
                f"to a recomputation in {time.perf_counter() - started:6.1f} s"
            )
        started = time.perf_counter()
        call_command("chart_points", campaign.pk, "--rebuild", stdout=io.StringIO())
        rebuilt = time.perf_counter() - started
        if not PROVE:
            print(f"          chart rows and hours rebuilt from the log in {rebuilt:6.1f} s")
            continue
        started = time.perf_counter()
        out = io.StringIO()
        call_command("chart_points", campaign.pk, stdout=out)
        print(
            f"          chart rows and hours rebuilt from the log in {rebuilt:6.1f} s, proven "
            f"equal to a recomputation in {time.perf_counter() - started:6.1f} s "
            f"({out.getvalue().strip()})",
            flush=True,
        )
    small, big = urls(campaigns[history.SMALL]), urls(campaigns[history.BIG])
    medians: dict[tuple[str, str, int], float] = {}
    for who, client in clients.items():
        for name in PAGES:
            started = time.perf_counter()
            charts.READ_HOURS = name != "chart_changes"
            pair = history.measure_pair(client, small[name], big[name])
            charts.READ_HOURS = True
            for n, (median, p95, queries) in zip((history.SMALL, history.BIG), pair, strict=True):
                medians[(who, name, n)] = median
                print(
                    f"  {who:<6} {name:<10} at {n:>9,}: {median * 1000:9.2f} ms "
                    f"(p95 {p95 * 1000:9.2f}), {queries} queries"
                )
            print(f"    ({time.perf_counter() - started:.0f} s)", flush=True)
    worst = (0.0, "")
    for who in clients:
        base = medians[(who, "history", history.BIG)]
        for name in PAGES[1:]:
            ratio = medians[(who, name, history.BIG)] / base
            if name != "chart_changes":  # the figure before, not a page served
                worst = max(worst, (ratio, f"{who}/{name}"))
            print(
                f"{who}: {name} at {history.BIG:,} entries over the history page: {ratio:.2f}x "
                "(target <= 3x)"
            )
    print(
        f"statistics page and whole-campaign chart at {history.BIG:,} entries over the "
        f"history page: worst {worst[0]:.2f}x ({worst[1]}; target <= 3x)"
    )


def main() -> None:
    old_name = connection.creation.create_test_db(verbosity=0)
    try:
        run()
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
