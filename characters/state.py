"""Between rows and the engine: build `rules.engine` states from rows, write new states back.

Only services call this, inside their transaction, on rows they have locked.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from campaign.models import Campaign
from characters.models import Character, Condition, Illness, Sequel
from rules import engine


def ruleset_for(campaign: Campaign) -> engine.Ruleset:
    return engine.Ruleset(
        stats=tuple(campaign.stats),
        default_difficulty=campaign.default_difficulty,
        natural_extremes=campaign.natural_extremes,
        hour_rests_per_half_day=campaign.hour_rests_per_half_day,
        coma_delay=timedelta(minutes=campaign.coma_delay_minutes),
        automatic_wake_tries=campaign.automatic_wake_tries,
        poor_night_is_proper=campaign.poor_night_is_proper,
        morning_hour=campaign.morning_hour,
        damage_ends_stabilisation=campaign.damage_ends_stabilisation,
        surprise_ends_after_first_round=campaign.surprise_ends_after_first_round,
        round_seconds=campaign.round_seconds,
    )


def character_state(row: Character, stats: Iterable[str]) -> engine.CharacterState:
    """The engine's view of a row; conditions, sequels and illness must be prefetched."""
    # A missing reverse one-to-one raises an AttributeError subclass: getattr's default works.
    illness = getattr(row, "illness", None)
    return engine.CharacterState(
        key=str(row.pk),
        name=row.name,
        gender=row.gender,
        pv=row.pv,
        pv_max=row.pv_max,
        flux=row.flux,
        flux_max=row.flux_max,
        stats={code: row.stats.get(code, 0) for code in stats},
        pa=row.pa,
        actions=row.actions,
        reflexes=row.reflexes,
        vital=engine.Vital(row.vital),
        coma_due=row.coma_due,
        next_coma_hour=row.next_coma_hour,
        stabilised_at=row.stabilised_at,
        last_wake_try=row.last_wake_try,
        wake_tries_from=row.wake_tries_from,
        down_cause=row.down_cause,
        conditions=tuple(
            engine.Condition(engine.ConditionKind(c.kind), c.cause) for c in row.conditions.all()
        ),
        sequels=tuple(
            engine.Sequel(stat=s.stat, cause=s.cause, d6=s.d6, at=s.gained_at)
            for s in row.sequels.all()
        ),
        illness=(
            engine.Illness(engine.Severity(illness.severity), illness.days_left, illness.name)
            if illness is not None
            else None
        ),
        sleep_deprived=row.sleep_deprived,
    )


def campaign_state(campaign: Campaign, rows: Iterable[Character]) -> engine.CampaignState:
    return engine.CampaignState(
        clock=campaign.clock,
        characters=tuple(character_state(row, campaign.stats) for row in rows),
        scene=campaign.scene,
        hour_rests_used=campaign.hour_rests_used,
        pending_hour_rest=campaign.pending_hour_rest,
        fight=None if campaign.fight is None else engine.Fight.from_json(campaign.fight),
    )


CHARACTER_FIELDS = (
    "name",
    "gender",
    "pv",
    "pv_max",
    "flux",
    "flux_max",
    "pa",
    "actions",
    "reflexes",
    "coma_due",
    "next_coma_hour",
    "stabilised_at",
    "last_wake_try",
    "wake_tries_from",
    "down_cause",
    "sleep_deprived",
)
CAMPAIGN_FIELDS = ("clock", "scene", "hour_rests_used", "pending_hour_rest")

# What a sheet holds beyond the engine's state, by the name a change gives it: its row field.
SHEET_FIELDS = {
    "kind": "kind",
    "owner": "owner_id",
    "public_notes": "public_notes",
    "gm_notes": "gm_notes",
    "in_play": "in_play",  # an NPC out of play (play/services/table.py)
}


def sheet_value(row: Character, field: str):
    return getattr(row, SHEET_FIELDS[field])


