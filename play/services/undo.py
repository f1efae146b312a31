"""Undoing an entry: the change set back, on the log as a change of its own."""

from __future__ import annotations

from dataclasses import dataclass

from characters import state as rows_state
from characters.models import Kind
from journal import audit, standing
from journal.models import AuditEntry, EntryKind
from journal.texts import (
    CREATED,
    PROPOSAL_FIELD,
    change_text,
    field_name,
    value_text,
)
from play.services.asking import REQUEST_FIELD
from play.services.entries import fight_names, fighter_names, people_named, row_of, user_names
from play.services.runner import Result, Table, run
from play.services.settings import SETTING_PREFIX
from rules import engine
from rules.engine.words import agree

# ---------------------------------------------------------------------------------------------
# Undo


class NothingToUndo(engine.RuleError):
    code = "nothing_to_undo"


class NotUndoable(engine.RuleError):
    """A change that cannot be put back as it was (a creation, an owner who left)."""

    code = "not_undoable"


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
    # Entries never change once written, so they may be read before the campaign's lock.
    entry = AuditEntry.objects.get(pk=entry_id, campaign_id=campaign_id)
    if whole_action:
        # A roll request (R34) is not a change of the game: the rest of its action is undone.
        targets = list(
            AuditEntry.objects.filter(
                campaign_id=campaign_id, batch=entry.batch, kind=EntryKind.CHANGE
            )
            .exclude(field=REQUEST_FIELD)
            .order_by("-id")
        )
        # What an earlier undo took back already is not undone twice.
        undone = standing.undone_by(campaign_id)
        targets = [t for t in targets if t.pk not in undone] or targets
    else:
        if entry.field == REQUEST_FIELD:
            raise NotUndoable(
                f"#{entry.pk} est une demande de jet (R34) : annulez-la depuis la carte tant "
                "qu’elle attend ; un jet lancé reste dans l’historique.",
                f"#{entry.pk} is a roll request (R34): cancel it from the card while it waits; "
                "a roll made stays in the history.",
            )
        targets = [entry] if entry.kind == EntryKind.CHANGE else []
    if not targets:
        raise NothingToUndo(
            "Un jet reste dans l’historique : annulez plutôt ses conséquences (les changements).",
            "A roll stays in the history: undo its consequences (the changes) instead.",
        )
    setting = next((t for t in targets if t.field.startswith(SETTING_PREFIX)), None)
    if setting is not None:
        raise NotUndoable(
            f"#{setting.pk} change un réglage de la campagne : changez-le à nouveau dans les "
            "réglages.",
            f"#{setting.pk} changes a campaign setting: change it again in the settings.",
        )
    proposal = next((t for t in targets if t.field == PROPOSAL_FIELD), None)
    if proposal is not None:
        raise NotUndoable(
            f"#{proposal.pk} note une proposition d’un joueur : elle ne change rien à annuler "
            "(annulez plutôt ce que son approbation a changé).",
            f"#{proposal.pk} records a player's proposal: it changes nothing to undo (undo "
            "what its approval changed instead).",
        )
    created = next((t for t in targets if t.field == CREATED), None)
    if created is not None:
        raise NotUndoable(
            f"#{created.pk} crée le personnage : une création ne s’annule pas (modifiez la "
            "fiche à la place).",
            f"#{created.pk} creates the character: a creation cannot be undone (edit the "
            "sheet instead).",
        )

    def operation(t: Table) -> engine.Outcome:
        changes, problems = _undo_plan(t, targets)
        if problems and not force:
            raise UndoConflict(problems)
        state = engine.replay(
            t.state, [c for c in changes if c.field not in rows_state.SHEET_FIELDS]
        )
        return engine.Outcome(state=state, changes=tuple(changes), events=tuple(changes))

    def drafts(action, outcome, rows) -> list[audit.Draft]:
        people, names = people_named(outcome.changes), fighter_names(outcome.changes, rows)
        written = []
        for target, change in zip(targets, outcome.changes, strict=True):
            fr, en = change_text(change, people=people, names=names)
            written.append(
                audit.Draft(
                    kind=EntryKind.CHANGE,
                    action=action,
                    rule_id=target.rule_id,
                    character=row_of(rows, change.character_key),
                    game_time=change.at,
                    field=change.field,
                    before=change.before,
                    after=change.after,
                    text_fr=f"Annulation de #{target.pk} · {fr}",
                    text_en=f"Undo of #{target.pk} · {en}",
                    visibility=target.visibility,
                    reverts=target,
                )
            )
        return written

    return run(
        campaign_id=campaign_id,
        character_ids={e.character_id for e in targets if e.character_id},
        actor=actor,
        action="undo",
        operation=operation,
        drafts=drafts,
    )


