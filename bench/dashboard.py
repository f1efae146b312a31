"""GM dashboard server time at 3, 30 and 300 characters, against a floor measured in the same run.

Run: `.venv/bin/python bench/dashboard.py`. It builds a throwaway test database the way the
test runner does (SQLite in memory by default; PostgreSQL `test_<name>` when DATABASE_URL
points there) and drops it at the end.

The floor is a bare view behind the same middleware that loads the session and the user and
returns as many bytes as the dashboard did. Each figure is the median / p95 of REQUESTS
requests through Django's test client in this one process. Cards are cached per character
version (play/cards.py), so the dashboard is measured warm (cards
unchanged since the last view, the usual reload) and cold (cache emptied before every
request, as if every character had just changed). The compact view (a row per character,
Membership.dashboard_view) is measured the same way, against a floor of its own size, and its
query count too must not grow with the number of characters. The last line is the headline:
the warm compact dashboard's median over the floor's median at 30 characters (target: within
5x, and cold within 10x, for a GM who reloads mid-fight); the line before it, the same for the
cards; before them, one card's and one compact row's HTML at 30 characters.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

REQUESTS = int(os.environ.get("BENCH_REQUESTS", "300"))
SIZES = (3, 30, 300)

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.db import connection  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.test import Client, override_settings  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.urls import include, path  # noqa: E402

from campaign.models import Campaign, Membership  # noqa: E402
from campaign.services import campaign_create, dashboard_view_set  # noqa: E402
from characters.models import Character, Condition, Illness, Sequel  # noqa: E402
from journal.models import AuditEntry  # noqa: E402


def floor_view(request, size):
    # What any logged-in page costs: session and user loaded, `size` bytes returned.
    assert request.user.is_authenticated
    return HttpResponse(b"x" * size)


urlpatterns = [path("bench-floor/<int:size>/", floor_view), path("", include("config.urls"))]


def make_campaign(gm, size: int) -> Campaign:
    campaign = campaign_create(user=gm, name=f"Bench {size}")
    stats = dict.fromkeys(campaign.stats, 2)
    characters = Character.objects.bulk_create(
        Character(
            campaign=campaign,
            name=f"Personnage {i:03}",
            stats=stats,
            pv=10,
            pv_max=14,
            flux=5,
            flux_max=10,
            pa=2,
        )
        for i in range(size)
    )
    Condition.objects.bulk_create(
        Condition(character=c, kind=kind, cause="gm")
        for c in characters
        for kind in ("ebranle", "gene")
    )
    Sequel.objects.bulk_create(
        Sequel(character=c, stat="VAI", cause="Une toux sanglante", d6=5) for c in characters
    )
    Illness.objects.bulk_create(
        Illness(character=c, name="Fièvre des marais", severity=2, days_left=3) for c in characters
    )
    return campaign


def measure(client: Client, url: str, *, cold: bool = False) -> tuple[float, float, int, int]:
    for _ in range(5):  # warm-up: template loading, translations, connection
        client.get(url)
    timings = []
    for _ in range(REQUESTS):
        if cold:
            cache.clear()
        start = time.perf_counter()
        response = client.get(url)
        timings.append(time.perf_counter() - start)
        assert response.status_code == 200, (url, response.status_code)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    timings.sort()
    p95 = timings[int(0.95 * (len(timings) - 1))]
    return statistics.median(timings), p95, len(queries), len(response.content)


def article_bytes(client: Client, url: str, kind: str) -> float:
    """The average size of the page's character articles (`kind`: "card" or "row"), in bytes:
    what one card or compact row weighs, the CSRF input included."""
    page = client.get(url).content.decode()
    articles = re.findall(rf'<article class="{kind}[ "].*?</article>', page, re.S)
    return sum(len(a.encode()) for a in articles) / max(len(articles), 1)


def main() -> None:
    old_name = connection.creation.create_test_db(verbosity=0)
    try:
        run()
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def run() -> None:
    settings.DEBUG = False  # no query log kept per request, as in production
    gm, _ = get_user_model().objects.get_or_create(username="bench_gm")
    client = Client()
    client.force_login(gm)
    print(f"database: {connection.vendor}; {REQUESTS} requests per figure (median, p95)")
    ratios = {}
    queries_by_size = {}
    compact_ratios = {}
    compact_queries = {}
    card_bytes: dict[int, float] = {}
    row_bytes_each: dict[int, float] = {}
    with override_settings(ROOT_URLCONF=__name__):
        for size in SIZES:
            campaign = make_campaign(gm, size)
            url = f"/c/{campaign.pk}/"
            median, p95, queries, size_bytes = measure(client, url)
            c_median, c_p95, c_queries, _ = measure(client, url, cold=True)
            f_median, f_p95, f_queries, _ = measure(client, f"/bench-floor/{size_bytes}/")
            ratios[size] = median / f_median
            queries_by_size[size] = queries
            card_bytes[size] = article_bytes(client, url, "card")
            print(
                f"{size:>4} characters, {size_bytes} bytes | floor {f_median * 1000:6.2f} ms "
                f"(p95 {f_p95 * 1000:6.2f}), {f_queries} queries\n"
                f"     warm dashboard {median * 1000:7.2f} ms (p95 {p95 * 1000:7.2f}), "
                f"{queries} queries, ratio {ratios[size]:5.1f}\n"
                f"     cold dashboard {c_median * 1000:7.2f} ms (p95 {c_p95 * 1000:7.2f}), "
                f"{c_queries} queries, ratio {c_median / f_median:5.1f}"
            )
            # The same dashboard as compact rows, the GM's choice for this campaign.
            membership = Membership.objects.get(campaign=campaign, user=gm)
            dashboard_view_set(membership_id=membership.pk, view="compact")
            median, p95, queries, row_bytes = measure(client, url)
            assert b'data-testid="row"' in client.get(url).content
            c_median, c_p95, c_queries, _ = measure(client, url, cold=True)
            f_median, f_p95, _, _ = measure(client, f"/bench-floor/{row_bytes}/")
            compact_ratios[size] = median / f_median
            compact_queries[size] = queries
            row_bytes_each[size] = article_bytes(client, url, "row")
            print(
                f"     compact, {row_bytes} bytes | floor {f_median * 1000:6.2f} ms "
                f"(p95 {f_p95 * 1000:6.2f})\n"
                f"     warm compact   {median * 1000:7.2f} ms (p95 {p95 * 1000:7.2f}), "
                f"{queries} queries, ratio {compact_ratios[size]:5.1f}\n"
                f"     cold compact   {c_median * 1000:7.2f} ms (p95 {c_p95 * 1000:7.2f}), "
                f"{c_queries} queries, ratio {c_median / f_median:5.1f}"
            )
    sizes = ", ".join(map(str, SIZES))
    same = len(set(queries_by_size.values())) == 1
    print(f"same query count at {sizes}: {'yes' if same else 'NO'}")
    same = len(set(compact_queries.values())) == 1
    print(f"same query count at {sizes}, compact: {'yes' if same else 'NO'}")
    print(f"audit entries: {AuditEntry.objects.count()}")
    print(
        f"one card's HTML at 30 characters: {card_bytes[30]:.0f} bytes; "
        f"one compact row's: {row_bytes_each[30]:.0f} bytes"
    )
    print(f"warm dashboard/floor median ratio at 30 characters: {ratios[30]:.1f}")
    print(
        f"warm compact dashboard/floor median ratio at 30 characters: {compact_ratios[30]:.1f} "
        "(target: within 5)"
    )


if __name__ == "__main__":
    main()
