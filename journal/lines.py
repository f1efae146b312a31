"""One line per action for the history: « Dégâts · Aveline : PV 14 → 12, dans le coma »,
in words a player uses; the action's entries (rolls, rule steps, per-field changes, with
their ids) stay one click away under it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC

from journal.audit import from_json
from journal.feed import typographic
from journal.models import AuditEntry, EntryKind
from journal.texts import field_name, in_language, value_text

# An action's name as the table says it: (French, English).
ACTION_LABELS = {
    "damage": ("Dégâts", "Damage"),
    "heal": ("Soins", "Healing"),
    "spend_flux": ("Flux dépensé", "Flux spent"),
    "restore_flux": ("Flux rendu", "Flux restored"),
    "check": ("Test", "Test"),
    "add_condition": ("État ajouté", "Condition added"),
    "remove_condition": ("État retiré", "Condition removed"),
    "fall": ("Chute", "Fall"),
    "fall_ill": ("Maladie", "Illness"),
    "remedy": ("Remède", "Remedy"),
    "stabilise": ("Stabilisation", "Stabilising"),
    "wake": ("Essai de réveil", "Waking try"),
    "end_coma": ("Fin du coma (MJ)", "Coma ended (GM)"),
    "revive": ("Retour à la vie (MJ)", "Brought back (GM)"),
    "clock": ("Le temps passe", "Time passes"),
    "end_scene": ("Fin de la scène", "End of the scene"),
    "night": ("La nuit passe", "The night passes"),
    "hour_rest": ("Une heure de repos", "An hour's rest"),
    "undo": ("Annulation", "Undo"),
    "character_create": ("Personnage créé", "Character created"),
    "character_update": ("Fiche modifiée", "Sheet edited"),
    "roll": ("Jet", "Roll"),
    "free_roll": ("Jet libre", "Free roll"),
    "roll_request": ("Jet demandé", "Roll asked"),
    "fight_start": ("Début du combat", "The fight begins"),
    "fight_end": ("Fin du combat", "The fight ends"),
    "fight_set_order": ("Ordre du combat", "Fight order"),
    "fight_spend": ("Combat", "Fight"),
    "fight_next_turn": ("Tour suivant", "Next turn"),
    "proposal": ("Proposition", "Proposal"),
    "proposal_approved": ("Proposition approuvée", "Proposal approved"),
    "proposal_refused": ("Proposition refusée", "Proposal refused"),
    "proposal_withdrawn": ("Proposition retirée", "Proposal withdrawn"),
    "campaign_settings_update": ("Réglages", "Settings"),
}
# The fields a line names, in this order: what a player reads on a sheet.
LINE_FIELDS = ("pv", "flux", "vital", "conditions", "sequels", "illness", "pv_max", "flux_max")


@dataclass
class Action:
    """One batch's entries on a page, newest first (as the page lists them)."""

    entries: list[AuditEntry] = field(default_factory=list)

    @property
    def first(self) -> AuditEntry:
        return self.entries[-1]  # the oldest: when the action began

    @property
    def changes(self) -> list[AuditEntry]:
        return [e for e in self.entries if e.kind == EntryKind.CHANGE]

    @property
    def undone(self) -> bool:
        """Every change taken back (journal/standing.py): the action did not happen."""
        return bool(getattr(self.first, "action_undone", False))

    @property
    def partly_undone(self) -> int:
        return sum(1 for e in self.entries if getattr(e, "undone_by", None))

    @property
    def gm_only(self) -> bool:
        return all(e.visibility == "gm" for e in self.entries)

    @property
    def keep_open(self) -> bool:
        # A sealed roll is read and revealed from its entry: shown without a click.
        return any(getattr(e, "seal_view", None) is not None for e in self.entries)

    @property
    def game_hour(self) -> str:
        """The game clock's hour the action began at (the day is the heading above it)."""
        moment = self.first.game_time
        return moment.astimezone(UTC).strftime("%H:%M") if moment else ""

    @property
    def text(self) -> str:
        return action_text(list(reversed(self.entries)))


def batches(entries: list[AuditEntry]) -> list[Action]:
    """Consecutive entries of one batch as one action (an action's entries are written
    together, so they follow each other in the log)."""
    actions: list[Action] = []
    for entry in entries:
        if not actions or actions[-1].entries[-1].batch != entry.batch:
            actions.append(Action())
        actions[-1].entries.append(entry)
    return actions


def _value(name: str, value) -> str:
    try:
        shown = value_text(from_json(name, value), name)
    except (KeyError, TypeError, ValueError, AttributeError):
        return str(value)
    return in_language(*shown)


def _moved(name: str, before, after) -> str:
    label = in_language(*field_name(name))
    if name == "vital":
        return _value(name, after)
    return f"{label} {_value(name, before)} → {_value(name, after)}"


def action_text(entries: list[AuditEntry]) -> str:
    """The line of one action (entries oldest first), in the page's language."""
    head = entries[0]
    label = in_language(*ACTION_LABELS.get(head.action, (head.action, head.action)))
    changes = [e for e in entries if e.kind == EntryKind.CHANGE]
    cause = next(
        (e.after for e in changes if e.field == "down_cause" and isinstance(e.after, str)), ""
    )
    if cause:
        label = f"{label} ({cause})"
    if head.action == "undo":
        targets = sorted({e.reverts_id for e in changes if e.reverts_id})
        if len(targets) > 2:
            label = f"{label} #{targets[0]}…#{targets[-1]}"
        else:
            label = f"{label} " + ", ".join(f"#{t}" for t in targets)
    # Per character, what moved from the first value to the last one.
    moved: dict[str, dict[str, list]] = {}
    for entry in changes:
        if entry.field in LINE_FIELDS:
            who = moved.setdefault(entry.character_name or "", {})
            if entry.field in who:
                who[entry.field][1] = entry.after
            else:
                who[entry.field] = [entry.before, entry.after]
    clock = [e for e in changes if e.field == "clock"]
    parts = []
    if clock:
        parts.append(_moved("clock", clock[0].before, clock[-1].after))
    for name, fields in moved.items():
        said = ", ".join(
            _moved(key, *fields[key])
            for key in LINE_FIELDS
            if key in fields and fields[key][0] != fields[key][1]
        )
        if said:
            parts.append(
                f"{name} : {said}" if in_language("fr", "en") == "fr" else f"{name}: {said}"
            )
    if not parts:
        # Nothing a sheet shows moved: the action's own sentence (a roll, a note, a setting).
        text = head.shown_text
        who = f"{head.character_name} · " if head.character_name else ""
        return typographic(f"{label} · {who}{text}")
    separator = " ; " if in_language("fr", "en") == "fr" else "; "
    return typographic(f"{label} · {separator.join(parts)}")
