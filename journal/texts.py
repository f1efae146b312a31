"""Words for audit entries: one sentence per change and per plain roll, in French and English.

Checks explain themselves (rules.engine.text.check_text); these cover the rest.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.translation import get_language, gettext

from rules import engine
from rules.engine import text as engine_text

# An undo of this many changes or more asks once before it goes (static/confirm.js); a smaller
# one never asks: undoing it was the safety net.
CONFIRM_UNDO_FROM = 20


def undo_question(changes: int) -> str | None:
    """The question an undo of `changes` changes asks first, or None when it asks nothing."""
    if changes < CONFIRM_UNDO_FROM:
        return None
    return gettext("Undo the whole action: %(n)s changes at once?") % {"n": changes}


def current_language() -> str:
    """ "en" or "fr": the engine and the log speak both; the page shows the viewer's."""
    return "en" if get_language() == "en" else "fr"


def in_language(fr: str, en: str) -> str:
    return en if current_language() == "en" else fr


MONTHS_FR = (
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
)
MONTHS_EN = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def real_date(moment: datetime, lang: str, *, article: bool = True) -> str:
    """ "le 4 décembre 2026 à 08 h 35" as a French reader writes it (1er for the first of
    the month); "4 December 2026 at 08:35" in English. In the server's time zone. Without
    `article`, the French leaves out « le » for a sentence that has its own."""
    local = timezone.localtime(moment)
    if lang == "en":
        return f"{local.day} {MONTHS_EN[local.month - 1]} {local.year} at {local:%H:%M}"
    day = "1er" if local.day == 1 else str(local.day)
    said = f"{day} {MONTHS_FR[local.month - 1]} {local.year} à {local:%H} h {local:%M}"
    return f"le {said}" if article else said


def rule_message(error, *, gm: bool = True) -> str:
    """A `rules.engine.RuleError`'s message in the viewer's language. The GM reads the rule
    that refused the state ("… (R13)"); a player (`gm` false) reads the sentence without
    any rule id: the ids are the GM's references."""
    message = in_language(error.message_fr, error.message_en)
    if not gm:
        return engine_text.without_rule_ids(message)
    rule_id = getattr(error, "rule_id", "")
    if rule_id and rule_id not in message:
        message = f"{message} ({rule_id})"
    return message


def explanation(outcome) -> tuple[str, ...]:
    """An engine Outcome's lines ("R10 · Isaure — Survie (VAI) : …") in the viewer's language."""
    return outcome.explanation_lines(current_language())


# First letters after which French elides "de" to "d’": the vowels, accents stripped first.
_ELIDING = frozenset("aeiouœæ")


def de(name: str) -> str:
    """French "de" before a name: "d’alice", "d’Émile", "de bruno".

    Only a written vowel elides: whether an initial h is mute ("d’Hélène", "de Hugo") or a y
    is a vowel ("d’Yves", "de Yann") depends on the name's sound, which spelling cannot tell;
    "de" is never wrong enough to misread there.
    """
    first = unicodedata.normalize("NFD", name[:1])[:1].lower()
    return f"d’{name}" if first in _ELIDING else f"de {name}"


def rolled_by(typed_in: bool, who: str) -> tuple[str, str]:
    """Who rolled (R9), `(fr, en)`: a person typing in a die, or the server at someone's
    request; the clock's rolls have nobody behind them (`who` empty)."""
    if typed_in:
        who = who or "—"
        return f"saisi par {who} depuis un vrai dé", f"typed in by {who} from a physical die"
    if not who:
        return "par le serveur, comme le veulent les règles", "by the server, as the rules require"
    return f"par le serveur, à la demande {de(who)}", f"by the server, asked by {who}"


