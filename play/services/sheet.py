"""The sheet: creating and editing a character, on the log like any action (R1–R4, R10, R26)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db import transaction

from campaign.models import Campaign
from characters import state as rows_state
from characters.models import Character, Gender, Kind
from journal.texts import (
    CREATED,
)
from play.services.runner import Result, Table, on_character, run
from rules import engine

# ---------------------------------------------------------------------------------------------
# The sheet: creating and editing a character, on the log like any action (R1–R4, R10, R26)


class _Unchanged:
    def __repr__(self) -> str:
        return "UNCHANGED"


UNCHANGED: Any = _Unchanged()

# The rule that lets the GM set each number of the sheet by hand; names and notes have none.
SHEET_RULES = {
    "name": "",
    "gender": "",
    "stats": "R2",
    "pa": "R3",
    "actions": "R4",
    "reflexes": "R4",
    "pv_max": "R1",
    "flux_max": "R1",
}


def character_create(
    *,
    campaign_id: int,
    actor,
    name: str,
    pv_max: int,
    flux_max: int,
    pv: int | None = None,
    flux: int | None = None,
    kind: str = Kind.PC,
    gender: str = Gender.IEL,
    owner=None,
    stats: Mapping[str, int] | None = None,
    pa: int = 0,
    actions: int = 2,
    reflexes: int = 1,
    public_notes: str = "",
    gm_notes: str = "",
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    """A new character: one entry for the sheet, one per note, then its PV and Flux.

    The character starts at full PV and Flux; starting values below them (None: the maxima)
    are reached as an edit reaches them, so their rules follow (R10 at 0 PV or less, R26 at
    0 Flux). A statistic `stats` leaves out is at 0; `owner` is a user or None.
    Raises `ValidationError` for a sheet the model refuses.
    """
    wanted = {
        "name": name,
        "kind": kind,
        "gender": gender,
        "owner": owner.pk if owner is not None else None,
        "stats": dict(stats or {}),
        "pv_max": pv_max,
        "flux_max": flux_max,
        "pa": pa,
        "actions": actions,
        "reflexes": reflexes,
    }
    notes = {"public_notes": public_notes, "gm_notes": gm_notes}
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        wanted["stats"] = dict.fromkeys(campaign.stats, 0) | wanted["stats"]
        fields = {"owner_id" if k == "owner" else k: v for k, v in wanted.items()}
        row = Character(campaign=campaign, **fields, pv=pv_max, flux=flux_max)
        starting = {"pv": pv_max if pv is None else pv, "flux": flux_max if flux is None else flux}
        _validate(Character(campaign=campaign, **fields, **notes, **starting))
        row.save()
        key = str(row.pk)

        def operation(t: Table) -> engine.Outcome:
            at = t.state.clock
            steps = engine.Steps(t.state)
            steps.keep([engine.Change(key, CREATED, None, wanted, "", at, True)])
            steps.keep(
                engine.Change(key, field, "", text, "", at, True)
                for field, text in notes.items()
                if text
            )
            for field, target in starting.items():
                steps.then(
                    engine.set_resource(
                        steps.state, key, field, target, rng=t.rng, ruleset=t.ruleset
                    )
                )
            return steps.outcome()

        return run(
            campaign_id=campaign_id,
            character_ids=[row.pk],
            actor=actor,
            action="character_create",
            operation=operation,
            dice=dice,
            visibility=visibility,
        )


def character_update(
    *,
    character_id: int,
    actor,
    name: str = UNCHANGED,
    kind: str = UNCHANGED,
    gender: str = UNCHANGED,
    owner=UNCHANGED,
    stats: Mapping[str, int] = UNCHANGED,
    pv: int = UNCHANGED,
    pv_max: int = UNCHANGED,
    flux: int = UNCHANGED,
    flux_max: int = UNCHANGED,
    pa: int = UNCHANGED,
    actions: int = UNCHANGED,
    reflexes: int = UNCHANGED,
    public_notes: str = UNCHANGED,
    gm_notes: str = UNCHANGED,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    """The GM edits a sheet: each field given and different gets its entry (before, after).

    PV and Flux set by hand move through the engine as damage ignoring PA or healing, Flux
    spent or restored, so their rules follow (R10's Survie test, R15, R26's Exténué). A
    maximum lowered below the current value brings it down (R1). `owner` is a user or None.
    Raises `ValidationError` for a sheet the model refuses, `RuleError` when the rules
    refuse a move (a dead character's PV, R16).
    """
    given = {
        "name": name,
        "kind": kind,
        "gender": gender,
        "owner": owner,
        "stats": stats,
        "pv": pv,
        "pv_max": pv_max,
        "flux": flux,
        "flux_max": flux_max,
        "pa": pa,
        "actions": actions,
        "reflexes": reflexes,
        "public_notes": public_notes,
        "gm_notes": gm_notes,
    }
    wanted = {field: value for field, value in given.items() if value is not UNCHANGED}
    if "owner" in wanted:
        wanted["owner"] = owner.pk if owner is not None else None
    key = str(character_id)
    return on_character(
        character_id,
        "character_update",
        lambda t: _edit(t, key, wanted),
        actor=actor,
        dice=dice,
        visibility=visibility,
    )


def _edit(t: Table, key: str, wanted: dict) -> engine.Outcome:
    row, character = t.rows[key], t.state.character(key)
    candidate = Character(
        **{f.attname: getattr(row, f.attname) for f in Character._meta.concrete_fields}
    )
    for field, value in wanted.items():
        setattr(candidate, rows_state.SHEET_FIELDS.get(field, field), value)
    if "stats" in wanted:
        candidate.stats = {**row.stats, **wanted["stats"]}
    # Unless given, a current value follows its lowered maximum down (R1).
    candidate.pv = wanted.get("pv", min(row.pv, candidate.pv_max))
    candidate.flux = wanted.get("flux", min(row.flux, candidate.flux_max))
    _validate(candidate)

    at = t.state.clock
    steps = engine.Steps(t.state)
    steps.keep(
        engine.Change(key, field, rows_state.sheet_value(row, field), wanted[field], "", at, True)
        for field in rows_state.SHEET_FIELDS
        if field in wanted and wanted[field] != rows_state.sheet_value(row, field)
    )
    simple = {
        field: wanted[field]
        for field in ("name", "gender", "pa", "actions", "reflexes")
        if field in wanted
    }
    if "stats" in wanted:
        simple["stats"] = tuple((code, candidate.stats.get(code, 0)) for code, _ in character.stats)
    steps.by_hand(
        engine.Change(key, field, getattr(character, field), value, SHEET_RULES[field], at, True)
        for field, value in simple.items()
    )
    for field in ("pv", "flux"):
        maximum_field = f"{field}_max"
        maximum = getattr(candidate, maximum_field)
        set_maximum = engine.Change(
            key, maximum_field, getattr(character, maximum_field), maximum, "R1", at, True
        )
        target = getattr(candidate, field)
        if maximum >= set_maximum.before:  # raised: room first, then the value
            steps.by_hand([set_maximum])
            steps.then(
                engine.set_resource(steps.state, key, field, target, rng=t.rng, ruleset=t.ruleset)
            )
        else:  # lowered: the value first, so that it is never above its maximum
            if field in wanted:
                moved = engine.set_resource(
                    steps.state, key, field, target, rng=t.rng, ruleset=t.ruleset
                )
            else:
                moved = engine.bring_down(steps.state, key, field, target, ruleset=t.ruleset)
            steps.then(moved)
            steps.by_hand([set_maximum])
    return steps.outcome()


def _validate(candidate: Character) -> None:
    # The model's rules for a sheet (R1 maxima, stats, an owner who plays in the campaign);
    # forms check the same first, so this guards the other callers (admin, commands).
    candidate.full_clean(exclude=["campaign", "id"])
