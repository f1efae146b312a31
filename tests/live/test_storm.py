"""A storm of streams on PostgreSQL with the default settings: 300 opened at once,
as after a server restart, against a real uvicorn process; none fails, PostgreSQL's connections
stay bounded by the pool (config/settings.py: DATABASE_POOL on by default), and the GM's
actions made during the storm still answer; afterwards every stream hears the next change.

The process serves this test's own database (committed data: transaction=True) with nothing
set but DATABASE_URL, so it runs as `make run` would against PostgreSQL. Its figures are
printed (`pytest -s`): time to open the 300 streams, the GM's answers, connections used.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.db import connection

from bench.lib.server import stop
from campaign.models import Membership, Role

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="the storm exhausted PostgreSQL's connections; SQLite has none to exhaust",
    ),
]

ROOT = Path(__file__).resolve().parents[2]
STREAMS = 300
PER_PLAYER = 6  # under the per-account cap (LIVE_STREAMS_PER_ACCOUNT, 8)
PLAYERS = STREAMS // PER_PLAYER
GM_ACTIONS = 5
OPEN_WITHIN = 30.0  # seconds for every stream to be live
ANSWER_WITHIN = 15.0  # seconds for a GM's action to answer during the storm
HEAR_WITHIN = 15.0  # seconds for every stream to hear the change after the storm
APP_NAME = "chroniqueur-storm"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database_url() -> str:
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    host = f"{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
    # Named, so that its connections can be counted apart from this test's own.
    return f"postgres://{auth}@{host}/{db['NAME']}?application_name={APP_NAME}"


def session_cookie(user) -> str:
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}"


@contextlib.contextmanager
def uvicorn_serving():
    """One app process, as `make run` starts it, on this test's database."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 4096), hard), hard))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "DJANGO_"))}
    env.update(DATABASE_URL=database_url(), LOG_LEVEL="WARNING")
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
         "--port", str(port), "--lifespan", "off", "--no-access-log", "--log-level", "warning",
         "--timeout-graceful-shutdown", "1"],
        env=env, cwd=ROOT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                    break
            except OSError:
                assert proc.poll() is None, "uvicorn exited"
                assert time.monotonic() < deadline, "uvicorn did not answer"
                time.sleep(0.2)
        yield port
    finally:
        stop([proc])


def request(method, path, port, cookie, extra="", body=b"") -> bytes:
    return (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie}\r\n{extra}"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body


class Stream:
    """One EventSource, as a browser opens it: its status, then its bytes as they come."""

    def __init__(self, port, path, cookie):
        self.port, self.path, self.cookie = port, path, cookie
        self.status = None
        self.received = b""
        self.writer = None

    async def open(self) -> float:
        started = time.perf_counter()
        reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.reader = reader
        self.writer.write(
            request("GET", self.path, self.port, self.cookie, "Accept: text/event-stream\r\n")
        )
        head = await reader.readuntil(b"\r\n\r\n")
        self.status = int(head.split(b" ", 2)[1])
        if self.status == 200:
            await self.wait_for(b": live")
        return time.perf_counter() - started

    async def wait_for(self, marker: bytes) -> None:
        while marker not in self.received:
            chunk = await self.reader.read(65536)
            if not chunk:
                raise ConnectionError(f"stream closed before {marker!r}: {self.received[-200:]!r}")
            self.received += chunk

    def close(self):
        if self.writer is not None:
            self.writer.close()


async def post(port, path, cookie, csrf, body: bytes) -> tuple[int, float]:
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        request(
            "POST", path, port, f"{cookie}; {settings.CSRF_COOKIE_NAME}={csrf}",
            f"X-CSRFToken: {csrf}\r\nHX-Request: true\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n",
            body,
        )
    )  # fmt: skip
    head = await reader.readuntil(b"\r\n\r\n")
    await reader.read()  # Connection: close: the whole answer
    writer.close()
    return int(head.split(b" ", 2)[1]), time.perf_counter() - started


