"""French and English wording shown to people: checks, rolls, conditions, vital states."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Protocol

from .dice import Roll
from .state import (
    CAUSE_DEATHS_DOOR,
    CAUSE_FIGHT,
    CAUSE_FLUX,
    CAUSE_GM,
    CAUSE_SLEEP,
    Condition,
    ConditionKind,
    Severity,
    Surface,
    Vital,
)
from .words import agree, inclusive


class Term(Protocol):
    """What wording needs of a test's modifier (results.Modifier)."""

    @property
    def label(self) -> str: ...
    @property
    def en(self) -> str: ...
    @property
    def value(self) -> int: ...


class CheckFacts(Protocol):
    """What wording needs of a test (results.CheckResult), named by shape so that this module
    stays below the results it words."""

    @property
    def skill(self) -> str | None: ...
    @property
    def stat(self) -> str: ...
    @property
    def stat_value(self) -> int: ...
    @property
    def natural(self) -> int: ...
    @property
    def die_value(self) -> int: ...
    @property
    def die_rule(self) -> str | None: ...
    @property
    def modifiers(self) -> Iterable[Term]: ...
    @property
    def total(self) -> int: ...
    @property
    def difficulty(self) -> int: ...
    @property
    def success(self) -> bool: ...
    @property
    def extreme(self) -> str | None: ...
    @property
    def typed_in(self) -> bool: ...


MINUS = "\u2212"


# A rule's id as the texts cite it: "R5", "R17–R19".
_RULE = r"R\d+(?:[–-]R\d+)?"
_RULE_IDS = (
    # "R11 · …" at the head of a line (the log's, an explanation's)
    (re.compile(rf"(?m)^(?:{_RULE}(?:, {_RULE})*) · "), ""),
    # " (R5)", " (R25, R33)": a bracket holding only ids
    (re.compile(rf" ?\((?:{_RULE})(?:, ?{_RULE})*\)"), ""),
    # "(20 naturel, R5)": an id closing a bracket that says more
    (re.compile(rf"(?:, ?{_RULE})+(?=\))"), ""),
)


def without_rule_ids(text: str) -> str:
    """`text` as a player reads it: the rules' ids ("(R5)", "R11 · ") are the GM's
    references, and the history's details keep them; a player's sentence reads without."""
    for pattern, by in _RULE_IDS:
        text = pattern.sub(by, text)
    return text


def number_en(value: float) -> str:
    """ "8", "7.5": no ".0" on a whole number (a night of 8.0 h read like a typo)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def number_fr(value: float) -> str:
    """ "8", "7,5", "−3": French writes a decimal comma, and the minus sign (−) before a
    negative number, as in "2 − 1"."""
    return number_en(value).replace(".", ",").replace("-", "−")


def hours_text(hours: float) -> tuple[str, str]:
    """("7,5 h", "7.5 h")."""
    return f"{number_fr(hours)} h", f"{number_en(hours)} h"


# R32: the game clock counts its days from this date, day 1 (campaign/models.py starts every
# campaign's clock there, at 08:00). Naive moments (the engine's tests) are read as UTC.
GAME_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


def game_day(moment: datetime) -> int:
    """The day of the game a game-clock moment falls on, day 1 being the epoch's."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - GAME_EPOCH).days + 1


def moment_text(moment: datetime, *, seconds: bool = False) -> tuple[str, str]:
    """("jour 2, 06:00", "day 2, 06:00"), as the dashboard and the history write game time;
    `seconds` for a fight round's few seconds ("jour 1, 20:00:06")."""
    clock = moment.strftime("%H:%M:%S" if seconds else "%H:%M")
    day = game_day(moment)
    return f"jour {day}, {clock}", f"day {day}, {clock}"


def moment_words(moment: datetime, *, seconds: bool = False) -> tuple[str, str]:
    """("jour 2 à 06:00", "day 2, 06:00"): a game time inside a French sentence, after « du »,
    « au » or « jusqu’au » (« l’horloge avance du jour 1 à 08:00 au jour 1 à 09:00 »); the
    English keeps the clock's own form."""
    clock = moment.strftime("%H:%M:%S" if seconds else "%H:%M")
    day = game_day(moment)
    return f"jour {day} à {clock}", f"day {day}, {clock}"


