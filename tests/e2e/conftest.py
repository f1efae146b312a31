"""Playwright (sync API) driving Debian's Chromium against pytest-django's live server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import dj_database_url
import pytest
from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper
from django.urls import reverse

from bench.lib.server import stop as stop_processes
from tests.e2e.pages import GM_VIEWPORT, HTMX_ERRORS, NO_RELOAD, log_in

# Playwright's sync API runs an event loop in this thread; Django's ORM would refuse to run
# beside it. Only the browser tests need this, and their ORM use is the test's own set-up.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


# One browser per module: Playwright's sync API keeps an event loop running in this thread
# while it is open, and asgiref's `async_to_sync` (the live tests) refuses to run beside it.
# Closed at the end of each module, the loop is gone before a pytest-xdist worker moves on
# to another file, whatever order the files reach it in.
@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        message = f"{CHROMIUM} is missing: install Debian's chromium package"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def console_errors():
    """Errors the pages log (CSP violations among them), filled by `watch(page)`."""
    errors: list[str] = []

    def watch(page):
        page.on(
            "console",
            lambda msg: (
                errors.append(f"{msg.text} ({msg.location.get('url')})")
                if msg.type == "error"
                else None
            ),
        )
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        # The console does not say which resource failed; this does.
        page.on(
            "response",
            lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None,
        )
        return page

    watch.errors = errors
    return watch


@pytest.fixture(autouse=True, scope="session")
def _one_request_at_a_time_on_sqlite():
    """On SQLite the test server's threads share the test's one in-memory connection, and two
    requests at once mix their cursors (a card refetched while another is read came back
    with "get() returned more than one User"): a page that refetches two cards at once is
    enough. There, the test server answers one request at a time (WSGI pages poll, every
    request is short; the server closes each connection). PostgreSQL keeps the threaded
    server: a connection per thread, as the app has under `make run`."""
    from django.core.servers.basehttp import WSGIServer
    from django.db import connection
    from django.test.testcases import LiveServerThread

    if connection.vendor != "sqlite":
        yield
        return

    class OneAtATime(WSGIServer):
        # Not a ThreadingMixIn, so Django's handler closes each connection (no keep-alive
        # holding the one loop). The serving thread already uses the test's connections.
        def __init__(self, *args, connections_override=None, **kwargs):
            super().__init__(*args, **kwargs)

    threaded = LiveServerThread.server_class
    LiveServerThread.server_class = OneAtATime
    yield
    LiveServerThread.server_class = threaded


@pytest.fixture(params=[True, False], ids=["debug-on", "debug-off"])
def debug(request, settings, monkeypatch):
    settings.DEBUG = request.param
    if not request.param:
        # Production as deployed: DEBUG off and the static files' hashed manifest.
        request.getfixturevalue("production_static")
    if request.param and connection.vendor == "sqlite":
        # The test server's threads and this test share one in-memory SQLite connection, and
        # DEBUG's query log is not safe across threads ("not enough arguments for format
        # string" now and then, when a request of the page and a read of the test cross). The rest
        # of DEBUG stays on; the app's own runs have a connection per thread.
        monkeypatch.setattr(BaseDatabaseWrapper, "queries_logged", property(lambda self: False))
    return request.param


ROOT = Path(__file__).resolve().parents[2]


DATABASE_URL = os.environ.get("DATABASE_URL", "")


ON_POSTGRES = DATABASE_URL.startswith(("postgres://", "postgresql://"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _admin(base: dict):
    import psycopg

    return psycopg.connect(
        dbname="postgres",
        user=base["USER"] or None,
        password=base["PASSWORD"] or None,
        host=base["HOST"] or None,
        port=base["PORT"] or None,
        autocommit=True,
    )


def _fresh_database(base: dict, name: str) -> str:
    """A new empty PostgreSQL database `name` beside the tests' one (dropped first if a run
    left it); its URL."""
    with _admin(base) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    return DATABASE_URL.rsplit("/", 1)[0] + f"/{name}"


def _drop_database(base: dict, name: str) -> None:
    with _admin(base) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _wait_healthy(url: str, proc, log: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"uvicorn exited: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer: {log.read_text()[-2000:]}")


@pytest.fixture(scope="module")
def two_processes(tmp_path_factory):
    if not ON_POSTGRES:
        pytest.skip(
            "needs PostgreSQL (DATABASE_URL=postgres://…): two app processes share one "
            "database through LISTEN/NOTIFY; SQLite runs have one process"
        )
    base = dj_database_url.parse(DATABASE_URL)
    # One database per pytest-xdist worker ("gw0", "gw1"…), or the workers would share it.
    name = f"{base['NAME']}_live_e2e{os.environ.get('PYTEST_XDIST_WORKER', '')}"
    url = _fresh_database(base, name)
    env = {**os.environ, "DATABASE_URL": url, "DEBUG": "true", "LOG_LEVEL": "WARNING"}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--noinput", "-v0"], env=env, cwd=ROOT, check=True)
    subprocess.run([*manage, "seed_demo"], env=env, cwd=ROOT, check=True, capture_output=True)
    logs = tmp_path_factory.mktemp("uvicorn")
    ports = [_free_port(), _free_port()]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    procs: list = [None, None]

    def start(i: int) -> None:
        log = logs / f"uvicorn-{i}.log"
        procs[i] = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
             "--port", str(ports[i]), "--lifespan", "off", "--timeout-graceful-shutdown", "1"],
            env=env, cwd=ROOT, stdout=log.open("a"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        _wait_healthy(urls[i], procs[i], log)

    def stop(i: int) -> None:
        stop_processes([procs[i]])

    try:
        start(0)
        start(1)
        import psycopg

        with psycopg.connect(url.replace("postgres://", "postgresql://", 1)) as conn:
            campaign_id, character_id = conn.execute(
                "SELECT c.campaign_id, c.id FROM characters_character c "
                "JOIN auth_user u ON u.id = c.owner_id WHERE u.username = 'alice'"
            ).fetchone()
        yield SimpleNamespace(
            urls=urls,
            db=url,
            campaign_id=campaign_id,
            character_id=character_id,
            start=start,
            stop=stop,
        )
    finally:
        for i, proc in enumerate(procs):
            if proc is not None and proc.poll() is None:
                stop(i)
        _drop_database(base, name)


@pytest.fixture
def session_page(browser, live_server, console_errors, campaign, pc, other_pc, debug):
    context = browser.new_context(viewport=GM_VIEWPORT, locale="fr-FR")
    context.add_init_script(HTMX_ERRORS)
    page = console_errors(context.new_page())
    # No live updates here (they have their own tests): the test server shares one SQLite
    # connection between its threads, and a poll's read open while an action writes makes
    # the write fail ("database table is locked"), which no real server does. The page is
    # told of a change made elsewhere the way live.js tells it (`live_refresh`).
    poll = reverse("campaign_events_poll", args=[campaign.pk])
    context.route(
        f"{live_server.url}{poll}**",
        lambda route: route.fulfill(json={"changes": [], "last_id": None}),
    )
    log_in(page, live_server.url, "gaelle_mj")
    page.goto(f"{live_server.url}/c/{campaign.pk}/")
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    yield page
    context.close()
