"""A throwaway PostgreSQL database, logged-in sessions, and the app served by uvicorn."""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def postgres_url() -> str | None:
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith(("postgres://", "postgresql://")) else None


def admin_params(url: str) -> dict:
    import dj_database_url

    base = dj_database_url.parse(url)
    return dict(
        dbname="postgres",
        user=base["USER"] or None,
        password=base["PASSWORD"] or None,
        host=base["HOST"] or None,
        port=base["PORT"] or None,
        autocommit=True,
    )


@contextlib.contextmanager
def throwaway_database(url: str, suffix: str):
    """A fresh database `<name>_<suffix>` beside `url`'s, dropped at the end: yields its URL."""
    import dj_database_url
    import psycopg

    name = f"{dj_database_url.parse(url)['NAME']}_{suffix}"
    params = admin_params(url)
    with psycopg.connect(**params) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(**params) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def production_env(database_url: str, **extra) -> dict:
    """The environment of an app process with production settings on `database_url`."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "SECURE_SSL_REDIRECT": "false",
        "DATABASE_POOL": "true",  # as docker-compose.yml runs it
        "LOG_LEVEL": "WARNING",
        **extra,
    }


def migrate(env: dict, root: Path = ROOT) -> None:
    subprocess.run(
        [sys.executable, str(root / "manage.py"), "migrate", "--noinput", "-v0"],
        env=env,
        cwd=root,
        check=True,
    )


def uvicorn(port: int, env: dict, *, workers: int = 1, root: Path = ROOT) -> subprocess.Popen:
    """The app as the Dockerfile serves it (its `--workers` and graceful timeout), on loopback."""
    command = [
        sys.executable, "-m", "uvicorn", "config.asgi:application",
        "--host", "127.0.0.1", "--port", str(port), "--lifespan", "off",
        "--no-access-log", "--log-level", "warning", "--timeout-graceful-shutdown", "1",
    ]  # fmt: skip
    if workers > 1:
        command += ["--workers", str(workers)]
    return subprocess.Popen(command, env=env, cwd=root)


def stop(procs) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def session_cookie(user) -> str:
    """A logged-in session for `user` (Django set up), as a Cookie header value."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}"


def with_csrf(cookie: str) -> tuple[str, str]:
    """`cookie` plus a CSRF cookie, and the token to send with it."""
    from django.conf import settings

    csrf = secrets.token_hex(16)  # 32 characters: an unmasked CSRF secret
    return f"{cookie}; {settings.CSRF_COOKIE_NAME}={csrf}", csrf