def save_state(
    campaign: Campaign,
    rows: dict[str, Character],
    old: engine.CampaignState,
    new: engine.CampaignState,
    *,
    sheet: Iterable[engine.Change] = (),
) -> None:
    """Write what differs between `old` and `new` to the rows (and only that), with the
    `sheet` changes: `engine.Change`s of `SHEET_FIELDS`, which the engine's state lacks."""
    changed = [name for name in CAMPAIGN_FIELDS if getattr(old, name) != getattr(new, name)]
    if old.fight != new.fight:
        changed.append("fight")
    for name in changed:
        value = getattr(new, name)
        setattr(campaign, name, value.to_json() if name == "fight" and value else value)
    if changed:
        campaign.save(update_fields=changed)
    sheets: dict[str, dict[str, object]] = {}
    for change in sheet:
        sheets.setdefault(change.character_key, {})[change.field] = change.after
    before = {c.key: c for c in old.characters}
    for after in new.characters:
        if after == before[after.key] and after.key not in sheets:
            continue
        row = rows[after.key]
        _save_character(row, before[after.key], after, new.clock, sheets.get(after.key, {}))


def _save_character(
    row: Character,
    old: engine.CharacterState,
    new: engine.CharacterState,
    clock,
    sheet: dict[str, object],
) -> None:
    fields = [name for name in CHARACTER_FIELDS if getattr(old, name) != getattr(new, name)]
    for name in fields:
        setattr(row, name, getattr(new, name))
    if old.vital != new.vital:
        row.vital = new.vital.value
        fields.append("vital")
    if old.stats != new.stats:
        # Codes the campaign no longer lists stay as they were: the engine never saw them.
        row.stats = {**row.stats, **dict(new.stats)}
        fields.append("stats")
    for name, value in sheet.items():
        setattr(row, SHEET_FIELDS[name], value)
        fields.append(name)
    # Saved even when only related rows change: the save bumps the card's version.
    row.save(update_fields=fields)
    if old.conditions != new.conditions:
        _sync_conditions(row, new.conditions, clock)
    if old.sequels != new.sequels:
        _sync_sequels(row, new.sequels)
    if old.illness != new.illness:
        _sync_illness(row, new.illness, clock)


def _sync_conditions(row: Character, wanted: tuple[engine.Condition, ...], clock) -> None:
    # Keep the rows still wanted (so "since" stays true), drop the others, add the new ones.
    remaining = list(wanted)
    for existing in row.conditions.all():
        key = engine.Condition(engine.ConditionKind(existing.kind), existing.cause)
        if key in remaining:
            remaining.remove(key)
        else:
            existing.delete()
    Condition.objects.bulk_create(
        Condition(character=row, kind=c.kind.value, cause=c.cause, started_at=clock)
        for c in remaining
    )


def _sync_sequels(row: Character, wanted: tuple[engine.Sequel, ...]) -> None:
    existing = list(row.sequels.all())
    for index, sequel in enumerate(wanted):
        if index < len(existing):
            current = existing[index]
            if (current.stat, current.cause, current.d6, current.gained_at) != (
                sequel.stat,
                sequel.cause,
                sequel.d6,
                sequel.at,
            ):
                current.stat, current.cause, current.d6 = sequel.stat, sequel.cause, sequel.d6
                current.gained_at = sequel.at
                current.save()
        else:
            Sequel.objects.create(
                character=row,
                stat=sequel.stat,
                cause=sequel.cause,
                d6=sequel.d6,
                gained_at=sequel.at,
            )
    for extra in existing[len(wanted) :]:
        extra.delete()


def _sync_illness(row: Character, wanted: engine.Illness | None, clock) -> None:
    if wanted is None:
        Illness.objects.filter(character=row).delete()
        return
    Illness.objects.update_or_create(
        character=row,
        defaults={
            "name": wanted.name,
            "severity": int(wanted.severity),
            "days_left": wanted.days_left,
        },
        create_defaults={
            "name": wanted.name,
            "severity": int(wanted.severity),
            "days_left": wanted.days_left,
            "started_at": clock,
        },
    )
