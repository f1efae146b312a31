"""Assertions and helpers shared by the test modules: requests, the audit log, the admin."""

import json
from urllib.parse import urlsplit

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import connection
from django.urls import reverse
from django.utils.html import escape

from journal import audit
from journal.models import AuditEntry
from tests.play.steps import run

# Every app whose rows a refused request must leave alone; new models are picked up as added.
_APPS = ("campaign", "characters", "journal", "play")


def db_state() -> dict[str, list[dict]]:
    """Every row of the project's models and of users, to compare before and after a request."""
    models = [get_user_model()]
    for label in _APPS:
        models.extend(apps.get_app_config(label).get_models())
    return {
        model._meta.label: list(model._default_manager.order_by("pk").values()) for model in models
    }


def first_template(response) -> str:
    """The template a response rendered, a partial as "page.html#partial"."""
    template = response.templates[0]
    if template.origin is not None and template.name != template.origin.template_name:
        return f"{template.origin.template_name}#{template.name}"
    return template.name


def assert_redirects_to_login(response, path: str) -> None:
    assert response.status_code == 302, response.status_code
    location = urlsplit(response["Location"])
    assert location.path == reverse("login")
    assert f"next={path}" in location.query.replace("%2F", "/")


def assert_form_error(response, field: str, form_key: str = "form") -> None:
    """A 400 with the form re-rendered and the field's message shown to the person."""
    assert response.status_code == 400, response.status_code
    form = response.context[form_key]
    errors = form.errors.get(field) if field != "__all__" else form.non_field_errors()
    assert errors, f"no error on {field!r}: {form.errors!r}"
    content = response.content.decode()
    for message in errors:
        assert escape(message) in content, message


def character_data(campaign, **overrides) -> dict:
    data = {
        "name": "Nouvelle venue",
        "kind": "pc",
        "owner": "",
        "pv": "10",
        "pv_max": "12",
        "flux": "5",
        "flux_max": "8",
        "pa": "1",
        "actions": "2",
        "reflexes": "1",
        "public_notes": "",
        "gm_notes": "",
    }
    data.update({f"stat_{code}": "1" for code in campaign.stats})
    data.update({key: str(value) for key, value in overrides.items()})
    return data


def settings_data(campaign, **overrides) -> dict:
    data = {
        "name": campaign.name,
        "stats": ", ".join(campaign.stats),
        "default_difficulty": "10",
        "hour_rests_per_half_day": "1",
        "players_roll": "on",
        "default_roll_visibility": "everyone",
        "party_visibility": "state",
        "coma_delay_minutes": "10",
        "automatic_wake_tries": "on",
        "morning_hour": "6",
        "damage_ends_stabilisation": "on",
        "surprise_ends_after_first_round": "on",
        "round_seconds": "0",
    }
    data.update({key: str(value) for key, value in overrides.items()})
    return {key: value for key, value in data.items() if value != "False"}


def named_routes() -> dict[str, str]:
    """Every named route of the project, "namespace:name" -> its pattern."""
    from django.urls import URLResolver, get_resolver

    def walk(patterns, namespace, prefix):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                ns = namespace
                if pattern.namespace:
                    ns = f"{namespace}:{pattern.namespace}" if namespace else pattern.namespace
                yield from walk(pattern.url_patterns, ns, prefix + str(pattern.pattern))
            elif pattern.name:
                name = f"{namespace}:{pattern.name}" if namespace else pattern.name
                yield name, prefix + str(pattern.pattern)

    return dict(walk(get_resolver().url_patterns, None, ""))


postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="the append-only trigger and row locks (SELECT … FOR UPDATE) are PostgreSQL's; "
    "SQLite has neither",
)


TRIGGER = "journal_auditentry_append_only"


def play_a_little(campaign, gm, character):
    """Five entries: a damage, a test (one roll), a Flux spent with its condition."""
    run(campaign, gm, "damage", {"amount": "3"}, character=character)
    run(campaign, gm, "check", {"stat": "VAI", "difficulty": "10"}, character=character, typed=[8])
    run(campaign, gm, "spend_flux", {"amount": str(character.flux)}, character=character)
    run(campaign, gm, "heal", {"amount": "1"}, character=character)


def entries(campaign) -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(campaign=campaign).order_by("id"))


def raw(sql, params=()):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


class trigger_disabled:
    """Let a test alter the log behind the app's back, as an attacker with the table would."""

    def __enter__(self):
        if connection.vendor == "postgresql":
            # ALTER TABLE waits for no queued trigger events: run the deferred FK checks now.
            raw("SET CONSTRAINTS ALL IMMEDIATE")
            raw(f"ALTER TABLE journal_auditentry DISABLE TRIGGER {TRIGGER}")

    def __exit__(self, *exc):
        if connection.vendor == "postgresql":
            raw("SET CONSTRAINTS ALL IMMEDIATE")
            raw(f"ALTER TABLE journal_auditentry ENABLE TRIGGER {TRIGGER}")
            raw("SET CONSTRAINTS ALL DEFERRED")


def rewrite(entry_id: int, key: bytes, **changes) -> None:
    """Rewrite one entry's columns and recompute its hash and every later hash of its campaign
    with the app's own hash function, as someone with the database and the code would."""
    target = AuditEntry.objects.get(pk=entry_id)
    chain = list(AuditEntry.objects.filter(campaign_id=target.campaign_id).order_by("id"))
    previous = None
    with trigger_disabled():
        for entry in chain:
            if entry.pk < entry_id:
                previous = entry.hash
                continue
            if entry.pk == entry_id:
                for name, value in changes.items():
                    setattr(entry, name, value)
            entry.prev_hash = previous or ""
            entry.hash = audit.entry_hash(entry, key)
            raw(
                "UPDATE journal_auditentry SET after = %s, text_fr = %s, prev_hash = %s, "
                "hash = %s WHERE id = %s",
                [json.dumps(entry.after), entry.text_fr, entry.prev_hash, entry.hash, entry.pk],
            )
            previous = entry.hash


def delete_tail(n: int, campaign) -> list[int]:
    gone = [e.pk for e in entries(campaign)[-n:]]
    with trigger_disabled():
        raw("DELETE FROM journal_auditentry WHERE id >= %s", [gone[0]])
    return gone


PATTERNS = named_routes()
ADMIN_ROUTES = sorted(name for name in PATTERNS if name.startswith("admin:"))


# Every place a viewer could read about a character (tests of visibility everywhere).
FORMATS = ("csv", "json", "md")


def _text(response) -> str:
    assert response.status_code == 200, response.status_code
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def everything(client, world, character) -> dict[str, str]:
    """Every place the viewer could read about `character`, by name."""
    campaign = world.campaign
    places = {
        "home": client.get(reverse("campaign", args=[campaign.pk])),
        "history": client.get(reverse("history", args=[campaign.pk])),
        "sheet": client.get(reverse("character", args=[campaign.pk, character.pk])),
        "card": client.get(reverse("character_card", args=[campaign.pk, character.pk])),
    }
    for fmt in FORMATS:
        places[fmt] = client.get(reverse("history_export", args=[campaign.pk, fmt]))
    session = world.campaign.sessions.first()
    if session is not None:
        places["recap"] = client.get(reverse("session_recap", args=[campaign.pk, session.pk]))
    return {
        name: response.content.decode() if response.status_code == 403 else _text(response)
        for name, response in places.items()
    }
