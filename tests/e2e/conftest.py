"""Playwright (sync API) driving Debian's Chromium against pytest-django's live server."""

import os
from pathlib import Path

import pytest
from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper

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
