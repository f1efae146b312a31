"""Helpers for tests that play actions: run one through its form and its service, read the log.

Audit entries are summarised as plain tuples so a test can write out exactly what it expects:
("roll", rule id, character id, dice, total, success) and
("change", rule id, character id or None for the campaign, field, before, after).
"""

from datetime import UTC, datetime, timedelta

from campaign.models import Campaign
from characters.models import Character, Condition
from journal.models import AuditEntry
from play.actions import ACTIONS, PARTY_ACTIONS

# The campaign fixture's clock: day 1, 08:00 (campaign.models.default_clock).
T0 = datetime(2000, 1, 1, 8, 0, tzinfo=UTC)


def at(hours: float = 0, minutes: float = 0) -> datetime:
    """A game time `hours` and `minutes` after day 1, 08:00."""
    return T0 + timedelta(hours=hours, minutes=minutes)


def iso(moment: datetime) -> str:
    """A game time as the audit log stores it in before/after (journal.audit.to_json)."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def summary(entry: AuditEntry) -> tuple:
    if entry.kind == "roll":
        roll = entry.roll
        return ("roll", entry.rule_id, entry.character_id, roll["dice"], roll["total"]) + (
            (roll["success"],) if "success" in roll else ()
        )
    return ("change", entry.rule_id, entry.character_id, entry.field, entry.before, entry.after)


def log(campaign) -> list[tuple]:
    """Every entry of the campaign, oldest first, summarised."""
    return [summary(e) for e in AuditEntry.objects.filter(campaign=campaign).order_by("id")]


def run(campaign, actor, action, data=None, *, character=None, typed=None, visibility=None):
    """Play `action` the way the dashboard does: its form, then the action's service.

    `typed` (dice typed in, R9) and `visibility` override the form's. The result's entries
    must be exactly the campaign's new log rows, in order.
    """
    campaign = Campaign.objects.get(pk=campaign.pk)  # the clock and counters as stored now
    if character is not None:
        character = Character.objects.get(pk=character.pk)
        spec, target = ACTIONS[action], {"character_id": character.pk}
    else:
        spec, target = PARTY_ACTIONS[action], {"campaign_id": campaign.pk}
    body = {"visibility": "everyone", **(data or {})}
    form = spec.form(body, campaign=campaign, character=character)
    assert form.is_valid(), form.errors
    arguments = form.service_arguments()
    if typed is not None:
        arguments["dice"] = typed
    if visibility is not None:
        arguments["visibility"] = visibility
    before = AuditEntry.objects.filter(campaign=campaign).count()
    result = spec.service(actor=actor, **target, **arguments)
    written = list(AuditEntry.objects.filter(campaign=campaign).order_by("id"))[before:]
    assert [e.pk for e in written] == [e.pk for e in result.entries]
    return result


def put(character, *, conditions=(), **fields) -> Character:
    """Set a character's row fields (and add conditions as (kind, cause)), then reload it."""
    if fields:
        Character.objects.filter(pk=character.pk).update(**fields)
    for kind, cause in conditions:
        Condition.objects.create(character_id=character.pk, kind=kind, cause=cause, started_at=T0)
    return Character.objects.get(pk=character.pk)


def conditions_of(character) -> list[tuple[str, str]]:
    return list(Condition.objects.filter(character=character).values_list("kind", "cause"))
