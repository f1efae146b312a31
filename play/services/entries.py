"""The audit entries an outcome writes: one per roll and per change, named for people."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from campaign.models import Visibility
from characters.models import Character
from journal import audit
from journal.models import EntryKind
from journal.texts import (
    CREATED,
    change_text,
    roll_text,
)
from rules import engine

# ---------------------------------------------------------------------------------------------
# Entries


def entry_drafts(action: str, outcome: engine.Outcome, rows: dict[str, Character]):
    """One draft per check, roll and change, in the order they happened; the action's rule
    steps (`_keep_steps`) on the first of them."""
    people, names = people_named(outcome.changes), fighter_names(outcome.changes, rows)
    drafts = []
    for event in outcome.events:
        if isinstance(event, engine.CheckResult):
            drafts.append(_check_draft(action, event, rows))
        elif isinstance(event, engine.Roll):
            drafts.append(_roll_draft(action, event, rows))
        else:
            drafts.append(_change_draft(action, event, rows, people, names))
    _keep_steps(drafts, outcome)
    return drafts


def _steps_of(outcome: engine.Outcome) -> list[dict]:
    """Every line of reasoning the action showed (a storey shift, a halving, PA ignored, a
    modifier, an odd die counting 0…), as the audit log keeps them."""
    return [{"rule_id": line.rule_id, "fr": line.fr, "en": line.en} for line in outcome.lines]


def _keep_steps(drafts: list[audit.Draft], outcome: engine.Outcome) -> None:
    """The steps go on the first entry that has the action's own visibility (not one the GM
    alone sees whatever the action's, like the GM's notes), else on the first: they are part
    of its hash, and the history and exports show them with it."""
    if not drafts or not outcome.lines:
        return
    holder = next((d for d in drafts if d.visibility is None), drafts[0])
    holder.steps = _steps_of(outcome)


def fighter_names(changes, rows: dict[str, Character]) -> dict[str, str]:
    """The names of the characters the fight changes hold, by key."""
    fights = [fight for c in changes if c.field == "fight" for fight in (c.before, c.after)]
    return fight_names(fights, rows)


def fight_names(fights, rows: dict[str, Character]) -> dict[str, str]:
    """The names of the characters in `fights` (engine Fights or None), by key: the locked
    rows', else read (an undo of a fight change locks no character)."""
    keys = {key for fight in fights if fight is not None for key in fight.order}
    names = {key: rows[key].name for key in keys if key in rows}
    missing = [int(key) for key in keys - names.keys()]
    if missing:
        found = Character.objects.filter(pk__in=missing).values_list("pk", "name")
        names |= {str(pk): name for pk, name in found}
    return names


def people_named(changes) -> dict[int, str]:
    """The user names an owner change or a creation mentions, by id."""
    ids = set()
    for change in changes:
        if change.field == "owner":
            ids |= {change.before, change.after}
        elif change.field == CREATED:
            ids.add(change.after["owner"])
    return user_names(ids)


def user_names(ids) -> dict[int, str]:
    ids = {pk for pk in ids if pk is not None}
    if not ids:
        return {}
    return {user.pk: user.get_username() for user in get_user_model().objects.filter(pk__in=ids)}


def row_of(rows, key):
    return rows.get(key) if key is not None else None


def _check_draft(action, check, rows) -> audit.Draft:
    return audit.Draft(
        kind=EntryKind.ROLL,
        action=action,
        rule_id=check.rule_id,
        character=row_of(rows, check.character_key),
        game_time=check.at,
        roll={
            "expression": str(check.roll.expr),
            "dice": list(check.roll.dice),
            "stat": check.stat,
            "skill": check.skill,
            "stat_value": check.stat_value,
            "natural": check.natural,
            "die_value": check.die_value,
            "die_rule": check.die_rule,
            "modifiers": [
                {"label": m.label, "label_en": m.en, "value": m.value, "rule_id": m.rule_id}
                for m in check.modifiers
            ],
            "total": check.total,
            "difficulty": check.difficulty,
            "success": check.success,
            "extreme": check.extreme,
            "passing_faces": check.passing_faces,
        },
        typed_in=check.typed_in,
        text_fr=f"{check.rule_id} · {check.text_fr}",
        text_en=f"{check.rule_id} · {check.text_en}",
    )


def _roll_draft(action, roll, rows) -> audit.Draft:
    fr, en = roll_text(roll)
    return audit.Draft(
        kind=EntryKind.ROLL,
        action=action,
        rule_id=roll.rule_id or "",
        character=row_of(rows, roll.character_key),
        game_time=roll.at,
        roll={
            "expression": str(roll.expr),
            "dice": list(roll.dice),
            "total": roll.total,
            "purpose": roll.purpose,
        },
        typed_in=roll.typed_in,
        text_fr=fr,
        text_en=en,
    )


def _change_draft(action, change, rows, people, names=None) -> audit.Draft:
    fr, en = change_text(change, people=people, names=names)
    return audit.Draft(
        kind=EntryKind.CHANGE,
        action=action,
        rule_id=change.rule_id,
        character=row_of(rows, change.character_key),
        game_time=change.at,
        field=change.field,
        before=change.before,
        after=change.after,
        text_fr=fr,
        text_en=en,
        # The GM's notes are the GM's, whatever the action's visibility.
        visibility=Visibility.GM_ONLY if change.field == "gm_notes" else None,
    )
