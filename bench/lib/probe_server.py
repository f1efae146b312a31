"""The app under uvicorn (one process) with CPU probes: where each thread's CPU goes.

Run by bench/profile_action.py as `python bench/lib/probe_server.py PORT OUT` in the served
checkout's directory (any checkout: the probes wrap functions that main has too). When the
file OUT.ask appears it writes to OUT (JSON) the CPU seconds so far, per area and kind:

- areas: each request, by what it is (`post` an action, `refetch: <part>` a GET live.js makes
  for an event, `seal check`, `stream open`, `page load`), timed in its thread around the
  middleware chain and the view; the stream readers' work (`fanout: reads` the event read once
  for a campaign's viewers, `fanout: renders (<function>)` each pushed part by the function
  drawing it, `fanout: seal check` the log's
  seal checked once per change, `fanout: other reads`), and the guard's rounds (`guard`);
- kinds inside an area: `queries` (the ORM's SQL compiled, run and fetched, and commits),
  `render` (templates), `engine` (the rules' operation), `audit` (the log's entries, its own
  queries apart), the rest `self`;
- `loop`: the event loop's thread, all of it (HTTP of every request, ASGI, the streams' steps
  and sends, heartbeats): nothing there is wrapped, it is read from /proc;
- `threads`: every other thread's CPU from /proc, so that what no wrapper saw shows.

Time is exclusive: a query inside a render counts as a query. Measured with
time.thread_time() around each wrapped call (a few microseconds each).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

# The served checkout, not this directory (whose http.py would hide the standard library's).
sys.path[0] = os.getcwd()

_local = threading.local()
totals: dict[str, float] = defaultdict(float)
calls: dict[str, int] = defaultdict(int)
_lock = threading.Lock()


def _charge(frame, now):
    with _lock:
        totals[f"{frame[0]}|{frame[1]}"] += now - _local.mark
    _local.mark = now


def _enter(area: str | None, kind: str) -> None:
    stack = _local.__dict__.setdefault("stack", [])
    now = time.thread_time()
    if stack:
        _charge(stack[-1], now)
    else:
        _local.mark = now
    area = area or (stack[-1][0] if stack else "other")
    if not stack:  # a request, a read: counted once, not once per middleware
        with _lock:
            calls[area] += 1
    stack.append((area, kind))


def _leave() -> None:
    stack = _local.stack
    _charge(stack.pop(), time.thread_time())


def wrap(owner, name, kind, area=None, area_of=None):
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        _enter(area_of(args, kwargs) if area_of else area, kind)
        try:
            return original(*args, **kwargs)
        finally:
            _leave()

    wrapper.__wrapped__ = original
    setattr(owner, name, wrapper)


def request_area(args, kwargs) -> str:
    stack = _local.__dict__.get("stack")
    if stack:  # an inner middleware: the request's area is known
        return stack[-1][0]
    request = args[1]
    path = request.path
    if request.method == "POST":
        return "post"
    if path.endswith("/events/"):
        return "stream open"
    if "seal" in path:
        return "seal check"
    if path.endswith("/feed/"):
        return "refetch: feed"
    if path.endswith("/card/"):
        return "refetch: card"
    target = request.headers.get("HX-Target")
    if target:
        return "refetch: " + target.rstrip("0123456789").rstrip("-")
    return "page load"


def install() -> None:
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.models.sql import compiler
    from django.template.backends.django import Template
    from django.utils.deprecation import MiddlewareMixin

    import live.stream as stream
    from config import middleware
    from journal import audit
    from play.services import runner

    wrap(MiddlewareMixin, "__call__", "self", area_of=request_area)
    wrap(middleware.SyncMiddlewareChain, "__call__", "self", area_of=request_area)
    for klass in (
        compiler.SQLCompiler,
        compiler.SQLInsertCompiler,
        compiler.SQLUpdateCompiler,
        compiler.SQLDeleteCompiler,
    ):
        if "execute_sql" in klass.__dict__:
            wrap(klass, "execute_sql", "queries")
    wrap(BaseDatabaseWrapper, "commit", "queries")
    wrap(Template, "render", "render")
    wrap(audit, "append", "audit")
    for name, area in (
        ("_event_views", "fanout: reads"),
        ("_cards_message", "fanout: renders (cards_message)"),
        ("_ended", "guard"),
        ("_log_check", "fanout: seal check"),
        ("log_head", "fanout: other reads"),
        ("missed_changes", "fanout: other reads"),
        ("_still_member", "fanout: other reads"),
    ):
        if hasattr(stream, name):
            wrap(stream, name, "self", area=area)
    # Extra pushes a checkout may have (the party's rows, the pushed parts): counted as renders.
    for name in (
        "_event_rows",
        "_home_rows",
        "_rows_message",
        "_parts_message",
        "_gm_parts",
        "_fight_now",
        "_strip_html",
        "_feed_html",
    ):
        if hasattr(stream, name):
            wrap(stream, name, "self", area=f"fanout: renders ({name.strip('_')})")

    original_run = runner.run

    def run(*args, operation, **kwargs):
        def timed(table):
            _enter(None, "engine")
            try:
                return operation(table)
            finally:
                _leave()

        return original_run(*args, operation=timed, **kwargs)

    runner.run = run
    # The services imported `run` by name: they call the wrapped one too.
    import play.services as services_package

    for module in list(sys.modules.values()):
        if (
            module
            and getattr(module, "__name__", "").startswith("play.")
            and getattr(module, "run", None) is original_run
        ):
            module.run = run
    del services_package


def thread_cpu() -> dict[str, float]:
    tick = os.sysconf("SC_CLK_TCK")
    found = {"loop": 0.0, "threads": 0.0}
    main = os.getpid()
    for task in Path(f"/proc/{main}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        seconds = (int(fields[11]) + int(fields[12])) / tick
        found["loop" if int(task.name) == main else "threads"] += seconds
    return found


def main() -> None:
    port, out = int(sys.argv[1]), sys.argv[2]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    install()
    from config.asgi import application

    def dump():
        with _lock:
            data = {"totals": dict(totals), "calls": dict(calls), **thread_cpu()}
        Path(out + ".tmp").write_text(json.dumps(data))
        os.replace(out + ".tmp", out)

    def watch():
        # Asked by a file, not a signal: a handler on the loop's thread could find the lock
        # taken by the code it interrupted.
        ask = Path(out + ".ask")
        while True:
            if ask.exists():
                ask.unlink()
                dump()
            time.sleep(0.05)

    threading.Thread(target=watch, daemon=True, name="probe-dump").start()
    import uvicorn

    uvicorn.run(
        application,
        host="127.0.0.1",
        port=port,
        lifespan="off",
        access_log=False,
        log_level="warning",
        timeout_graceful_shutdown=1,
    )


if __name__ == "__main__":
    main()
