"""Every named route has a permission test: a new URL without one fails here.

Each test module below lists the routes it checks for every kind of person (anonymous,
outsider, player, the character's owner, GM); the admin's routes are all exercised by
tests/test_admin.py, which walks them itself.
"""

from tests import test_admin, test_project
from tests.campaign import test_accounts, test_home_and_join
from tests.campaign import test_permissions as campaign_permissions
from tests.helpers import named_routes
from tests.journal import test_history
from tests.live import test_live
from tests.play import test_permissions as character_permissions
from tests.play import test_player

COVERED = {
    "tests/test_project.py": set(test_project.ROUTES),
    "tests/test_admin.py": set(test_admin.ADMIN_ROUTES),
    "tests/campaign/test_accounts.py": set(test_accounts.ROUTES),
    "tests/campaign/test_home_and_join.py": set(test_home_and_join.ROUTES),
    "tests/live/test_live.py": set(test_live.ROUTES),
    "tests/campaign/test_permissions.py": set(campaign_permissions.ROUTES),
    "tests/play/test_permissions.py": set(character_permissions.ROUTES),
    "tests/journal/test_history.py": set(test_history.ROUTES),
    "tests/play/test_player.py": set(test_player.ROUTES),
}


def test_every_named_route_has_a_permission_test():
    covered = set().union(*COVERED.values())
    missing = sorted(set(named_routes()) - covered)
    assert not missing, (
        f"Routes without a permission test: {missing}. Add each to the ROUTES table of the "
        "tests/<app>/test_permissions.py that mirrors its urls.py."
    )


def test_no_permission_table_lists_a_route_that_is_gone():
    stale = {
        module: sorted(names - set(named_routes()))
        for module, names in COVERED.items()
        if names - set(named_routes())
    }
    assert not stale, stale


def test_no_route_is_listed_twice():
    seen = {}
    for module, names in COVERED.items():
        for name in names:
            assert name not in seen, f"{name} in {seen.get(name)} and {module}"
            seen[name] = module
