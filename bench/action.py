"""The GM's action round trip under uvicorn, at 30 characters, against a floor in the same run.

Run: `.venv/bin/python bench/action.py` (SQLite in a throwaway file), or with
`DATABASE_URL=postgres://…` (a throwaway database `<name>_bench_action`, dropped at the end).

One uvicorn process serves the app with production settings (DEBUG off). A campaign of 30
characters is made through the services; the GM's session clicks, one request at a time as a
person does, the quick Damage and Heal buttons of the cards in turn (an htmx POST with its CSRF
token). The round trip is from sending the POST to having the whole answer, which must hold the
acted card's new HTML (`id="character-<id>"`, out of band) and its result. The floor is a bare
POST behind the same middleware (session, user, CSRF) answering as many bytes, served by the
same process (bench/floor/ adds its route). Median and p95 of REQUESTS each; the
headline is the action's median over the floor's.

Then several targets at once: the group bar's Damage and Heal on four characters at a time
(one POST with the four ticked, play/services/group.py), whose answer must hold the four
cards; its median is printed beside the one target's, measured in the same run (the target:
within 2x).
"""

from __future__ import annotations

import http.client
import os
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.lib.http import free_port, pct, wait_healthy  # noqa: E402 (once ROOT is on the path)

CHARACTERS = 30
REQUESTS = int(os.environ.get("BENCH_REQUESTS", "300"))