FIELD_NAMES = {
    "pv": ("PV", "PV"),
    "pv_max": ("PV max", "max PV"),
    "flux": ("Flux", "Flux"),
    "flux_max": ("Flux max", "max Flux"),
    "pa": ("PA", "PA"),
    "actions": ("actions", "actions"),
    "reflexes": ("réflexes", "reflexes"),
    "vital": ("état vital", "vital state"),
    "conditions": ("états", "conditions"),
    "sequels": ("séquelles", "sequels"),
    "illness": ("maladie", "illness"),
    "sleep_deprived": ("privation de sommeil", "sleep deprivation"),
    "coma_due": ("coma prévu", "coma due"),
    "next_coma_hour": ("prochaine heure de coma", "next coma hour"),
    "stabilised_at": ("stabilisé à", "stabilised at"),
    "last_wake_try": ("dernier essai de réveil", "last waking try"),
    "wake_tries_from": ("essais de réveil comptés depuis", "waking tries counted from"),
    "fight": ("combat", "fight"),
    "down_cause": ("cause de la mise à terre", "cause of going down"),
    "clock": ("horloge", "clock"),
    "scene": ("scène", "scene"),
    "hour_rests_used": ("heures de repos prises", "hour rests taken"),
    "pending_hour_rest": ("heure de repos à répartir", "hour rest to share"),
    "name": ("nom", "name"),
    "kind": ("type", "kind"),
    "gender": ("genre grammatical", "grammatical gender"),
    "owner": ("joueur ou joueuse", "player"),
    "stats": ("statistiques", "statistics"),
    "public_notes": ("notes publiques", "public notes"),
    "gm_notes": ("notes du MJ", "GM's notes"),
    "in_play": ("en jeu", "in play"),
    "character": ("fiche", "sheet"),
    "proposal": ("proposition", "proposal"),
    # A roll request's entries (R34) and a sealed roll's reveal: the exports name them too.
    "request": ("demande de jet", "roll request"),
    "seal": ("révélation d’un jet scellé", "sealed roll revealed"),
}
SETTING_WORDS = ("réglage", "setting")
IN_PLAY = "in_play"  # an NPC out of play and back: its own sentence (change_text)
CREATED = "character"  # the field of a character's creation entry: the new sheet in `after`
# The field of a player's proposal's entries (play/proposals.py): made, refused, approved.
# They change no state; only the GM and the character's owner see them (journal/visibility.py).
PROPOSAL_FIELD = "proposal"
# The `field` of a roll request's entries (R34: made, answered, cancelled, lapsed).
REQUEST_FIELD = "request"
KIND_TEXT = {"pc": ("PJ", "PC"), "npc": ("PNJ", "NPC")}
NOTES = ("public_notes", "gm_notes")
NOTE_SHOWN = 60  # characters of a note the log's sentence quotes; before/after keep it all


def game_time(value: datetime) -> tuple[str, str]:
    return engine_text.moment_text(value)


def _value(value: Any, lang: int) -> str:
    if value is None or value == () or value == "":
        return "—"
    if isinstance(value, bool):
        return ("oui", "yes")[lang] if value else ("non", "no")[lang]
    if isinstance(value, datetime):
        return game_time(value)[lang]
    if isinstance(value, engine_text.Vital):
        return engine_text.VITAL_TEXT[value][lang]
    if isinstance(value, engine_text.Condition):
        return engine_text.CONDITION_TEXT[value.kind][lang]
    if hasattr(value, "severity") and hasattr(value, "days_left"):
        severity = engine_text.SEVERITY_TEXT[value.severity][lang]
        days = ("j", "d")[lang]
        return f"{severity} ({value.days_left} {days})"
    if isinstance(value, engine.Fight):
        return ("manche %s", "round %s")[lang] % value.round
    if hasattr(value, "stat") and hasattr(value, "cause"):
        return f"−1 {value.stat}"
    if isinstance(value, tuple):
        return ", ".join(_value(item, lang) for item in value) or "—"
    if isinstance(value, int) and lang == 0:
        return engine_text.number_fr(value)  # "PV 10 → −16": the minus sign, not a hyphen
    return str(value)


def _shown(field: str, value: Any, lang: int, people: dict[int, str]) -> str:
    """A value of `field` as people read it: the sheet's own fields, then engine values."""
    if field == "kind" and value in KIND_TEXT:
        return KIND_TEXT[value][lang]
    if field == "owner" and value is not None:
        return people.get(value, f"#{value}")
    if field in NOTES and value:
        quoted = value if len(value) <= NOTE_SHOWN else f"{value[:NOTE_SHOWN].rstrip()}…"
        return f"« {quoted} »" if lang == 0 else f"“{quoted}”"
    if field == "stats" and value:
        return ", ".join(f"{code} {number}" for code, number in value)
    return _value(value, lang)


def value_text(value: Any, field: str = "", people=None, names=None) -> tuple[str, str]:
    """A value (of `field`, when it needs it) as people read it, in French and English;
    `people` names the user ids an owner holds, `names` the character keys a fight holds."""
    if field == "fight" and value is not None:
        return fight_summary(value, names or {})
    return _shown(field, value, 0, people or {}), _shown(field, value, 1, people or {})


