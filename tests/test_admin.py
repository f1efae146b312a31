"""The Django admin (admin/ in config/urls.py): staff only, every page of every model works."""

import pytest
from django.apps import apps
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse

from tests.helpers import named_routes

PATTERNS = named_routes()
ADMIN_ROUTES = sorted(name for name in PATTERNS if name.startswith("admin:"))
OBJECT_ACTIONS = ("change", "delete", "history")


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_superuser("intendant", "staff@example.com", "x")


@pytest.fixture
def staff_client(staff):
    from django.test import Client

    client = Client()
    client.force_login(staff)
    return client


def _url(name: str, world) -> tuple[str, bool]:
    """The route's URL, and whether it names an object that exists."""
    short = name.removeprefix("admin:")
    if "<" not in PATTERNS[name] and "(?P" not in PATTERNS[name]:
        return reverse(name), True
    if short == "app_list":
        return reverse(name, kwargs={"app_label": "campaign"}), True
    if short == "view_on_site":
        ct = ContentType.objects.get_for_model(world.campaign)
        return reverse(name, args=[ct.pk, world.campaign.pk]), True
    if short == "auth_user_password_change":
        return reverse(name, args=[world.player.pk]), True
    app_label, _, rest = short.partition("_")
    model_name, _, action = rest.rpartition("_")
    if action in OBJECT_ACTIONS:
        model = apps.get_model(app_label, model_name)
        obj = model._default_manager.order_by("pk").first()
        return reverse(name, args=[obj.pk if obj else 0]), obj is not None
    raise AssertionError(f"no way to build {name} ({PATTERNS[name]}): teach _url about it")


@pytest.fixture
def admin_world(world):
    Group.objects.create(name="Intendance")
    return world


@pytest.mark.parametrize("who", ["anon_client", "gm_client"])
@pytest.mark.parametrize("name", ADMIN_ROUTES)
def test_it_keeps_non_staff_out_of_the_admin(request, admin_world, who, name):
    # The GM runs the table, not the site: the admin is for staff.
    client = request.getfixturevalue(who)
    url, _exists = _url(name, admin_world)
    response = client.get(url)
    if name == "admin:login":
        assert response.status_code == 200
        assert not response.context["user"].is_staff
    elif name == "admin:logout":
        assert response.status_code == 302
        assert response["Location"] == reverse("admin:index")
    else:
        assert response.status_code == 302, response.status_code
        assert response["Location"].startswith(reverse("admin:login"))


@pytest.mark.parametrize("name", ADMIN_ROUTES)
def test_it_serves_every_admin_page_to_staff(staff_client, admin_world, name):
    url, exists = _url(name, admin_world)
    response = staff_client.get(url)
    short = name.removeprefix("admin:")
    if short == "login":
        assert response.status_code == 302  # already logged in: on to the index
    elif short == "logout":
        assert response.status_code == 405
    elif short == "view_on_site":
        assert response.status_code == 404  # campaigns have no public page
    elif short == "autocomplete":
        assert response.status_code == 403  # needs the field it completes
    elif short in ("journal_auditentry_add", "journal_auditentry_delete"):
        assert response.status_code == 403  # the log is read-only, even for staff
    elif not exists:
        assert response.status_code == 302  # the admin's "no such object" redirect
    else:
        assert response.status_code == 200, response.status_code


def test_it_registers_the_project_models(db):
    from django.contrib import admin

    registered = {model._meta.label for model in admin.site._registry}
    expected = {"campaign.Campaign", "campaign.Membership", "campaign.Invitation"}
    expected |= {"journal.AuditEntry"}
    assert expected | {"characters.Character"} <= registered


def test_it_finds_characters_in_the_admin(staff_client, world):
    url = reverse("admin:characters_character_changelist")
    response = staff_client.get(url, {"q": world.npc.name})
    assert response.status_code == 200
    assert list(response.context["cl"].result_list) == [world.npc]
