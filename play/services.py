"""Every game action, applied through one path (DESIGN.md, "How a change flows").

A service opens one transaction, locks the campaign row (which orders the audit chain) and
the characters it touches, builds the engine's state from the rows, calls `rules.engine`
with a cryptographic RNG or the dice a person typed in (R9), writes the new state back and
one audit entry per roll and per change, and publishes them for delivery at commit.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.db import transaction

from campaign.models import Campaign
from characters import state as rows_state
from characters.models import Character
from journal import audit
from journal.events import publish
from journal.models import AuditEntry, EntryKind
from journal.texts import change_text, field_name, roll_text, value_text
from rules import engine

Operation = Callable[[engine.CampaignState, engine.Ruleset, object], engine.Outcome]


@dataclass(frozen=True)
class Result:
    outcome: engine.Outcome
    entries: list[AuditEntry]
    character_ids: list[int]


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
        rows = _locked_rows(campaign, character_ids)
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
            # Inside the transaction: delivered only once it commits (journal/events.py).
            publish(campaign.pk, changed, entries[-1].pk)
    return Result(outcome, entries, changed)


def _locked_rows(campaign: Campaign, character_ids=None) -> dict[str, Character]:
    """The campaign's characters (all, or those ids) locked for this transaction, keyed as
    the engine keys them, with what the engine's state needs loaded."""
    rows = (
        # of=("self",): PostgreSQL refuses FOR UPDATE on the nullable side of the outer join
        # that select_related("illness") adds.
        Character.objects.select_for_update(of=("self",))
        .filter(campaign=campaign)
        .order_by("pk")
        .select_related("illness")
        .prefetch_related("conditions", "sequels")
    )
    if character_ids is not None:
        rows = rows.filter(pk__in=list(character_ids))
    return {str(row.pk): row for row in rows}


class NothingToUndo(engine.RuleError):
    code = "nothing_to_undo"


@dataclass(frozen=True)
class UndoProblem:
    """Why reverting one entry would not simply restore what it replaced (FR, EN)."""

    entry_id: int
    fr: str
    en: str


class UndoConflict(Exception):
    """Later entries make the revert incoherent; nothing was written. The GM may force it."""

    def __init__(self, problems: list[UndoProblem]):
        super().__init__("; ".join(p.en for p in problems))
        self.problems = problems


def entry_undo(
    *, campaign_id: int, actor, entry_id: int, whole_action: bool = False, force: bool = False
) -> Result:
    """Revert a change entry (or every change of its action, newest first) with new entries.

    History is never rewritten: each revert is a new change entry whose `reverts` names the
    entry it undoes, so an undo can itself be undone. The current values are read from the
    rows and the old ones set through `engine.replay`. When the value has moved on since the
    entry, or the character has died since, `UndoConflict` explains it and nothing is written,
    unless `force`, which sets the old values anyway. Rolls stay: only changes are reverted.
    """
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        entry = AuditEntry.objects.get(pk=entry_id, campaign=campaign)
        if whole_action:
            targets = list(
                AuditEntry.objects.filter(
                    campaign=campaign, batch=entry.batch, kind=EntryKind.CHANGE
                ).order_by("-id")
            )
        else:
            targets = [entry] if entry.kind == EntryKind.CHANGE else []
        if not targets:
            raise NothingToUndo(
                "Un jet reste dans l'historique : annulez plutôt ses conséquences (les "
                "changements).",
                "A roll stays in the history: undo its consequences (the changes) instead.",
            )
        rows = _locked_rows(campaign, {e.character_id for e in targets if e.character_id})
        old = rows_state.campaign_state(campaign, rows.values())
        changes, problems = _undo_plan(old, targets)
        if problems and not force:
            raise UndoConflict(problems)
        new = engine.replay(old, changes)
        rows_state.save_state(campaign, rows, old, new)
        drafts = []
        for target, change in zip(targets, changes, strict=True):
            fr, en = change_text(change)
            drafts.append(
                audit.Draft(
                    kind=EntryKind.CHANGE,
                    action="undo",
                    rule_id=target.rule_id,
                    character=_row(rows, change.character_key),
                    game_time=campaign.clock,
                    field=change.field,
                    before=change.before,
                    after=change.after,
                    text_fr=f"Annulation de #{target.pk} · {fr}",
                    text_en=f"Undo of #{target.pk} · {en}",
                    visibility=target.visibility,
                    reverts=target,
                )
            )
        entries = audit.append(campaign=campaign, actor=actor, drafts=drafts)
        changed = sorted({e.character_id for e in entries if e.character_id is not None})
        publish(campaign.pk, changed, entries[-1].pk)  # delivered at commit (journal/events.py)
    return Result(engine.Outcome(state=new, changes=tuple(changes)), entries, changed)


def _undo_plan(state: engine.CampaignState, targets: list[AuditEntry]):
    """The changes that put back each entry's `before` (entries newest first), and the
    problems found on the way, each checked against the state the earlier reverts leave."""
    changes, problems = [], []
    already = set(AuditEntry.objects.filter(reverts__in=targets).values_list("reverts_id", "pk"))
    undone_by = dict(already)
    for entry in targets:
        key = str(entry.character_id) if entry.character_id is not None else None
        holder = state if key is None else state.character(key)
        current = getattr(holder, entry.field)
        set_to = audit.from_json(entry.field, entry.after)
        restore = audit.from_json(entry.field, entry.before)
        name = entry.character_name or "—"
        fr_field, en_field = field_name(entry.field)
        if entry.pk in undone_by:
            problems.append(
                UndoProblem(
                    entry.pk,
                    f"#{entry.pk} a déjà été annulée (#{undone_by[entry.pk]}).",
                    f"#{entry.pk} has already been undone (#{undone_by[entry.pk]}).",
                )
            )
        if (
            key is not None
            and holder.vital == engine.Vital.DEAD
            and not (entry.field == "vital" and set_to == engine.Vital.DEAD)
        ):
            problems.append(
                UndoProblem(
                    entry.pk,
                    f"{name} est mort·e depuis #{entry.pk} : rétablir {fr_field} ne le ou la "
                    "ramène pas à la vie (R16 : seul le MJ le peut, à part).",
                    f"{name} has died since #{entry.pk}: restoring {en_field} does not bring "
                    "them back (R16: only the GM can, separately).",
                )
            )
        elif current != set_to:
            now_fr, now_en = value_text(current)
            then_fr, then_en = value_text(set_to)
            old_fr, old_en = value_text(restore)
            problems.append(
                UndoProblem(
                    entry.pk,
                    f"{name} : {fr_field} vaut maintenant {now_fr}, plus {then_fr} comme après "
                    f"#{entry.pk} ; annuler le remettrait à {old_fr} et effacerait ce qui a "
                    "changé depuis.",
                    f"{name}: {en_field} is now {now_en}, no longer {then_en} as after "
                    f"#{entry.pk}; undoing would set it back to {old_en} and wipe out what "
                    "changed since.",
                )
            )
        change = engine.Change(key, entry.field, current, restore, entry.rule_id, state.clock, True)
        state = engine.replay(state, [change])
        changes.append(change)
    return changes, problems


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