def test_300_streams_opened_at_once_all_open_and_the_gm_still_acts(world):
    assert "pool" in connection.settings_dict["OPTIONS"]  # on by default on PostgreSQL
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"joueur_{i:03}", password="!") for i in range(PLAYERS)
    )
    Membership.objects.bulk_create(
        Membership(campaign=world.campaign, user=u, role=Role.PLAYER) for u in users
    )
    cookies = [session_cookie(u) for u in users]
    gm_cookie = session_cookie(world.gm)
    csrf = "k" * 32  # an unmasked CSRF secret, as the cookie holds it
    campaign_id, pc = world.campaign.pk, world.pc.pk
    events = f"/c/{campaign_id}/events/"

    async def storm(port):
        streams = [Stream(port, events, cookies[i % PLAYERS]) for i in range(STREAMS)]
        peak = 0

        async def watch_connections():
            nonlocal peak
            conninfo = database_url().split("?")[0].replace("postgres://", "postgresql://")
            async with await psycopg.AsyncConnection.connect(conninfo, autocommit=True) as admin:
                while True:
                    query = "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s"
                    row = await (await admin.execute(query, [APP_NAME])).fetchone()
                    peak = max(peak, row[0])
                    await asyncio.sleep(0.1)

        async def gm_acts():
            answers = []
            for i in range(GM_ACTIONS):
                action = "spend_flux" if i % 2 == 0 else "restore_flux"
                path = f"/c/{campaign_id}/characters/{pc}/act/{action}/"
                body = b"amount=1&visibility=everyone"
                answers.append(await post(port, path, gm_cookie, csrf, body))
            return answers

        watcher = asyncio.ensure_future(watch_connections())
        started = time.perf_counter()
        opened = asyncio.gather(
            *(asyncio.wait_for(s.open(), OPEN_WITHIN) for s in streams), return_exceptions=True
        )
        await asyncio.sleep(0.05)  # the GM acts while the streams are opening
        answers = await asyncio.wait_for(gm_acts(), ANSWER_WITHIN * GM_ACTIONS)
        times = await opened
        storm_seconds = time.perf_counter() - started
        errors = [
            (s.status, t) for s, t in zip(streams, times, strict=True) if not isinstance(t, float)
        ] + [(s.status, None) for s in streams if s.status != 200]

        # After the storm: one change of the campaign (the clock) reaches every stream.
        status, _ = await post(
            port,
            f"/c/{campaign_id}/party/clock/",
            gm_cookie,
            csrf,
            b"minutes=10&visibility=everyone",
        )
        heard = await asyncio.gather(
            *(asyncio.wait_for(s.wait_for(b'"campaign":true'), HEAR_WITHIN) for s in streams),
            return_exceptions=True,
        )
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        for s in streams:
            s.close()
        return errors, times, answers, storm_seconds, status, heard, peak

    with uvicorn_serving() as port:
        errors, times, answers, seconds, clock, heard, peak = asyncio.run(storm(port))

    opened = sorted(t for t in times if isinstance(t, float))
    print(
        f"\n{STREAMS} streams opened at once: {len(opened)} live in {seconds:.1f} s "
        f"(p50 {opened[len(opened) // 2]:.2f} s, max {opened[-1]:.2f} s), {len(errors)} errors; "
        f"GM actions during the storm: {[f'{s} in {t:.2f} s' for s, t in answers]}; "
        f"peak PostgreSQL connections of the app and its pool: {peak}"
    )
    assert errors == []
    assert [status for status, _ in answers] == [200] * GM_ACTIONS
    assert all(t < ANSWER_WITHIN for _, t in answers)
    assert clock == 200
    assert [h for h in heard if h is not None] == []  # every stream heard the clock
    pool = connection.settings_dict["OPTIONS"]["pool"]
    assert peak <= pool["max_size"] + 1  # the pool, and the one LISTEN connection