def fight_summary(fight, names: dict[str, str]) -> tuple[str, str]:
    """ "manche 2, au tour de : Gaspard (Isaure 2 actions, 0 réflexe ; Gaspard 1 action,
    1 réflexe)". A round is a "manche" at a French table; "au tour de : X" never has to elide
    before a name that starts with an article ("Le Vicomte")."""
    label = {key: names.get(key) or f"#{key}" for key in fight.order}
    who = label[fight.current]
    left = [(label[key], _counts(*fight.left(key))) for key in fight.order]
    return (
        f"manche {fight.round}, au tour de : {who} ("
        + " ; ".join(f"{name} {fr}" for name, (fr, _) in left)
        + ")",
        f"round {fight.round}, {who}’s turn ("
        + "; ".join(f"{name} {en}" for name, (_, en) in left)
        + ")",
    )


def field_name(field: str) -> tuple[str, str]:
    if field.startswith("setting."):
        name = field.removeprefix("setting.")
        return f"{SETTING_WORDS[0]} {name}", f"{SETTING_WORDS[1]} {name}"
    return FIELD_NAMES.get(field, (field, field))


def change_text(change, people=None, names=None) -> tuple[str, str]:
    """ "R10 · PV : 3 → −2"; "ADR 2 → 3" for the statistics that changed; a creation lists
    the new sheet; a fight's move says what moved ("R33 · Manche 2, au tour de : Isaure").
    `people` names the user ids an owner change holds, `names` the character keys a fight
    holds."""
    people = people or {}
    if change.field == CREATED:
        return _created_text(change.after, people)
    if change.field == IN_PLAY:
        if change.after:
            return "Remis en jeu", "Back in play"
        return "Retiré de la table", "Taken off the table"
    if change.field == "fight":
        fr, en = _fight_text(change.before, change.after, names or {})
        return _prefixed(change.rule_id, fr), _prefixed(change.rule_id, en)
    fr_name, en_name = field_name(change.field)
    if change.field == "stats":
        now = dict(change.after or ())
        moved = ", ".join(
            f"{code} {was} → {now.get(code)}"
            for code, was in change.before or ()
            if was != now.get(code)
        )
        return _prefixed(change.rule_id, f"{fr_name} : {moved}"), _prefixed(
            change.rule_id, f"{en_name}: {moved}"
        )
    return tuple(
        _prefixed(
            change.rule_id,
            f"{name}{sep}{_shown(change.field, change.before, lang, people)} → "
            f"{_shown(change.field, change.after, lang, people)}",
        )
        for lang, (name, sep) in enumerate(((fr_name, " : "), (en_name, ": ")))
    )


def _counts(actions: int, reflexes: int) -> tuple[str, str]:
    # French puts 0 and 1 in the singular, English only 1.
    return (
        f"{actions} action{'s' * (actions > 1)}, {reflexes} réflexe{'s' * (reflexes > 1)}",
        f"{actions} action{'s' * (actions != 1)}, {reflexes} reflex{'es' * (reflexes != 1)}",
    )


