"""journal/events.py past one process: NOTIFY's payload limit, the listener's own connection
(DATABASE_LISTEN_URL, for a PgBouncer in transaction mode), the settings that mode needs, and
the transport chosen behind one interface (README, "Several app hosts")."""

import subprocess
import sys

import pytest
from django.db import DatabaseError, connection, transaction
from psycopg.conninfo import conninfo_to_dict

from config.settings import BASE_DIR
from journal import events

MANY = tuple(range(1_000_000, 1_003_000))  # 3,000 characters: about 24 KB of ids


def test_an_event_too_big_for_notify_leaves_its_characters_out_and_keeps_the_rest():
    event = events.Event(7, MANY, 123_456_789, True)
    payload = event.to_payload()
    assert len(payload.encode()) <= events.PAYLOAD_LIMIT < 8000
    back = events.Event.from_payload(payload)
    # The stream reads the characters from the log when the event has none (live/stream.py;
    # tests/live/test_live.py reads such a truncated event).
    assert back == events.Event(7, (), 123_456_789, True)
    small = events.Event(7, MANY[:50], 9, False)
    assert events.Event.from_payload(small.to_payload()) == small


@pytest.mark.skipif(connection.vendor != "postgresql", reason="NOTIFY is PostgreSQL's")
@pytest.mark.django_db
def test_postgresql_takes_the_truncated_payload_and_refuses_the_whole_one():
    event = events.Event(7, MANY, 123_456_789, True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [events.CHANNEL, event.to_payload()])
        whole = event.to_payload().replace('"ch":[]', f'"ch":{list(MANY)}'.replace(" ", ""))
        with pytest.raises(DatabaseError, match="payload string too long"), transaction.atomic():
            cursor.execute("SELECT pg_notify(%s, %s)", [events.CHANNEL, whole])


def test_the_listener_uses_database_listen_url_when_set(settings):
    settings.DATABASE_LISTEN_URL = "postgres://live:secret@pg-direct.internal:5433/chroniqueur"
    params = conninfo_to_dict(events.conninfo())
    assert params["host"] == "pg-direct.internal" and params["port"] == "5433"
    assert (params["user"], params["dbname"]) == ("live", "chroniqueur")
    assert params["application_name"] == "chroniqueur-live"


def test_the_listener_leaves_out_options_that_are_not_libpq_parameters(settings):
    settings.DATABASE_LISTEN_URL = ""
    database = connection.settings_dict
    options = {"pool": True, "prepare_threshold": None, "sslmode": "prefer"}
    original = database.get("OPTIONS")
    database["OPTIONS"] = options
    try:
        params = conninfo_to_dict(events.conninfo())
    finally:
        database["OPTIONS"] = original
    assert params["sslmode"] == "prefer"
    assert "pool" not in params and "prepare_threshold" not in params


def _settings_with(**env):
    script = (
        "from django.conf import settings as s; d = s.DATABASES['default'];"
        "print(d.get('DISABLE_SERVER_SIDE_CURSORS', False),"
        " 'prepare_threshold' in d.get('OPTIONS', {}), repr(s.DATABASE_LISTEN_URL))"
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", script],
        cwd=BASE_DIR,
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_behind_pgbouncer_there_is_no_server_side_cursor_nor_prepared_statement():
    url = "postgres://app@pgbouncer.internal:6432/chroniqueur"
    direct = "postgres://app@pg.internal:5432/chroniqueur"
    assert _settings_with(DATABASE_URL=url) == ["False", "False", "''"]
    behind = _settings_with(
        DATABASE_URL=url, DATABASE_BEHIND_PGBOUNCER="true", DATABASE_LISTEN_URL=direct
    )
    assert behind == ["True", "True", repr(direct)]


def test_check_warns_behind_pgbouncer_without_a_listen_url(settings, monkeypatch):
    from journal.checks import listen_connection

    monkeypatch.setenv("DATABASE_BEHIND_PGBOUNCER", "true")
    settings.DATABASE_LISTEN_URL = ""
    assert [w.id for w in listen_connection()] == ["journal.W001"]
    settings.DATABASE_LISTEN_URL = "postgres://app@pg.internal/chroniqueur"
    assert listen_connection() == []


class Recorder:
    published: list = []

    def publish(self, event):
        self.published.append(event)

    async def ready(self):
        pass

    async def stop(self):
        pass


@pytest.mark.django_db
def test_another_transport_is_one_setting_away(settings, world):
    """A broker (Redis pub/sub, …) is a class with publish / ready / stop, named by
    LIVE_TRANSPORT: the services publish through it, nothing else changes."""
    from tests.play.steps import run

    expected = (
        "journal.events.PostgresNotify"
        if connection.vendor == "postgresql"
        else ("journal.events.InProcess")
    )
    assert type(events.transport()).__qualname__ == expected.rsplit(".", 1)[1]
    settings.LIVE_TRANSPORT = f"{__name__}.Recorder"
    Recorder.published.clear()
    result = run(world.campaign, world.gm, "damage", {"amount": "5"}, character=world.pc)
    assert Recorder.published == [
        events.Event(world.campaign.pk, (world.pc.pk,), result.entries[-1].pk, False)
    ]