def prepare():
    """The campaign (through the services) and the GM's session and CSRF cookies."""
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore

    from bench.lib import seed
    from campaign.services import campaign_create

    gm = get_user_model().objects.create_user("bench_gm")
    campaign = campaign_create(user=gm, name="Bench action")
    ids = seed.characters(campaign, gm, CHARACTERS)
    session = SessionStore()
    session[SESSION_KEY] = str(gm.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = gm.get_session_auth_hash()
    session.create()
    csrf = secrets.token_hex(16)  # 32 characters: an unmasked CSRF secret
    cookie = (
        f"{settings.SESSION_COOKIE_NAME}={session.session_key}; {settings.CSRF_COOKIE_NAME}={csrf}"
    )
    return campaign.pk, ids, cookie, csrf


def post(conn, path: str, cookie: str, csrf: str, body: str, page: str = ""):
    """One POST as htmx sends it from `page`: (seconds to the whole answer, status, body)."""
    headers = {
        "Cookie": cookie,
        "X-CSRFToken": csrf,
        "HX-Request": "true",
        "HX-Current-URL": page,
        "Content-Type": "application/x-www-form-urlencoded",
    }
    start = time.perf_counter()
    conn.request("POST", path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    return time.perf_counter() - start, response.status, data


def run(port: int, campaign_id: int, ids: list[int], cookie: str, csrf: str) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port)
    dashboard = f"http://127.0.0.1:{port}/c/{campaign_id}/"  # the page the GM clicks on
    actions, sizes = [], []
    for i in range(REQUESTS + 10):  # the first 10 warm up templates, caches and connections
        character = ids[i % len(ids)]
        name = "damage" if (i // len(ids)) % 2 == 0 else "heal"  # PV stays between 13 and 14
        path = f"/c/{campaign_id}/characters/{character}/act/{name}/"
        body = "amount=1&visibility=everyone"
        took, status, data = post(conn, path, cookie, csrf, body, dashboard)
        assert status == 200, (path, status, data[:300])
        card = re.search(rb'<article[^>]*id="character-%d"[^>]*hx-swap-oob' % character, data)
        assert card and b'data-testid="explanation"' in data, data[:300]
        if i >= 10:
            actions.append(took)
            sizes.append(len(data))
    size = int(statistics.median(sizes))
    floor = []
    for i in range(REQUESTS + 10):
        took, status, data = post(conn, f"/bench-floor/{size}/", cookie, csrf, "amount=1")
        assert status == 200 and len(data) == size, (status, len(data))
        if i >= 10:
            floor.append(took)
    a_median, f_median = statistics.median(actions), statistics.median(floor)
    print(f"{REQUESTS} requests each, one at a time; answer of {size} bytes")
    print(f"floor (bare POST, same middleware, same bytes): median {f_median * 1000:6.2f} ms, "
          f"p95 {pct(floor, 95) * 1000:6.2f} ms")  # fmt: skip
    print(f"GM action round trip (POST to the acted card's HTML): median "
          f"{a_median * 1000:6.2f} ms, p95 {pct(actions, 95) * 1000:6.2f} ms")  # fmt: skip
    print(f"action round trip median at {CHARACTERS} characters: {a_median * 1000:.2f} ms, "
          f"{a_median / f_median:.1f}x the floor")  # fmt: skip
    groups = four_targets(conn, dashboard, campaign_id, ids, cookie, csrf)
    g_median = statistics.median(groups)
    print(f"four targets at once (group bar): median {g_median * 1000:6.2f} ms, "
          f"p95 {pct(groups, 95) * 1000:6.2f} ms")  # fmt: skip
    print(f"four targets vs one target, same run: {g_median * 1000:.2f} ms vs "
          f"{a_median * 1000:.2f} ms, {g_median / a_median:.2f}x (target: within 2x)")  # fmt: skip


def four_targets(conn, dashboard, campaign_id, ids, cookie, csrf) -> list[float]:
    """The group bar's Damage then Heal on four characters at a time, in turn (7 groups of
    the first 28): every character is damaged, then healed back, so PV stays in range."""
    groups = [ids[start : start + 4] for start in range(0, 28, 4)]
    took_all = []
    for i in range(REQUESTS + 10):
        chosen = groups[i % len(groups)]
        name = "damage" if (i // len(groups)) % 2 == 0 else "heal"
        path = f"/c/{campaign_id}/group/{name}/"
        body = "amount=1&visibility=everyone&" + "&".join(f"selected={pk}" for pk in chosen)
        took, status, data = post(conn, path, cookie, csrf, body, dashboard)
        assert status == 200, (path, status, data[:300])
        for character in chosen:
            card = re.search(rb'<article[^>]*id="character-%d"[^>]*hx-swap-oob' % character, data)
            assert card, (character, data[:300])
        assert data.count(b'data-testid="group-outcome"') == 4, data[:300]
        if i >= 10:
            took_all.append(took)
    return took_all


def main() -> int:
    url = os.environ.get("DATABASE_URL", "")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bench.floor.settings",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "SECURE_SSL_REDIRECT": "false",
        "LOG_LEVEL": "WARNING",
    }
    drop = None
    workdir = tempfile.TemporaryDirectory()
    if url.startswith(("postgres://", "postgresql://")):
        import psycopg

        name = url.rsplit("/", 1)[1] + "_bench_action"
        admin = url.rsplit("/", 1)[0] + "/postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        env["DATABASE_URL"] = url.rsplit("/", 1)[0] + f"/{name}"
        env["DATABASE_POOL"] = "true"  # as docker-compose.yml runs it

        def drop():
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    else:
        env["DATABASE_URL"] = f"sqlite:///{workdir.name}/bench.sqlite3"
    proc = None
    try:
        manage = [sys.executable, str(ROOT / "manage.py")]
        subprocess.run([*manage, "migrate", "--noinput", "-v0"], env=env, cwd=ROOT, check=True)
        os.environ.update(env)
        import django

        django.setup()
        from django.db import connection

        campaign_id, ids, cookie, csrf = prepare()
        print(f"database: {connection.vendor}; {CHARACTERS} characters; one uvicorn process")
        connection.close()
        port = free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "config.asgi:application",
             "--host", "127.0.0.1", "--port", str(port), "--lifespan", "off",
             "--no-access-log", "--log-level", "warning"],
            env=env, cwd=ROOT,
        )  # fmt: skip
        wait_healthy(port)
        run(port, campaign_id, ids, cookie, csrf)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
        if drop is not None:
            drop()
        workdir.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