def on_moment(moment: datetime) -> tuple[str, str]:
    """("le jour 2 à 06:00", "on day 2 at 06:00"): when something happens, in a sentence
    (« coma prévu le jour 1 à 08:10 »)."""
    day, clock = game_day(moment), moment.strftime("%H:%M")
    return f"le jour {day} à {clock}", f"on day {day} at {clock}"


def count_fr(n: float, one: str, many: str) -> str:
    """ "0 étage", "1 étage", "2 étages": in French, below 2 is singular."""
    return f"{number_fr(n)} {one if abs(n) < 2 else many}"


def count_en(n: float, one: str, many: str) -> str:
    """ "1 storey", "0 storeys", "2 storeys"."""
    return f"{number_en(n)} {one if abs(n) == 1 else many}"


SKILL_EN = {
    "Survie": "Survival",
    "Médecine": "Medicine",
    "Agilité": "Agility",
    "Constitution": "Constitution",
    "Volonté": "Willpower",
}

VITAL_TEXT = {
    Vital.UP: ("debout", "standing"),
    Vital.BORROWED_TIME: ("en sursis (coma imminent)", "on borrowed time (coma coming)"),
    Vital.COMA: ("dans le coma", "in a coma"),
    Vital.STABILISED: ("stabilisé·e, inconscient·e", "stabilised, unconscious"),
    Vital.DEAD: ("mort·e", "dead"),
}


def vital_text(vital: Vital, gender: str = "iel") -> tuple[str, str]:
    """A named character's vital state, agreeing with their grammatical gender: « mort »,
    « morte », « mort·e »."""
    fr, en = VITAL_TEXT[vital]
    return agree(fr, gender), en


SEVERITY_TEXT = {
    Severity.MILD: ("légèrement malade", "mildly ill"),
    Severity.ILL: ("malade", "ill"),
    Severity.SEVERE: ("gravement malade", "seriously ill"),
    Severity.CRITICAL: ("très gravement malade", "critically ill"),
}

CONDITION_TEXT = {
    ConditionKind.EBRANLE: (
        "Ébranlé",
        "Shaken",
        "aucun réflexe ; −3 PA",
        "no reflexes; −3 PA",
    ),
    ConditionKind.EXTENUE: (
        "Exténué",
        "Exhausted",
        "un D20 impair vaut 0 ; pas de long voyage avant un repos",
        "an odd D20 counts as 0; no long-distance travel until a rest",
    ),
    ConditionKind.GENE: ("Gêné", "Hindered", "−1 action", "−1 action"),
    ConditionKind.IMMOBILISE: (
        "Immobilisé",
        "Immobilised",
        "aucun déplacement ; un D20 impair vaut 0 ; test approprié pour se libérer",
        "no movement; an odd D20 counts as 0; a suitable test to break free",
    ),
    ConditionKind.PARALYSE: (
        "Paralysé",
        "Paralysed",
        "ni action ni réflexe",
        "no action, no reflex",
    ),
    ConditionKind.SURPRIS: (
        "Surpris",
        "Surprised",
        "aucun réflexe ; une seule action",
        "no reflexes; only one action",
    ),
}

_ENDS = {
    CAUSE_FLUX: ("prend fin quand le Flux repasse au-dessus de 0", "ends when Flux is above 0"),
    CAUSE_DEATHS_DOOR: (
        "prend fin quand les PV repassent au-dessus de 0, ou au coma",
        "ends when PV are above 0 again, or at the coma",
    ),
    CAUSE_SLEEP: ("prend fin après une vraie nuit", "ends after a proper night"),
    CAUSE_FIGHT: (
        "prend fin à la fin de la première manche (ou seulement quand le MJ le retire, selon la "
        "campagne)",
        "ends at the end of the first round (or only when the GM removes it, as the campaign sets)",
    ),
}
_ENDS_GM = ("prend fin quand le MJ le retire", "ends when the GM removes it")

# R27: the ground under a fall, as the fall form names it.
SURFACE_TEXT = {
    Surface.NORMAL: ("sol normal", "normal ground"),
    Surface.ROUGH: ("sol accidenté ou en pente", "rough or steep ground"),
    Surface.SOFT: ("sol meuble ou eau", "soft ground or water"),
}

