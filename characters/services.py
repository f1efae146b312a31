"""Every game action, applied through one path (DESIGN.md, "How a change flows").

A service opens one transaction, locks the campaign row (which orders the audit chain) and
the characters it touches, builds the engine's state from the rows, calls `rules.engine`
with a cryptographic RNG or the dice a person typed in (R9), writes the new state back and
one audit entry per roll and per change, then publishes after commit.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.db import transaction

from campaign import audit
from campaign.live import publish
from campaign.models import AuditEntry, Campaign, EntryKind
from characters import state as rows_state
from characters.models import Character
from characters.texts import change_text, roll_text
from rules import engine

Operation = Callable[[engine.CampaignState, engine.Ruleset, object], engine.Outcome]


@dataclass(frozen=True)
class Result:
    outcome: engine.Outcome
    entries: list[AuditEntry]
    character_ids: list[int]

    @property
    def explanation_fr(self) -> str:
        return self.outcome.explanation_fr

    @property
    def explanation_en(self) -> str:
        return self.outcome.explanation_en


class UnusedTypedDice(engine.RuleError):
    """More dice were typed in than the action rolled: refused rather than silently dropped."""

    code = "unused_typed_dice"


def dice_source(typed: Iterable[int] | None):
    """The server's cryptographic RNG, or the values a person typed in from physical dice."""
    values = tuple(typed or ())
    return engine.ScriptedDice(values, typed_in=True) if values else random.SystemRandom()


def apply(
    *,
    campaign_id: int,
    actor,
    action: str,
    operation: Operation,
    character_ids: Iterable[int] | None = None,
    typed: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    """Run one engine operation on the campaign's characters (all of them when None).

    Raises `engine.RuleError` with nothing written when the rules refuse the action.
    """
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        rows_qs = (
            # of=("self",): PostgreSQL refuses FOR UPDATE on the nullable side of the
            # outer join that select_related("illness") adds.
            Character.objects.select_for_update(of=("self",))
            .filter(campaign=campaign)
            .order_by("pk")
            .select_related("illness")
            .prefetch_related("conditions", "sequels")
        )
        if character_ids is not None:
            rows_qs = rows_qs.filter(pk__in=list(character_ids))
        rows = {str(row.pk): row for row in rows_qs}
        old = rows_state.campaign_state(campaign, rows.values())
        dice = dice_source(typed)
        outcome = operation(old, rows_state.ruleset_for(campaign), dice)
        unused = getattr(dice, "remaining", ())
        if unused:
            values = ", ".join(map(str, unused))
            raise UnusedTypedDice(
                f"Ces valeurs de dés saisies n'ont pas servi : {values}. Rien n'a été appliqué.",
                f"These typed-in dice values were not used: {values}. Nothing was applied.",
            )
        rows_state.save_state(campaign, rows, old, outcome.state)
        entries = audit.append(
            campaign=campaign,
            actor=actor,
            drafts=_drafts(action, outcome, rows),
            visibility=visibility,
        )
        changed = sorted({e.character_id for e in entries if e.character_id is not None})
        if entries:
            last_id = entries[-1].pk
            transaction.on_commit(lambda: publish(campaign.pk, changed, last_id))
    return Result(outcome, entries, changed)


def _drafts(action: str, outcome: engine.Outcome, rows: dict[str, Character]):
    """One draft per check, roll and change, in the order they happened."""
    drafts = []
    for event in outcome.events:
        if isinstance(event, engine.CheckResult):
            drafts.append(_check_draft(action, event, rows))
        elif isinstance(event, engine.Roll):
            drafts.append(_roll_draft(action, event, rows))
        else:
            drafts.append(_change_draft(action, event, rows))
    return drafts


def _row(rows, key):
    return rows.get(key) if key is not None else None


def _check_draft(action, check, rows) -> audit.Draft:
    return audit.Draft(
        kind=EntryKind.ROLL,
        action=action,
        rule_id=check.rule_id,
        character=_row(rows, check.character_key),
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
        character=_row(rows, roll.character_key),
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


def _change_draft(action, change, rows) -> audit.Draft:
    fr, en = change_text(change)
    return audit.Draft(
        kind=EntryKind.CHANGE,
        action=action,
        rule_id=change.rule_id,
        character=_row(rows, change.character_key),
        game_time=change.at,
        field=change.field,
        before=change.before,
        after=change.after,
        text_fr=fr,
        text_en=en,
    )
