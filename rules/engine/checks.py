"""Tests (R5–R9): D20 + stat + modifiers ≥ difficulty, and their exact odds before rolling."""

from __future__ import annotations

import random
from collections.abc import Iterable
from fractions import Fraction

from .dice import D20, DiceSource
from .errors import CharacterDead, NotConscious
from .outcome import Outcome, Transaction
from .results import CheckResult, Modifier
from .state import DEFAULT_RULESET, CampaignState, CharacterState, ConditionKind, Ruleset, Vital
from .text import check_text

SURVIE = "Survie"
MEDECINE = "Médecine"
AGILITE = "Agilité"
CONSTITUTION = "Constitution"
VOLONTE = "Volonté"

SLEEP_DEPRIVATION_MALUS = 2  # R31


def odd_d20_zero(character: CharacterState) -> bool:
    """R6: an odd natural D20 counts as 0 while Exténué or Immobilisé."""
    return any(
        c.kind in (ConditionKind.EXTENUE, ConditionKind.IMMOBILISE) for c in character.conditions
    )


def rule_modifiers(character: CharacterState, skill: str | None) -> tuple[Modifier, ...]:
    """The modifiers the rules themselves add to this character's test (R7, R8)."""
    mods: list[Modifier] = []
    if skill == SURVIE:
        mods.extend(Modifier("séquelle", -1, "R7", "sequel") for _ in character.sequels)
    if character.illness is not None:
        mods.append(Modifier("maladie", -int(character.illness.severity), "R8", "illness"))
    if character.sleep_deprived:
        mods.append(
            Modifier("privation de sommeil", -SLEEP_DEPRIVATION_MALUS, "R8", "sleep deprivation")
        )
    return tuple(mods)


def _evaluate(
    natural: int, stat_value: int, bonus: int, difficulty: int, odd_zero: bool, extremes: bool
) -> tuple[int, int, bool, str | None]:
    """The one place a die value becomes a verdict, for rolled, typed-in and computed odds."""
    die_value = 0 if odd_zero and natural % 2 else natural
    total = die_value + stat_value + bonus
    success = total >= difficulty
    extreme = None
    if extremes and natural in (1, 20):
        extreme = f"natural_{natural}"
        success = natural == 20
    return die_value, total, success, extreme


def success_probability(
    character: CharacterState,
    stat: str,
    *,
    skill: str | None = None,
    difficulty: int | None = None,
    modifiers: Iterable[Modifier] = (),
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Fraction:
    """Exact chance that `check` succeeds, over the 20 faces with every rule applied."""
    stat_value = character.stat(stat, ruleset)
    bonus = sum(m.value for m in (*rule_modifiers(character, skill), *modifiers))
    target = ruleset.default_difficulty if difficulty is None else difficulty
    odd_zero = odd_d20_zero(character)
    wins = sum(
        _evaluate(n, stat_value, bonus, target, odd_zero, ruleset.natural_extremes)[2]
        for n in range(1, 21)
    )
    return Fraction(wins, 20)


def roll_raw_check(
    tx: Transaction,
    *,
    key: str | None,
    skill: str | None,
    stat: str,
    stat_value: int,
    modifiers: tuple[Modifier, ...],
    odd_zero: bool,
    difficulty: int | None,
    rule_id: str,
) -> CheckResult:
    """Roll a D20 test from given numbers (used directly for an outside healer's ESP, R12)."""
    target = tx.ruleset.default_difficulty if difficulty is None else difficulty
    # A check's die is reported inside its CheckResult, not a second time among the rolls.
    die = tx.roll(D20, key=key, rule_id=rule_id, purpose="check", record=False)
    die_value, total, success, extreme = _evaluate(
        die.total,
        stat_value,
        sum(m.value for m in modifiers),
        target,
        odd_zero,
        tx.ruleset.natural_extremes,
    )
    result = CheckResult(
        key,
        skill,
        stat,
        stat_value,
        die.total,
        die_value,
        "R6" if die_value != die.total else None,
        modifiers,
        total,
        target,
        success,
        extreme,
        die,
        rule_id,
        tx.now,
    )
    tx.record_check(result)
    fr, en = check_text(result)
    tx.say(rule_id, fr, en, key)
    if result.die_rule:
        tx.rule("R6")
    for modifier in modifiers:
        if modifier.rule_id:
            tx.rule(modifier.rule_id)
    if result.typed_in:
        tx.rule("R9")
    return result


def roll_check(
    tx: Transaction,
    key: str,
    stat: str,
    *,
    skill: str | None,
    difficulty: int | None,
    modifiers: Iterable[Modifier] = (),
    rule_id: str,
) -> CheckResult:
    """Roll a test for a character of the state, adding the rules' own modifiers."""
    character = tx.char(key)
    return roll_raw_check(
        tx,
        key=key,
        skill=skill,
        stat=stat,
        stat_value=character.stat(stat, tx.ruleset),
        modifiers=(*rule_modifiers(character, skill), *modifiers),
        odd_zero=odd_d20_zero(character),
        difficulty=difficulty,
        rule_id=rule_id,
    )


def require_alive(character: CharacterState) -> None:
    if character.vital is Vital.DEAD:
        raise CharacterDead(
            f"{character.label} est mort·e : aucune règle ne permet cette action "
            "(seul le MJ peut ramener un mort, R16).",
            f"{character.label} is dead: no rule allows this action "
            "(only the GM can bring the dead back, R16).",
            rule_id="R16",
        )


def require_conscious(character: CharacterState) -> None:
    require_alive(character)
    if character.vital not in (Vital.UP, Vital.BORROWED_TIME):
        # In a coma (R11), or stabilised and waking only through R13's tries.
        raise NotConscious(
            f"{character.label} est inconscient·e et ne peut pas agir.",
            f"{character.label} is unconscious and cannot act.",
            rule_id="R11" if character.vital is Vital.COMA else "R13",
        )


def require_check(character: CharacterState) -> None:
    """R5: a test is an act; the unconscious make none (they wake through R13 only)."""
    require_conscious(character)


def check(
    campaign: CampaignState,
    key: str,
    stat: str,
    *,
    rng: random.Random | DiceSource,
    skill: str | None = None,
    difficulty: int | None = None,
    modifiers: Iterable[Modifier] = (),
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """A test by a conscious character (R5): D20 + stat + modifiers ≥ difficulty.

    `skill` names the test ("Survie" gets the sequel malus, R7); `modifiers` are the GM's.
    A die typed in by a person comes through `rng=ScriptedDice([value])` (R9).
    """
    require_check(campaign.character(key))
    tx = Transaction(campaign, rng, ruleset)
    roll_check(
        tx,
        key,
        stat,
        skill=skill,
        difficulty=difficulty,
        modifiers=tuple(modifiers),
        rule_id="R5",
    )
    return tx.outcome()