# Fields a character's death leaves meaningful to restore: the sheet's words and its owner.
_UNDO_WHEN_DEAD = {"name", *rows_state.SHEET_FIELDS}


def _undo_plan(t: Table, targets: list[AuditEntry]):
    """The changes that put back each entry's `before` (entries newest first), and the
    problems found on the way, each checked against the state the earlier reverts leave."""
    state = t.state
    changes, problems = [], []
    # Undone means taken back by an undo that still stands: an undo undone brings it back.
    undone_by = standing.undone_by(targets[0].campaign_id)
    sheet = {}  # (key, field) -> value, for the fields the engine's state does not hold
    for entry in targets:
        key = str(entry.character_id) if entry.character_id is not None else None
        holder = state if key is None else state.character(key)
        if entry.field in rows_state.SHEET_FIELDS:
            current = sheet.get(
                (key, entry.field), rows_state.sheet_value(t.rows[key], entry.field)
            )
        else:
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
            and entry.field not in _UNDO_WHEN_DEAD
            and not (entry.field == "vital" and set_to == engine.Vital.DEAD)
        ):
            problems.append(
                UndoProblem(
                    entry.pk,
                    agree(f"{name} est mort·e", holder.gender)
                    + f" depuis #{entry.pk} : rétablir {fr_field} ne le ou la "
                    "ramène pas à la vie (R16 : seul le MJ le peut, à part).",
                    f"{name} has died since #{entry.pk}: restoring {en_field} does not bring "
                    "them back (R16: only the GM can, separately).",
                )
            )
        elif current != set_to:
            people = user_names({current, set_to, restore}) if entry.field == "owner" else {}
            fighters = (
                fight_names((current, set_to, restore), t.rows) if entry.field == "fight" else {}
            )
            now_fr, now_en = value_text(current, entry.field, people, fighters)
            then_fr, then_en = value_text(set_to, entry.field, people, fighters)
            old_fr, old_en = value_text(restore, entry.field, people, fighters)
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
        if entry.field in rows_state.SHEET_FIELDS:
            sheet[(key, entry.field)] = restore
        else:
            state = engine.replay(state, [change])
        changes.append(change)
    for key in {key for key, _field in sheet}:
        row = t.rows[key]
        kind = sheet.get((key, "kind"), row.kind)
        _check_owner(t, key, kind, sheet.get((key, "owner"), row.owner_id))
    return changes, problems


def _check_owner(t: Table, key: str, kind: str, owner_id: int | None) -> None:
    """What the sheet form checks, for an undo that gives a character back to someone."""
    if owner_id is None:
        return
    name = t.rows[key].name
    if kind == Kind.NPC:
        raise NotUndoable(
            f"{name} serait un PNJ confié à un·e joueur·euse : annulez aussi l’autre "
            "changement (l’action entière).",
            f"{name} would be an NPC given to a player: undo the other change too (the "
            "whole action).",
        )
    if not t.campaign.memberships.filter(user_id=owner_id).exists():
        raise NotUndoable(
            f"La personne qui jouait {name} n’est plus dans la campagne : rendez-lui le "
            "personnage en modifiant la fiche, une fois revenue.",
            f"The person who played {name} is no longer in the campaign: give the "
            "character back by editing the sheet once they are back.",
        )
