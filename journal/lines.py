"""One line per action for the history: « Dégâts · Aveline : PV 14 → 12, dans le coma »,
in words a player uses; the action's entries (rolls, rule steps, per-field changes, with
their ids) stay one click away under it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC

from campaign.models import Visibility
from journal.audit import from_json
from journal.feed import typographic
from journal.models import AuditEntry, EntryKind
from journal.texts import de, field_name, in_language, value_text
from rules.engine.text import CONDITION_TEXT
from rules.engine.words import IEL, agree, inclusive

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
    "fight_join": ("Arrivée dans le combat", "Joins the fight"),
    "fight_leave": ("Départ du combat", "Leaves the fight"),
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


def with_genders(entries: list[AuditEntry]) -> list[AuditEntry]:
    """`entries`, each carrying its character's grammatical gender (`character_gender`,
    one query for the page), so that a line about a named character agrees with it
    (« Aveline devient Gênée »); an undo's entries carry the line of the action they undo
    (`undone_line`, see `_with_undone`)."""
    from characters.models import Character

    ids = {e.character_id for e in entries if e.character_id}
    genders = dict(Character.objects.filter(pk__in=ids).values_list("pk", "gender"))
    for entry in entries:
        entry.character_gender = genders.get(entry.character_id, IEL)
    _with_undone(entries)
    return entries


def _with_undone(entries: list[AuditEntry]) -> None:
    """Each undo's entries carry `undone_line`: the line of the action it takes back (an undo
    of an undo: of the action it brings back), and `undoes_undo`. Three queries for a page,
    whatever its number of undos; none without one."""
    undos = [e for e in entries if e.action == "undo" and e.reverts_id]
    if not undos:
        return
    targets = dict(
        AuditEntry.objects.filter(pk__in={e.reverts_id for e in undos}).values_list(
            "pk", "reverts_id"
        )
    )
    # An undo of an undo brings back the action that undo had taken back.
    originals = dict(
        AuditEntry.objects.filter(pk__in={r for r in targets.values() if r}).values_list(
            "pk", "batch"
        )
    )
    plain = AuditEntry.objects.filter(pk__in=[t for t, r in targets.items() if not r])
    batch_of = dict(plain.values_list("pk", "batch"))
    for target, reverted in targets.items():
        if reverted in originals:
            batch_of[target] = originals[reverted]
    found: dict = {}
    for entry in AuditEntry.objects.filter(batch__in=set(batch_of.values())).order_by("id"):
        found.setdefault(entry.batch, []).append(entry)
    from characters.models import Character

    ids = {e.character_id for group in found.values() for e in group if e.character_id}
    genders = dict(Character.objects.filter(pk__in=ids).values_list("pk", "gender"))
    for group in found.values():
        for entry in group:
            entry.character_gender = genders.get(entry.character_id, IEL)
    lines: dict = {}
    for entry in undos:
        batch = batch_of.get(entry.reverts_id)
        # An undo anyone may read quotes only what anyone may read of the action it undoes.
        public = entry.visibility == Visibility.EVERYONE
        if (batch, public) not in lines:
            group = [
                e for e in found.get(batch, ()) if not public or e.visibility == Visibility.EVERYONE
            ]
            lines[(batch, public)] = action_text(group) if group else ""
        entry.undone_line = lines[(batch, public)]
        entry.undoes_undo = bool(targets.get(entry.reverts_id))


def _gender(entries: list[AuditEntry], moved: dict) -> str:
    """The grammatical gender a line agrees with: its one character's (see `with_genders`);
    the inclusive form when several characters moved or nobody gave it."""
    if len(moved) > 1:
        return IEL
    return next((g for e in entries if (g := getattr(e, "character_gender", None))), IEL)


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
        return typographic(_undo_sentence(entries, changes))
    # Per character, what moved from the first value to the last one.
    moved: dict[str, dict[str, list]] = {}
    for entry in changes:
        if entry.field in LINE_FIELDS:
            who = moved.setdefault(entry.character_name or "", {})
            if entry.field in who:
                who[entry.field][1] = entry.after
            else:
                who[entry.field] = [entry.before, entry.after]
    sentence = _sentence(head, entries, changes, moved)
    if sentence is not None:
        return typographic(agree(sentence, _gender(entries, moved)))
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


# ---------------------------------------------------------------------------------------------
# Sentences: the common actions said as a player says them.

PARTY_HEADS = {
    "night": ("La nuit passe", "The night passes"),
    "clock": ("Le temps passe", "Time passes"),
    "hour_rest": ("Une heure de repos", "An hour's rest"),
    "end_scene": ("La scène se termine", "The scene ends"),
}
# What a change of vital state says of a character, by the state reached.
VITAL_WORDS = {
    "borrowed_time": ("est en sursis", "is on borrowed time"),
    "coma": ("tombe dans le coma", "falls into a coma"),
    "stabilised": ("est stabilisé·e", "is stabilised"),
    "dead": ("meurt", "dies"),
}
_DAMAGE = re.compile(r"(\d+) dégâts")


def _duration(minutes: int) -> str:
    """« 8 h », « 10 min », « 1 h 30 »."""
    hours, rest = divmod(minutes, 60)
    if not hours:
        return f"{rest} min"
    return f"{hours} h" if not rest else f"{hours} h {rest:02d}"


def _vital_words(before, after) -> str:
    if after == "up":
        if before in ("coma", "stabilised"):
            return in_language("se réveille", "wakes up")
        return in_language("n’est plus en sursis", "is no longer on borrowed time")
    words = VITAL_WORDS.get(after)
    return in_language(*words) if words else ""


def _conditions(before, after) -> tuple[list[str], list[str]]:
    """The conditions gained and lost, by name."""
    old = [c.get("kind") for c in before or () if isinstance(c, dict)]
    new = [c.get("kind") for c in after or () if isinstance(c, dict)]

    def name(kind):
        names = CONDITION_TEXT.get(kind)
        # The inclusive form (« Gêné·e »), which the line agrees with the character's gender.
        return in_language(inclusive(names[0]), names[1]) if names else str(kind)

    return [name(k) for k in new if k not in old], [name(k) for k in old if k not in new]


def _condition_words(gained: list[str], lost: list[str]) -> list[str]:
    words = [in_language(f"devient {n}", f"becomes {n}") for n in gained]
    words += [in_language(f"n’est plus {n}", f"is no longer {n}") for n in lost]
    return words


def _signed(amount: int, unit: str) -> str:
    return f"{'+' if amount > 0 else '−'}{abs(amount)} {unit}"


def _rolls(entries) -> list[dict]:
    return [e.roll for e in entries if e.kind == EntryKind.ROLL and isinstance(e.roll, dict)]


def _test_words(roll: dict) -> str:
    """« réussit un test de Survie (VAI) (12 contre 10) »."""
    what = roll.get("skill") or roll.get("stat") or ""
    if roll.get("skill") and roll.get("stat"):
        what = f"{roll['skill']} ({roll['stat']})"
    total, difficulty = roll.get("total"), roll.get("difficulty")
    score = f" ({total} contre {difficulty})" if total is not None else ""
    score_en = f" ({total} against {difficulty})" if total is not None else ""
    a = "an" if what[:1].upper() in "AEIOU" else "a"
    if roll.get("success"):
        return in_language(
            f"réussit un test {de(what)}{score}", f"passes {a} {what} test{score_en}"
        )
    return in_language(f"rate un test {de(what)}{score}", f"fails {a} {what} test{score_en}")


def _moves(fields: dict, *, deltas: bool) -> list[str]:
    """What moved for one character: « PV 14 → 12 » (or « +2 PV » with `deltas`), its vital
    state and conditions in words, its sequels and illness."""
    said = []
    for key in ("pv", "flux"):
        if key not in fields or fields[key][0] == fields[key][1]:
            continue
        before, after = fields[key]
        if deltas and isinstance(before, int) and isinstance(after, int):
            said.append(_signed(after - before, "PV" if key == "pv" else "Flux"))
        else:
            said.append(_moved(key, before, after))
    if "vital" in fields and fields["vital"][0] != fields["vital"][1]:
        words = _vital_words(*fields["vital"])
        if words:
            said.append(words)
    if "conditions" in fields:
        said.extend(_condition_words(*_conditions(*fields["conditions"])))
    if "sequels" in fields:
        before, after = fields["sequels"]
        old = [s for s in before or () if isinstance(s, dict)]
        new = [s for s in after or () if isinstance(s, dict) and s not in old]
        if new:
            shown = _value("sequels", new)
            said.append(in_language(f"garde une séquelle ({shown})", f"keeps a sequel ({shown})"))
    for key in ("illness", "pv_max", "flux_max"):
        if key in fields and fields[key][0] != fields[key][1]:
            said.append(_moved(key, *fields[key]))
    return said


def _head_of(line: str) -> str:
    """A line's head, before what moved: « La nuit passe (8 h) », « Isaure prend 3 dégâts »."""
    for colon in (" : ", ": "):
        if colon in line:
            return line.split(colon, 1)[0]
    return line


