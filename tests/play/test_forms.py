"""Character forms and model validation: every bad number is refused with a message."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from characters.models import STAT_MAX, STAT_MIN, Character, Kind
from tests.helpers import assert_form_error, character_data, db_state

BAD_CHARACTERS = {
    "negative max PV": ("pv_max", {"pv_max": -5, "pv": -6}),
    "zero max PV": ("pv_max", {"pv_max": 0, "pv": 0}),
    "current PV above max": ("pv", {"pv": 13, "pv_max": 12}),
    "current Flux above max": ("flux", {"flux": 9, "flux_max": 8}),
    "negative Flux": ("flux", {"flux": -1}),
    "stat above the range": ("stat_ADR", {"stat_ADR": STAT_MAX + 1}),
    "stat below the range": ("stat_ESP", {"stat_ESP": STAT_MIN - 1}),
    "stat not a number": ("stat_PUI", {"stat_PUI": "deux"}),
    "stat missing": ("stat_SAV", {"stat_SAV": ""}),
    "PV not a number": ("pv", {"pv": "douze"}),
    "max PV not a number": ("pv_max", {"pv_max": "12.5"}),
    "PA not a number": ("pa", {"pa": "x"}),
    "absurd max PV": ("pv_max", {"pv_max": 100000}),
    "name of 500 characters": ("name", {"name": "x" * 500}),
    "empty name": ("name", {"name": ""}),
    "NPC given to a player": ("owner", {"kind": "npc", "owner": "PLAYER"}),
    "owner outside the campaign": ("owner", {"owner": "OUTSIDER"}),
    "owner who is the GM": ("owner", {"owner": "GM"}),
}


def _resolve(overrides, world):
    people = {"PLAYER": world.player.pk, "OUTSIDER": world.outsider.pk, "GM": world.gm.pk}
    return {k: people.get(v, v) if isinstance(v, str) else v for k, v in overrides.items()}


@pytest.mark.parametrize(("field", "overrides"), BAD_CHARACTERS.values(), ids=BAD_CHARACTERS)
def test_it_refuses_a_bad_new_character(gm_client, world, field, overrides):
    before = db_state()
    data = character_data(world.campaign, **_resolve(overrides, world))
    response = gm_client.post(reverse("character_create", args=[world.campaign.pk]), data)
    assert_form_error(response, field)
    assert db_state() == before


@pytest.mark.parametrize(("field", "overrides"), BAD_CHARACTERS.values(), ids=BAD_CHARACTERS)
def test_it_refuses_a_bad_edit(gm_client, world, field, overrides):
    before = db_state()
    data = character_data(world.campaign, name="Isaure", owner=world.player.pk)
    data.update({k: str(v) for k, v in _resolve(overrides, world).items()})
    response = gm_client.post(
        reverse("character_edit", args=[world.campaign.pk, world.pc.pk]), data
    )
    assert_form_error(response, field)
    assert db_state() == before


def test_it_ignores_a_posted_stat_outside_the_ruleset(gm_client, world):
    data = character_data(world.campaign, stat_ZZZ=5)
    response = gm_client.post(reverse("character_create", args=[world.campaign.pk]), data)
    assert response.status_code == 302
    assert "ZZZ" not in Character.objects.get(name="Nouvelle venue").stats


def test_it_allows_pv_below_zero(gm_client, world):
    # R1: PV may go below 0 (dying), only Flux may not.
    data = character_data(world.campaign, pv=-3, pv_max=12)
    response = gm_client.post(reverse("character_create", args=[world.campaign.pk]), data)
    assert response.status_code == 302
    assert Character.objects.get(name="Nouvelle venue").pv == -3


def test_it_shows_a_form_field_for_an_added_stat(gm_client, world):
    world.campaign.stats = [*world.campaign.stats, "CHA"]
    world.campaign.save()
    response = gm_client.post(
        reverse("character_create", args=[world.campaign.pk]),
        character_data(world.campaign, stat_CHA=4),
    )
    assert response.status_code == 302
    assert Character.objects.get(name="Nouvelle venue").stats["CHA"] == 4


# The model's own invariants, for writes that do not go through a form.


def _character(world, **fields):
    values = {
        "campaign": world.campaign,
        "name": "Modèle",
        "kind": Kind.PC,
        "stats": dict.fromkeys(world.campaign.stats, 0),
        "pv": 5,
        "pv_max": 5,
        "flux": 1,
        "flux_max": 1,
    }
    values.update(fields)
    return Character(**values)


def test_full_clean_accepts_a_valid_character(world):
    _character(world, stats={"ADR": STAT_MIN, "ESP": STAT_MAX}).full_clean()


@pytest.mark.parametrize(
    ("field", "fields"),
    [
        ("stats", {"stats": {"XYZ": 1}}),
        ("stats", {"stats": {"ADR": STAT_MAX + 1}}),
        ("stats", {"stats": {"ADR": STAT_MIN - 1}}),
        ("stats", {"stats": {"ADR": "3"}}),
        ("pv", {"pv": 6, "pv_max": 5}),
        ("flux", {"flux": 2, "flux_max": 1}),
        ("pv_max", {"pv_max": -1, "pv": -2}),
        ("name", {"name": "x" * 500}),
        ("owner", {"kind": Kind.NPC, "owner_id": "PLAYER"}),
        ("owner", {"owner_id": "OUTSIDER"}),
    ],
    ids=[
        "unknown stat",
        "stat too high",
        "stat too low",
        "stat not an int",
        "pv above max",
        "flux above max",
        "negative max PV",
        "long name",
        "NPC with owner",
        "owner not a member",
    ],
)
def test_full_clean_refuses(world, field, fields):
    people = {"PLAYER": world.player.pk, "OUTSIDER": world.outsider.pk}
    fields = {k: people.get(v, v) if isinstance(v, str) else v for k, v in fields.items()}
    with pytest.raises(ValidationError) as caught:
        _character(world, **fields).full_clean()
    assert field in caught.value.message_dict


@pytest.mark.parametrize("stats", [[1, 2], "ADR", 3], ids=["list", "string", "number"])
def test_full_clean_refuses_stats_that_are_not_a_mapping(world, stats):
    # The admin's JSON field lets staff type anything: a message, never a server error.
    with pytest.raises(ValidationError) as caught:
        _character(world, stats=stats).full_clean()
    assert "stats" in caught.value.message_dict


def test_the_admin_refuses_stats_that_are_not_a_mapping(django_user_model, world):
    from django.test import Client

    staff = django_user_model.objects.create_superuser("intendant", "s@example.com", "x")
    client = Client()
    client.force_login(staff)
    url = reverse("admin:characters_character_change", args=[world.npc.pk])
    form = client.get(url).context["adminform"].form
    data = {name: form[name].value() for name in form.fields}
    data = {k: ("" if v is None else v) for k, v in data.items()}
    data["stats"] = "[1, 2]"
    before = db_state()
    response = client.post(url, data)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["stats"]
    assert db_state() == before