# What brought a condition on, in words; a cause the GM typed is shown as typed.
CAUSE_TEXT = {
    CAUSE_FLUX: ("Flux à 0", "Flux at 0"),
    CAUSE_DEATHS_DOOR: ("aux portes de la mort", "at death's door"),
    CAUSE_SLEEP: ("manque de sommeil", "lack of sleep"),
    CAUSE_GM: ("MJ", "GM"),
    CAUSE_FIGHT: ("début du combat", "start of the fight"),
}


def cause_text(cause: str) -> tuple[str, str]:
    return CAUSE_TEXT.get(cause, (cause, cause))


def condition_name(kind: ConditionKind, gender: str | None = None) -> tuple[str, str]:
    """`(fr, en)`: the condition's name, masculine as the rules write it (a list of
    conditions); with a character's `gender`, the French agrees with it: « Gênée » (elle),
    « Gêné » (il), « Gêné·e » (iel)."""
    fr, en, _, _ = CONDITION_TEXT[kind]
    if gender is not None:
        fr = agree(inclusive(fr), gender)
    return fr, en


def describe_condition(condition: Condition) -> tuple[str, str]:
    """`(fr, en)`: the condition, its effect, its cause and how it ends (R20–R26)."""
    name_fr, name_en, effect_fr, effect_en = CONDITION_TEXT[condition.kind]
    ends_fr, ends_en = _ENDS.get(condition.cause, _ENDS_GM)
    cause_fr, cause_en = cause_text(condition.cause)
    return (
        f"{name_fr} ({cause_fr}) : {effect_fr} ; {ends_fr}.",
        f"{name_en} ({cause_en}): {effect_en}; {ends_en}.",
    )


def signed(value: int) -> str:
    """` + 2` / ` − 1`, with a true minus sign, for sums written out."""
    return f" + {value}" if value >= 0 else f" {MINUS} {-value}"


def check_label(skill: str | None, stat: str) -> tuple[str, str]:
    if skill is None:
        return stat, stat
    return f"{skill} ({stat})", f"{SKILL_EN.get(skill, skill)} ({stat})"


def check_text(result: CheckFacts) -> tuple[str, str]:
    """ "Survie (VAI) : 14 (d20) + 2 (VAI) − 1 (séquelle) = 15 ≥ 10 → réussite"."""
    label_fr, label_en = check_label(result.skill, result.stat)
    if result.die_rule is None:
        die_fr = die_en = f"{result.die_value} (d20)"
    else:
        die_fr = f"{result.die_value} (d20 : {result.natural} impair → 0, {result.die_rule})"
        die_en = f"{result.die_value} (d20: {result.natural} odd → 0, {result.die_rule})"
    stat = f"{signed(result.stat_value)} ({result.stat})"
    mods_fr = "".join(f"{signed(m.value)} ({m.label})" for m in result.modifiers)
    mods_en = "".join(f"{signed(m.value)} ({m.en})" for m in result.modifiers)
    compare = "≥" if result.total >= result.difficulty else "<"
    sum_ = f" = {number_fr(result.total)} {compare} {result.difficulty} → "
    verdict_fr, verdict_en = ("réussite", "success") if result.success else ("échec", "failure")
    if result.extreme is not None:
        verdict_fr += f" ({result.natural} naturel, R5)"
        verdict_en += f" (natural {result.natural}, R5)"
    typed_fr, typed_en = (" [dé saisi]", " [typed-in die]") if result.typed_in else ("", "")
    return (
        f"{label_fr} : {die_fr}{stat}{mods_fr}{sum_}{verdict_fr}{typed_fr}",
        f"{label_en}: {die_en}{stat}{mods_en}{sum_}{verdict_en}{typed_en}",
    )


def roll_text(roll: Roll) -> str:
    """ "1d10+5 → 7 + 5 = 12" (same in both languages)."""
    dice = " + ".join(str(d) for d in roll.dice)
    bonus = signed(roll.expr.bonus) if roll.expr.bonus else ""
    return f"{roll.expr} → {dice}{bonus} = {number_fr(roll.total)}"
