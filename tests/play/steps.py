"""Helpers for tests that play actions: run one through its form and its service, read the log.

Audit entries are summarised as plain tuples so a test can write out exactly what it expects:
("roll", rule id, character id, dice, total, success) and
("change", rule id, character id or None for the campaign, field, before, after).
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.urls import reverse

from campaign.models import Campaign
from characters.models import Character, Condition, Illness
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


HTMX = {"HTTP_HX_REQUEST": "true"}


def from_dashboard(world) -> dict:
    """htmx's headers for a request from the GM's dashboard (its answer redraws its parts)."""
    dashboard = reverse("campaign", args=[world.campaign.pk])
    return {**HTMX, "HTTP_HX_CURRENT_URL": f"http://testserver{dashboard}"}


def body(world, name, **overrides) -> dict:
    return {"visibility": "everyone", **CASES[name].data(world), **overrides}


def prepared(world, name) -> str:
    CASES[name].setup(world)
    return url_for(world, name)


def _nothing(world):
    pass


@dataclass(frozen=True)
class Case:
    data: Callable  # world -> POST body (without visibility)
    setup: Callable = _nothing  # world -> None: the state the action needs
    changed: Callable = lambda world: None  # world -> None: asserts the rows after
    party: bool = False
    extra: dict = field(default_factory=dict)


def _pc(world) -> Character:
    return Character.objects.get(pk=world.pc.pk)


def _free_roll_logged(world, total):
    entry = AuditEntry.objects.filter(action="free_roll").latest("id")
    assert (entry.character_id, entry.roll["total"]) == (world.pc.pk, total)


def _campaign(world) -> Campaign:
    return Campaign.objects.get(pk=world.campaign.pk)


def _in_coma(world):
    put(world.pc, pv=-2, vital="coma", next_coma_hour=T0)


def _check(expected):
    def check(world):
        pc = _pc(world)
        assert {name: getattr(pc, name) for name in expected} == expected

    return check


CASES = {
    "damage": Case(lambda w: {"amount": "5"}, changed=_check({"pv": 8})),
    "heal": Case(lambda w: {"amount": "2"}, changed=_check({"pv": 13})),
    "spend_flux": Case(lambda w: {"amount": "2"}, changed=_check({"flux": 5})),
    "restore_flux": Case(lambda w: {"amount": "2"}, changed=_check({"flux": 9})),
    "check": Case(
        lambda w: {"stat": "VAI", "skill": "Survie", "difficulty": "10", "dice": "14"},
        changed=lambda w: AuditEntry.objects.get(kind="roll").roll["total"] == 15,
    ),
    "add_condition": Case(
        lambda w: {"kind": "gene"},
        changed=lambda w: list(Condition.objects.values_list("kind", flat=True)) == ["gene"],
    ),
    "remove_condition": Case(
        lambda w: {"kind": "gene"},
        setup=lambda w: put(w.pc, conditions=[("gene", "gm")]),
        changed=lambda w: not Condition.objects.exists(),
    ),
    "fall": Case(
        lambda w: {"storeys": "1", "surface": "normal", "soften": "none", "dice": "4"},
        changed=_check({"pv": 7}),
    ),
    "fall_ill": Case(
        lambda w: {"severity": "2", "name": "toux", "dice": "15, 2"},
        changed=lambda w: Illness.objects.get().days_left == 1,
    ),
    "remedy": Case(
        lambda w: {"dice": "2"},
        setup=lambda w: Illness.objects.create(
            character=w.pc, severity=2, days_left=3, started_at=T0
        ),
        changed=lambda w: Illness.objects.get().days_left == 1,
    ),
    "stabilise": Case(
        lambda w: {"healer": str(w.other_pc.pk), "difficulty": "10", "dice": "12"},
        setup=_in_coma,
        changed=_check({"vital": "stabilised"}),
    ),
    "wake": Case(
        lambda w: {"sequel_cause": "une toux sanglante", "dice": "15, 2"},
        setup=lambda w: put(w.pc, pv=-2, vital="stabilised", stabilised_at=T0),
        changed=_check({"vital": "up", "pv": 1}),
    ),
    "end_coma": Case(lambda w: {}, setup=_in_coma, changed=_check({"vital": "up", "pv": 1})),
    "revive": Case(
        lambda w: {"pv": "3"},
        setup=lambda w: put(w.pc, pv=-4, vital="dead"),
        changed=_check({"vital": "up", "pv": 3}),
    ),
    "clock": Case(
        lambda w: {"minutes": "60"},
        party=True,
        changed=lambda w: _campaign(w).clock.hour == 9,
    ),
    "end_scene": Case(lambda w: {}, party=True, changed=lambda w: _campaign(w).scene == 2),
    "night": Case(
        lambda w: {"hours": "8", "clinic": [str(w.pc.pk)], "dice": "1"},
        party=True,
        changed=_check({"pv": 14, "flux": 10}),  # 11 + 4 + 1 → 14 (max 14); 7 + 4 → 10 (max)
    ),
    "hour_rest": Case(
        lambda w: {"dice": "3"},
        party=True,
        changed=lambda w: _campaign(w).pending_hour_rest == 3,
    ),
    "free_roll": Case(
        lambda w: {"expression": "2d6+3", "character": str(w.pc.pk), "dice": "4, 2"},
        party=True,
        changed=lambda w: _free_roll_logged(w, 9),
    ),
    "share_hour_rest": Case(
        lambda w: {f"pv_{w.pc.pk}": "1", f"flux_{w.pc.pk}": "2"},
        setup=lambda w: Campaign.objects.filter(pk=w.campaign.pk).update(pending_hour_rest=3),
        party=True,
        changed=_check({"pv": 12, "flux": 9}),
    ),
}


def url_for(world, name, character=None) -> str:
    if name in PARTY_ACTIONS:
        return reverse("party_action", args=[world.campaign.pk, name])
    character = character or world.pc
    return reverse("character_action", args=[world.campaign.pk, character.pk, name])