def _undo_sentence(entries, changes) -> str:
    """« Le MJ annule « La nuit passe (8 h) » : 11 changements défaits »; an undo of an undo
    « rétablit » the action; a small undo says what came back (« PV 11 → 14 »)."""
    head = next((e for e in entries if getattr(e, "undone_line", None)), entries[0])
    again = bool(getattr(head, "undoes_undo", False))
    undone = _head_of(getattr(head, "undone_line", "") or "")
    targets = sorted({e.reverts_id for e in changes if e.reverts_id})
    if undone:
        what = in_language(f"« {undone} »", f"“{undone}”")
    elif targets:
        what = in_language(f"l’action de #{targets[0]}", f"the action of #{targets[0]}")
    else:
        what = in_language("une action", "an action")
    verb = in_language("rétablit" if again else "annule", "restores" if again else "undoes")
    sentence = in_language(f"Le MJ {verb} {what}", f"The GM {verb} {what}")
    count = len(changes)
    if not count:
        return sentence
    colon = " : " if in_language("fr", "en") == "fr" else ": "
    if count <= 3 and all(e.field in ("pv", "flux") for e in changes):
        # What came back, per character: « Isaure PV 11 → 14 ».
        said = [f"{e.character_name} {_moved(e.field, e.before, e.after)}".strip() for e in changes]
        return sentence + colon + ", ".join(said)
    s = "s" if count > 1 else ""
    if again:
        return (
            sentence
            + colon
            + in_language(f"{count} changement{s} refait{s}", f"{count} change{s} made again")
        )
    return (
        sentence
        + colon
        + in_language(f"{count} changement{s} défait{s}", f"{count} change{s} taken back")
    )