def _fight_text(before, after, names: dict[str, str]) -> tuple[str, str]:
    """What moved in a fight (R33), in words: its start, a round, a turn, the order, what a
    combatant spent, its end. `before`/`after` are `engine.Fight`s or None."""

    def name(key: str) -> str:
        return names.get(key) or f"#{key}"

    if after is None:
        if before is None:
            return "aucun combat", "no fight"
        return f"Fin du combat (manche {before.round})", f"The fight ends (round {before.round})"
    who = name(after.current)
    turn = f"au tour de : {who}", f"{who}’s turn"
    order = ", ".join(name(key) for key in after.order)
    if before is None:
        return (
            f"Début du combat : {order} ; manche {after.round}, {turn[0]}",
            f"The fight begins: {order}; round {after.round}, {turn[1]}",
        )
    if after.round != before.round:
        return (
            f"Fin de la manche {before.round} ; manche {after.round}, {turn[0]}",
            f"End of round {before.round}; round {after.round}, {turn[1]}",
        )
    joined = [key for key in after.order if key not in before.order]
    left = [key for key in before.order if key not in after.order]
    if len(joined) + len(left) == 1:
        # R33: one arrives (reinforcements) or leaves (fled): said first, then the order.
        if joined:
            key = joined[0]
            place = after.order.index(key) + 1
            fr = f"{name(key)} rejoint le combat (place {place})"
            en = f"{name(key)} joins the fight (place {place})"
        else:
            fr, en = f"{name(left[0])} quitte le combat", f"{name(left[0])} leaves the fight"
        return (
            f"{fr} ; ordre : {order} ; manche {after.round}, {turn[0]}",
            f"{en}; order: {order}; round {after.round}, {turn[1]}",
        )
    if after.order != before.order:
        return (
            f"Ordre du combat : {order} ; manche {after.round}, {turn[0]}",
            f"Fight order: {order}; round {after.round}, {turn[1]}",
        )
    spent = [
        (name(key), _counts(*before.left(key)), _counts(*after.left(key)))
        for key in after.order
        if before.left(key) != after.left(key)
    ]
    if spent:
        return (
            f"Manche {after.round} · "
            + " ; ".join(f"{label} : {was[0]} → {now[0]}" for label, was, now in spent),
            f"Round {after.round} · "
            + "; ".join(f"{label}: {was[1]} → {now[1]}" for label, was, now in spent),
        )
    return f"Manche {after.round}, {turn[0]}", f"Round {after.round}, {turn[1]}"


def _prefixed(rule_id: str, text: str) -> str:
    # Names, notes and owners follow no rule: their sentence names none.
    return f"{rule_id} · {text}" if rule_id else text


def _created_text(sheet: dict, people: dict[int, str]) -> tuple[str, str]:
    """ "Personnage créé (PJ joué par paul) : PV max 12, Flux max 8, PA 1, 2 actions, 1 réflexe ;
    ADR 1, PUI 2, …"."""
    kind_fr, kind_en = KIND_TEXT.get(sheet["kind"], (sheet["kind"], sheet["kind"]))
    owner = people.get(sheet["owner"]) if sheet.get("owner") is not None else None
    who_fr = f"{kind_fr} joué par {owner}" if owner else kind_fr
    who_en = f"{kind_en} played by {owner}" if owner else kind_en
    stats = ", ".join(f"{code} {number}" for code, number in sheet["stats"].items())
    actions, reflexes = sheet["actions"], sheet["reflexes"]
    fr = (
        f"Personnage créé ({who_fr}) : PV max {sheet['pv_max']}, Flux max {sheet['flux_max']}, "
        f"PA {sheet['pa']}, {actions} action{'s' if actions > 1 else ''}, "
        f"{reflexes} réflexe{'s' if reflexes > 1 else ''}"
    )
    en = (
        f"Character created ({who_en}): max PV {sheet['pv_max']}, max Flux {sheet['flux_max']}, "
        f"PA {sheet['pa']}, {actions} action{'' if actions == 1 else 's'}, "
        f"{reflexes} {'reflex' if reflexes == 1 else 'reflexes'}"
    )
    if stats:
        fr, en = f"{fr} ; {stats}", f"{en}; {stats}"
    return fr, en


# The engine names a roll's purpose with an identifier; people read these words instead.
ROLL_PURPOSES = {
    "fall_damage": ("dégâts de chute", "fall damage"),
    "illness_days": ("durée de la maladie (jours)", "illness length (days)"),
    "remedy": ("remède (jours en moins)", "remedy (days off)"),
    "sequel": ("séquelle (D6)", "sequel (D6)"),
    "clinic": ("clinique (PV en plus)", "clinic (extra PV)"),
    "hour_rest": ("repos d’une heure (groupe)", "hour rest (group)"),
}


def roll_text(roll) -> tuple[str, str]:
    """ "R27 · dégâts de chute : 1d10+5 → 7 + 5 = 12"."""
    body = engine_text.roll_text(roll)
    purpose = roll.purpose or ""
    purpose_fr, purpose_en = ROLL_PURPOSES.get(purpose, (purpose, purpose))
    typed = (" [dés saisis]", " [typed-in dice]") if roll.typed_in else ("", "")
    prefix = f"{roll.rule_id} · " if roll.rule_id else ""
    label = f"{purpose_fr} : " if purpose else ""
    label_en = f"{purpose_en}: " if purpose else ""
    return (f"{prefix}{label}{body}{typed[0]}", f"{prefix}{label_en}{body}{typed[1]}")
