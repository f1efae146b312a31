"""Shared fixtures: one campaign, its GM, two players, an outsider, and a client for each.

Three people as in healthchecks' tests (`gm`, `player`, `outsider`), plus `other_player` so
that "a player who does not own this character" can be told apart from "its owner".
"""

from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from campaign import services
from campaign.models import Invitation, Membership, Role
from characters.models import Character, Kind

FRESH = "fresh"  # a second, empty database: where tests/journal/test_archive.py imports


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """Declare the FRESH database beside the default one, on the same server. Only tests that
    ask for it (`django_db(databases=[…, FRESH])`) have it created."""
    from copy import deepcopy

    from django.conf import settings
    from django.db import connections

    fresh = deepcopy(connections.settings["default"])
    if fresh["ENGINE"] != "django.db.backends.sqlite3":  # SQLite: in memory, named by alias
        # After the xdist suffix (test_NAME_gw0): one FRESH database per worker.
        default_test = fresh["TEST"].get("NAME") or f"test_{fresh['NAME']}"
        fresh["TEST"]["NAME"] = f"{default_test}_{FRESH}"
    connections.settings[FRESH] = fresh
    settings.DATABASES[FRESH] = fresh


@pytest.fixture(autouse=True)
def _empty_cache():
    # Rendered cards are cached by character id and version; test databases reuse both.
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    # The default PBKDF2 takes a good part of a second per hash; tests need no strength.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True, scope="session")
def _flush_past_the_log_triggers():
    """On PostgreSQL the audit log refuses TRUNCATE (journal migration 0005). The flush that
    empties the tables after transactional and live-server tests goes around the triggers as
    a replica would (`session_replication_role`, superuser only: the test database's owner)."""
    try:
        from django.db.backends.postgresql.operations import DatabaseOperations
    except ImportError:  # no psycopg: SQLite only
        yield
        return
    original = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, **kwargs):
        sql = original(self, style, tables, **kwargs)
        if not sql:
            return sql
        return [
            "SET session_replication_role = replica",
            *sql,
            "SET session_replication_role = DEFAULT",
        ]

    DatabaseOperations.sql_flush = sql_flush
    yield
    DatabaseOperations.sql_flush = original


def _user(username: str):
    return get_user_model().objects.create_user(
        username=username, email=f"{username}@example.com", password="correct horse battery"
    )


@pytest.fixture
def gm(db):
    return _user("gaelle_mj")


@pytest.fixture
def player(db):
    return _user("paul_joueur")


@pytest.fixture
def other_player(db):
    return _user("olivia_joueuse")


@pytest.fixture
def outsider(db):
    return _user("oscar_dehors")


@pytest.fixture
def campaign(gm, player, other_player):
    campaign = services.campaign_create(user=gm, name="La Tour de Sel")
    Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
    Membership.objects.create(campaign=campaign, user=other_player, role=Role.PLAYER)
    return campaign


def _stats(campaign, base: int) -> dict[str, int]:
    return {code: (base + i) % 4 for i, code in enumerate(campaign.stats)}


@pytest.fixture
def pc(campaign, player):
    return Character.objects.create(
        campaign=campaign,
        name="Isaure",
        kind=Kind.PC,
        owner=player,
        stats=_stats(campaign, 1),
        pv=11,
        pv_max=14,
        flux=7,
        flux_max=10,
        pa=2,
        public_notes="Porte une lanterne bleue.",
        gm_notes="Secretement la fille du Vicomte.",
    )


@pytest.fixture
def other_pc(campaign, other_player):
    return Character.objects.create(
        campaign=campaign,
        name="Gaspard",
        kind=Kind.PC,
        owner=other_player,
        stats=_stats(campaign, 2),
        pv=18,
        pv_max=18,
        flux=6,
        flux_max=6,
        pa=4,
        public_notes="Forgeron de Valombre.",
        gm_notes="Doit une dette au Vicomte.",
    )


@pytest.fixture
def npc(campaign):
    return Character.objects.create(
        campaign=campaign,
        name="Le Vicomte masque",
        kind=Kind.NPC,
        stats=_stats(campaign, 3),
        pv=12,
        pv_max=12,
        flux=4,
        flux_max=4,
        public_notes="Un masque d’argent.",
        gm_notes="Le grand mechant de la campagne.",
    )


@pytest.fixture
def invitation(campaign, gm):
    return Invitation.objects.create(campaign=campaign, role=Role.PLAYER, created_by=gm)


def _client_for(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def anon_client():
    return _client_for()


@pytest.fixture
def gm_client(gm):
    return _client_for(gm)


@pytest.fixture
def player_client(player):
    return _client_for(player)


@pytest.fixture
def other_player_client(other_player):
    return _client_for(other_player)


@pytest.fixture
def outsider_client(outsider):
    return _client_for(outsider)


@pytest.fixture
def world(campaign, gm, player, other_player, outsider, pc, other_pc, npc, invitation):
    """The people and things tests/test_permissions.py's table builds its URLs and bodies from."""
    memberships = {m.user_id: m for m in campaign.memberships.all()}
    return SimpleNamespace(
        campaign=campaign,
        gm=gm,
        player=player,
        other_player=other_player,
        outsider=outsider,
        pc=pc,
        other_pc=other_pc,
        npc=npc,
        invitation=invitation,
        gm_membership=memberships[gm.pk],
        player_membership=memberships[player.pk],
        other_player_membership=memberships[other_player.pk],
    )


def pytest_collection_modifyitems(session, config, items):
    """Browser tests run last in a one-process run: they are the slowest to fail for a
    reason the quicker tests would have told first. (Their browser is closed at the end of
    each module, tests/e2e/conftest.py, so any order works, as pytest-xdist's has to.)"""
    items.sort(key=lambda item: "tests/e2e/" in item.nodeid.replace("\\", "/"))


MANIFEST_STORAGE = "servestatic.storage.CompressedManifestStaticFilesStorage"


@pytest.fixture(scope="session")
def collected_static(tmp_path_factory):
    """The static files collected as a deployment collects them (hashed names, the manifest),
    once per test process, into a folder of its own."""
    from django.core.management import call_command
    from django.test import override_settings

    root = tmp_path_factory.mktemp("staticfiles")
    storages = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": MANIFEST_STORAGE},
    }
    with override_settings(STATIC_ROOT=root, STORAGES=storages):
        call_command("collectstatic", interactive=False, verbosity=0)
    return root, storages


@pytest.fixture
def production_static(settings, collected_static):
    """Production's static files for one test: the hashed manifest names every `{% static %}`
    and the service worker's list. The test server serves static files through the finders,
    so the collected folder (hashed copies included) is one of their places."""
    root, storages = collected_static
    settings.STATIC_ROOT = root
    settings.STORAGES = storages
    settings.STATICFILES_DIRS = [root]
    return root