def _sentence(head, entries, changes, moved) -> str | None:
    """The action as a sentence, or None when it has none of its own (the label's form)."""
    colon = " : " if in_language("fr", "en") == "fr" else ": "
    action = head.action
    if action in PARTY_HEADS:
        label = in_language(*PARTY_HEADS[action])
        clock = [e for e in changes if e.field == "clock"]
        start, end = (clock[0].before, clock[-1].after) if clock else (None, None)
        try:
            seconds = (from_json("clock", end) - from_json("clock", start)).total_seconds()
            minutes = int(seconds // 60)
        except (TypeError, ValueError, AttributeError, KeyError):
            minutes = 0
        if minutes > 0 and action in ("night", "clock"):
            label = f"{label} ({_duration(minutes)})"
        people = []
        for name, fields in moved.items():
            said = _moves(fields, deltas=True)
            coma = (
                any(e.rule_id == "R11" and e.character_name == name for e in changes)
                and "vital" not in fields
            )
            if coma:
                said.append(in_language("reste dans le coma", "stays in a coma"))
            if said and name:
                people.append(f"{name} " + ", ".join(said))
        if not people:
            return label
        return label + colon + ", ".join(people)
    if action.startswith("fight_"):
        return _fight_sentence(action, entries, changes, moved)
    if action == "free_roll":
        return _free_roll_sentence(head, entries)
    if action == "character_create":
        return _created_sentence(changes)
    if action.startswith("proposal"):
        return _proposal_sentence(action, changes)
    if action == "campaign_settings_update":
        return _settings_sentence(changes)
    # The character the action is about: its first entry's, or the one whose values moved
    # (a stabilisation's roll is the healer's, who may be nobody of the campaign).
    named = [other for other in moved if other]
    name = head.character_name or (named[0] if len(named) == 1 else "")
    if not name or any(other != name for other in named):
        return None
    fields = moved.get(name, {})
    # The action's tests (a roll with a difficulty), not its other dice (a sequel's D6).
    rolls = [r for r in _rolls(entries) if "success" in r]
    if action == "damage":
        cause = next(
            (e.after for e in changes if e.field == "down_cause" and isinstance(e.after, str)), ""
        )
        steps = " ".join(s.get("fr", "") for e in entries for s in (e.steps or ()))
        found = _DAMAGE.search(steps)
        pv = fields.get("pv")
        if found:
            amount = int(found.group(1))
            subject = in_language(f"{name} prend {amount} dégâts", f"{name} takes {amount} damage")
        elif pv and isinstance(pv[0], int) and isinstance(pv[1], int):
            lost = pv[0] - pv[1]
            subject = in_language(f"{name} perd {lost} PV", f"{name} loses {lost} PV")
        else:
            subject = in_language(f"{name} prend des dégâts", f"{name} takes damage")
        if cause:
            subject = f"{subject} ({cause})"
        said = _moves(fields, deltas=False)
        survie = [r for r in rolls if r.get("skill") == "Survie"]
        if survie:
            said.insert(
                1 if said else 0,
                in_language(
                    "Survie réussie" if survie[-1].get("success") else "Survie ratée",
                    "Survie passed" if survie[-1].get("success") else "Survie failed",
                ),
            )
        return subject + (
            colon + ", ".join(said) if said else in_language(", sans effet", ", to no effect")
        )
    if action in ("heal", "spend_flux", "restore_flux") and fields:
        key = "pv" if action == "heal" else "flux"
        if key in fields and all(isinstance(v, int) for v in fields[key]):
            amount = abs(fields[key][1] - fields[key][0])
            unit = "PV" if key == "pv" else "Flux"
            verb = {
                "heal": ("récupère", "recovers"),
                "spend_flux": ("dépense", "spends"),
                "restore_flux": ("récupère", "recovers"),
            }[action]
            subject = in_language(
                f"{name} {verb[0]} {amount} {unit}", f"{name} {verb[1]} {amount} {unit}"
            )
            return subject + colon + ", ".join(_moves(fields, deltas=False))
        return None
    if action in ("add_condition", "remove_condition") and "conditions" in fields:
        words = _condition_words(*_conditions(*fields["conditions"]))
        rest = {k: v for k, v in fields.items() if k != "conditions"}
        said = _moves(rest, deltas=False)
        return f"{name} " + ", ".join(words + said) if words else None
    if action == "check" and rolls:
        return f"{name} " + _test_words(rolls[-1])
    if action == "fall":
        fell = next((r for r in _rolls(entries) if r.get("purpose") == "fall_damage"), None)
        amount = fell.get("total") if fell else None
        subject = in_language(f"{name} fait une chute", f"{name} falls")
        said = _moves(fields, deltas=False)
        if isinstance(amount, int):
            said.insert(0, in_language(f"{amount} dégâts", f"{amount} damage"))
        return subject + (colon + ", ".join(said) if said else "")
    if action in ("fall_ill", "remedy"):
        return _illness_sentence(action, name, fields, rolls, colon)
    if action == "character_update" and changes:
        said = [_moved(e.field, e.before, e.after) for e in changes if e.field != "version"]
        subject = in_language(f"La fiche {de(name)} change", f"{name}’s sheet changes")
        return subject + (colon + ", ".join(said) if said else "")
    if action in ("stabilise", "wake"):
        said = _moves(fields, deltas=False)
        if action == "stabilise":
            done = fields.get("vital", (None, None))[1] == "stabilised"
            subject = in_language(
                f"{name} est stabilisé·e" if done else f"La stabilisation {de(name)} échoue",
                f"{name} is stabilised" if done else f"Stabilising {name} fails",
            )
            said = [s for s in said if s != _vital_words(None, "stabilised")]
        else:
            done = fields.get("vital", (None, None))[1] == "up"
            subject = in_language(
                f"{name} se réveille" if done else f"{name} ne se réveille pas",
                f"{name} wakes up" if done else f"{name} does not wake up",
            )
            said = [s for s in said if s != _vital_words("coma", "up")]
        if rolls:
            total, difficulty = rolls[-1].get("total"), rolls[-1].get("difficulty")
            if total is not None:
                subject += in_language(
                    f" ({total} contre {difficulty})", f" ({total} against {difficulty})"
                )
        return subject + (colon + ", ".join(said) if said else "")
    return None


# ---------------------------------------------------------------------------------------------
# Fights and rarer actions, said as the table says them.

_ORDER = re.compile(r"(?:Début du combat|Ordre du combat|; ordre) : (.+?)(?: ;|$)")
# R33: one who arrives or leaves mid-fight, said first in the fight's change.
_MOVE = re.compile(r"^(?:R\d+ · )?(.+? (?:quitte|rejoint) le combat(?: \(place \d+\))?) ;")
_MOVE_EN = re.compile(r"^(?:R\d+ · )?(.+? (?:leaves|joins) the fight(?: \(place \d+\))?);")
_TURN = re.compile(r"au tour de : (.+?)(?: \(|$)", re.IGNORECASE)


def _fight_change(changes):
    return next((e for e in changes if e.field == "fight"), None)


def _fight_sentence(action, entries, changes, moved) -> str | None:
    """« Le combat commence : Isaure, Gaspard », « Gaspard joue (manche 1) »,
    « Isaure dépense une action (1 restante) », « Le combat se termine (manche 2) »."""
    colon = " : " if in_language("fr", "en") == "fr" else ": "
    fight = _fight_change(changes)
    text = fight.text_fr if fight is not None else ""
    steps = [s for e in entries for s in (e.steps or ()) if isinstance(s, dict)]
    before = fight.before if fight is not None and isinstance(fight.before, dict) else {}
    after = fight.after if fight is not None and isinstance(fight.after, dict) else {}
    # What else moved: a Surpris on or off, someone leaving.
    others = []
    for who, fields in moved.items():
        said = _moves(fields, deltas=False)
        if said and who:
            others.append(f"{who} " + ", ".join(said))
    turn = _TURN.search(text)
    whose = turn.group(1) if turn else ""
    if action == "fight_start":
        order = _ORDER.search(text)
        sentence = in_language("Le combat commence", "The fight begins")
        if order:
            sentence += colon + order.group(1)
        return sentence + "".join(f" ; {o}" if colon == " : " else f"; {o}" for o in others)
    if action == "fight_spend":
        spent = next((s for s in steps if "dépense" in s.get("fr", "")), None)
        if spent is None:
            return None
        round_ = after.get("round")
        sentence = in_language(spent.get("fr", ""), spent.get("en", ""))
        if round_:
            sentence += in_language(f", manche {round_}", f", round {round_}")
        return sentence
    if action == "fight_next_turn":
        round_ = after.get("round")
        if not whose or not round_:
            return None
        # « Gaspard joue », not « au tour de Le Vicomte »: a name may begin with an article.
        if before.get("round") != round_:
            sentence = in_language(
                f"La manche {round_} commence : {whose} joue en premier",
                f"Round {round_} begins: {whose} plays first",
            )
        else:
            sentence = in_language(
                f"{whose} joue (manche {round_})", f"{whose} plays (round {round_})"
            )
        return sentence + "".join(f", {o}" for o in others)
    move_fr = _MOVE.search(text)
    move_en = _MOVE_EN.search(fight.text_en if fight is not None else "")
    if action in ("fight_join", "fight_leave"):
        round_ = after.get("round")
        if move_fr is None or not round_:
            return None
        sentence = in_language(
            f"{move_fr.group(1)}, manche {round_}",
            f"{move_en.group(1) if move_en else move_fr.group(1)}, round {round_}",
        )
        if whose:
            sentence += in_language(f" ({whose} joue)", f" ({whose} plays)")
        return sentence
    if action == "fight_set_order":
        order = _ORDER.search(text)
        if not order:
            return None
        sentence = in_language(
            f"Le MJ change l’ordre du combat : {order.group(1)}",
            f"The GM changes the fight’s order: {order.group(1)}",
        )
        if whose:
            sentence += in_language(f" ({whose} joue)", f" ({whose} plays)")
        moves = [
            in_language(s.get("fr", ""), s.get("en", ""))
            for s in steps
            if "quitte le combat" in s.get("fr", "") or "rejoint le combat" in s.get("fr", "")
        ]
        if not moves and move_fr is not None:
            moves = [in_language(move_fr.group(1), move_en.group(1) if move_en else "")]
        return sentence + "".join(f", {m}" for m in moves)
    if action == "fight_end":
        round_ = before.get("round")
        sentence = in_language("Le combat se termine", "The fight ends")
        if round_:
            sentence += in_language(f" (manche {round_})", f" (round {round_})")
        return sentence + "".join(f", {o}" for o in others)
    return None


def _free_roll_sentence(head, entries) -> str | None:
    """« Isaure lance 2d6+1 : 3 + 3 + 1 = 7 »; without a character, who asked for it."""
    roll = next((e for e in entries if e.kind == EntryKind.ROLL and isinstance(e.roll, dict)), None)
    if roll is None:
        return None
    expression = roll.roll.get("expression", "")
    text = roll.shown_text
    detail = text.split("→ ", 1)[1] if "→ " in text else str(roll.roll.get("total", ""))
    total = str(roll.roll.get("total", ""))
    if detail == f"{total} = {total}":
        detail = total  # one die: « 58 », not « 58 = 58 »
    who = roll.character_name or head.actor_name or in_language("Le serveur", "The server")
    colon = " : " if in_language("fr", "en") == "fr" else ": "
    return in_language(f"{who} lance {expression}", f"{who} rolls {expression}") + colon + detail


def _created_sentence(changes) -> str | None:
    """« Garde rejoint la campagne (PJ) : PV max 8, Flux max 2 »."""
    created = next((e for e in changes if e.field == "character"), None)
    if created is None or not isinstance(created.after, dict):
        return None
    sheet = created.after
    name = sheet.get("name") or created.character_name
    kind = {"pc": ("PJ", "PC"), "npc": ("PNJ", "NPC")}.get(sheet.get("kind"), ("", ""))
    shown = f" ({in_language(*kind)})" if kind[0] else ""
    colon = " : " if in_language("fr", "en") == "fr" else ": "
    maxima = in_language(
        f"PV max {sheet.get('pv_max')}, Flux max {sheet.get('flux_max')}",
        f"max PV {sheet.get('pv_max')}, max Flux {sheet.get('flux_max')}",
    )
    return (
        in_language(f"{name} rejoint la campagne", f"{name} joins the campaign")
        + shown
        + colon
        + maxima
    )


def _illness_sentence(action, name, fields, rolls, colon) -> str:
    """« Gaspard rate un test de Constitution (VAI) (8 contre 10) : tombe malade (fièvre)
    pour 4 jours », « Gaspard prend un remède : la maladie passe de 4 j à 0 j »."""
    before, after = fields.get("illness", (None, None))
    if action == "remedy":
        subject = in_language(f"{name} prend un remède", f"{name} takes a remedy")
        if isinstance(before, dict) and isinstance(after, dict):
            old, new = before.get("days_left"), after.get("days_left")
            if new == 0:
                return (
                    subject
                    + colon
                    + in_language(
                        f"la maladie passe de {old} j à son dernier jour",
                        f"the illness goes from {old} d to its last day",
                    )
                )
            return (
                subject
                + colon
                + in_language(
                    f"la maladie passe de {old} j à {new} j",
                    f"the illness goes from {old} d to {new} d",
                )
            )
        return subject
    test = [r for r in rolls if r.get("skill") == "Constitution"] or rolls
    subject = f"{name} " + _test_words(test[-1]) if test else name
    if isinstance(after, dict) and after != before:
        days = after.get("days_left")
        called = f" ({after['name']})" if after.get("name") else ""
        s = "s" if isinstance(days, int) and days > 1 else ""
        ill = in_language(
            f"tombe malade{called} pour {days} jour{s}", f"falls ill{called} for {days} day{s}"
        )
        if days == 0:
            ill = in_language(
                f"tombe malade{called} jusqu’au matin", f"falls ill{called} until the morning"
            )
        return subject + colon + ill if test else f"{name} {ill}"
    return subject + colon + in_language("ne tombe pas malade", "does not fall ill")


_PROPOSAL = re.compile(r"#(\d+) (?:de|retirée par) (\S+)")


def _proposal_sentence(action, changes) -> str | None:
    """« paul propose pour Isaure « Dégâts : 2 » — « rat » », « Le MJ refuse la proposition #1
    de paul (« Dégâts : 2 ») — « non » », « paul retire sa proposition #3 (« … ») »."""
    entry = next((e for e in changes if e.field == "proposal"), None)
    if entry is None or " : " not in entry.text_fr:
        return None
    head, what_fr = entry.text_fr.split(" : ", 1)
    what_en = entry.text_en.split(": ", 1)[1] if ": " in entry.text_en else what_fr
    found = _PROPOSAL.search(head)
    if not found:
        return None
    number, player = found.groups()
    # The proposal, then the note or the GM's reply after « — »: quoted apart.
    what_fr, _, note_fr = what_fr.partition(" — ")
    what_en, _, note_en = what_en.partition(" — ")
    what = in_language(f"« {what_fr} »", f"“{what_en}”")
    note = in_language(f" — {note_fr}" if note_fr else "", f" — {note_en}" if note_en else "")
    name = entry.character_name
    if action == "proposal":
        return in_language(f"{player} propose pour {name} ", f"{player} proposes for {name} ") + (
            what + note
        )
    if action == "proposal_refused":
        said = in_language(
            f"Le MJ refuse la proposition #{number} {de(player)}",
            f"The GM refuses {player}’s proposal #{number}",
        )
    elif action == "proposal_approved":
        edited = "modifiée" in head
        said = in_language(
            f"Le MJ {'modifie puis approuve' if edited else 'approuve'} la proposition "
            f"#{number} {de(player)}",
            f"The GM {'edits then approves' if edited else 'approves'} {player}’s proposal "
            f"#{number}",
        )
    elif action == "proposal_withdrawn":
        said = in_language(
            f"{player} retire sa proposition #{number}",
            f"{player} withdraws their proposal #{number}",
        )
    else:
        return None
    return f"{said} ({what}){note}"


def _settings_sentence(changes) -> str | None:
    """« Le MJ change le réglage « … » : Noms et état de santé → Noms, état de santé… »."""
    said = []
    for entry in changes:
        fr, en = entry.text_fr, entry.text_en
        if not fr.startswith("Réglage ") or not en.startswith("Setting "):
            return None
        said.append(
            in_language(
                f"Le MJ change le réglage {fr.removeprefix('Réglage ')}",
                f"The GM changes the setting {en.removeprefix('Setting ')}",
            )
        )
    return " ; ".join(said) if said else None
