"""A process that walks one part of a campaign's chain, for `audit.walk_chain_parallel`.

Started with the `spawn` method (a fresh interpreter: no copy of the parent's connections,
pool or threads), it sets Django up on the database the parent reads; the parent then hands
it `audit.walk_part`, unpickled (and journal.audit, which reads models, imported) only once
this initializer has run. Nothing here imports models before `django.setup()`, nor journal.
"""

from __future__ import annotations

import os


def start(database_name: str) -> None:
    """The pool's initializer: Django on the parent's database (a test run's `test_…` too)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django
    from django.conf import settings

    django.setup()
    settings.DATABASES["default"]["NAME"] = database_name
