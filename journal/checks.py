"""Checks of the live updates' configuration (`manage.py check`)."""

import os

from django.conf import settings
from django.core import checks


@checks.register(checks.Tags.database, deploy=False)
def listen_connection(app_configs=None, **kwargs):
    """Behind PgBouncer's transaction mode a LISTEN hears nothing: it needs its own URL."""
    behind = os.environ.get("DATABASE_BEHIND_PGBOUNCER", "").strip().lower()
    if behind in {"1", "true", "yes", "on"} and not settings.DATABASE_LISTEN_URL:
        return [
            checks.Warning(
                "DATABASE_BEHIND_PGBOUNCER is set but DATABASE_LISTEN_URL is not: live "
                "updates would LISTEN through PgBouncer's transaction mode and hear nothing.",
                hint="Set DATABASE_LISTEN_URL to PostgreSQL itself (README, 'Several app hosts').",
                id="journal.W001",
            )
        ]
    return []
