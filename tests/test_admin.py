"""The Django admin (admin/ in config/urls.py): staff only, every page of every model works."""

import json

import pytest
from django import forms
from django.apps import apps
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse

from characters.models import Character
from journal.models import AuditEntry
from tests.helpers import ADMIN_ROUTES, PATTERNS

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
    elif short.startswith("axes_") and short.endswith("_add"):
        assert response.status_code == 403  # django-axes' records come from logins only
    elif short == "campaign_membership_delete":
        assert response.status_code == 403  # the members page removes members, logged
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


# ---------------------------------------------------------------------------------------------
# Nothing changes game state off the log, not even in the admin


def _values(form) -> dict:
    """A form's fields as a browser would post them back untouched."""
    data = {}
    for name, field in form.fields.items():
        value = form[name].value()
        if value is None or value is False:
            continue
        if value is True:
            value = "on"
        elif isinstance(field.widget, forms.MultiWidget):
            for index, part in enumerate(field.widget.decompress(value)):
                data[f"{form.add_prefix(name)}_{index}"] = part
            continue
        elif not isinstance(value, (str, int)):
            value = field.widget.format_value(value)
        data[form.add_prefix(name)] = value
    return data


def _posted(response) -> dict:
    """The change page's form as it came, inlines and their management forms included."""
    data = _values(response.context["adminform"].form)
    for inline in response.context["inline_admin_formsets"]:
        data |= _values(inline.formset.management_form)
        for form in inline.formset.forms:
            data |= _values(form)
    return data


def test_the_campaign_admin_shows_the_clock_and_the_scene_without_changing_them(
    staff_client, world
):
    url = reverse("admin:campaign_campaign_change", args=[world.campaign.pk])
    page = staff_client.get(url)
    data = _posted(page)
    assert not {"clock", "scene", "hour_rests_used", "pending_hour_rest"} & set(data)

    data |= {"name": "La Tour de Sel (bis)", "clock_0": "2000-01-09", "clock_1": "20:00"}
    data |= {"scene": "9", "hour_rests_used": "3", "pending_hour_rest": "4"}
    response = staff_client.post(url, data)

    assert response.status_code == 302, response.context["adminform"].form.errors
    world.campaign.refresh_from_db()
    assert world.campaign.name == "La Tour de Sel (bis)"  # a setting: the admin's to change
    # ... through the service, which logs it like the settings page does
    entry = AuditEntry.objects.get(campaign=world.campaign)
    assert (entry.field, entry.after, entry.actor_name) == (
        "setting.name",
        "La Tour de Sel (bis)",
        "intendant",
    )
    fresh = type(world.campaign)()
    assert (world.campaign.clock, world.campaign.scene) == (fresh.clock, 1)
    assert (world.campaign.hour_rests_used, world.campaign.pending_hour_rest) == (0, None)


def test_a_character_changed_in_the_admin_is_changed_through_the_service(staff_client, world):
    url = reverse("admin:characters_character_change", args=[world.pc.pk])
    data = _posted(staff_client.get(url))
    assert "pv" not in data and "flux" not in data  # only play moves them
    data |= {"name": "Isaure de Sel", "pv_max": "9", "pv": "1"}
    response = staff_client.post(url, data)

    assert response.status_code == 302, response.context["adminform"].form.errors
    pc = Character.objects.get(pk=world.pc.pk)
    # R1: the lowered maximum brings PV down, logged like the GM's own edit.
    assert (pc.name, pc.pv, pc.pv_max) == ("Isaure de Sel", 9, 9)
    entries = AuditEntry.objects.order_by("id")
    assert [(e.field, e.before, e.after, e.actor_name) for e in entries] == [
        ("name", "Isaure", "Isaure de Sel", "intendant"),
        ("pv", 11, 9, "intendant"),
        ("pv_max", 14, 9, "intendant"),
    ]


def test_a_character_added_in_the_admin_starts_with_its_sheet_in_the_log(staff_client, world):
    stats = {code: 1 for code in world.campaign.stats}
    data = {
        "name": "Ysolde",
        "campaign": world.campaign.pk,
        "kind": "pc",
        "stats": json.dumps(stats),
        "pv": "6",
        "pv_max": "10",
        "flux": "4",
        "flux_max": "4",
        "pa": "0",
        "actions": "2",
        "reflexes": "1",
        "gender": "iel",  # the form's default, as the admin's page offers it
    }
    page = staff_client.get(reverse("admin:characters_character_add"))
    for inline in page.context["inline_admin_formsets"]:
        data |= _values(inline.formset.management_form)
    response = staff_client.post(reverse("admin:characters_character_add"), data)

    assert response.status_code == 302, response.context["adminform"].form.errors
    created = Character.objects.get(name="Ysolde")
    assert (created.pv, created.pv_max, created.stats) == (6, 10, stats)
    entries = AuditEntry.objects.filter(character=created).order_by("id")
    assert [(e.field, e.before, e.after) for e in entries][1:] == [("pv", 10, 6)]
    assert entries[0].field == "character"
