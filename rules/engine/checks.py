"""Tests (R5–R9): D20 + stat + modifiers ≥ difficulty, and their exact odds before rolling.

Every test is planned (`CheckPlan`: every term but the die), then rolled (`roll_planned`) or
weighed (`roll_odds`); `first_test_odds` runs an action's own operation to find the plan of
the test it would roll, so that the odds shown are those of the roll that follows.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from fractions import Fraction

from .dice import D20, DiceSource
from .errors import CharacterDead, NotConscious
from .outcome import Draft, Outcome
from .results import CheckPlan, CheckResult, Modifier, Odds
from .state import DEFAULT_RULESET, CampaignState, CharacterState, ConditionKind, Ruleset, Vital
from .text import check_text
from .words import agree

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


def plan_check(
    character: CharacterState,
    stat: str,
    *,
    skill: str | None,
    difficulty: int | None,
    modifiers: Iterable[Modifier] = (),
    rule_id: str,
    ruleset: Ruleset,
) -> CheckPlan:
    """The test this character would roll now, with the rules' own modifiers (R6–R8)."""
    return plan_raw_check(
        key=character.key,
        skill=skill,
        stat=stat,
        stat_value=character.stat(stat, ruleset),
        modifiers=(*rule_modifiers(character, skill), *modifiers),
        odd_zero=odd_d20_zero(character),
        difficulty=difficulty,
        rule_id=rule_id,
        ruleset=ruleset,
    )


def plan_raw_check(
    *,
    key: str | None,
    skill: str | None,
    stat: str,
    stat_value: int,
    modifiers: tuple[Modifier, ...],
    odd_zero: bool,
    difficulty: int | None,
    rule_id: str,
    ruleset: Ruleset,
) -> CheckPlan:
    """A test from given numbers (an outside healer's ESP, R12); no difficulty: the campaign's."""
    target = ruleset.default_difficulty if difficulty is None else difficulty
    return CheckPlan(
        key,
        skill,
        stat,
        stat_value,
        modifiers,
        odd_zero,
        target,
        ruleset.natural_extremes,
        rule_id,
    )


def roll_odds(plan: CheckPlan) -> Fraction:
    """Exact chance that the planned test succeeds: the faces of the D20 that pass, over 20,
    each through the same verdict as a rolled die (R5's extremes, R6's odd faces)."""
    return Fraction(plan.passing_faces(), 20)


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
    plan = plan_check(
        character,
        stat,
        skill=skill,
        difficulty=difficulty,
        modifiers=modifiers,
        rule_id="R5",
        ruleset=ruleset,
    )
    return roll_odds(plan)


class OddsProbe:
    """A dice source that weighs an operation instead of playing it (`first_test_odds`): the
    operation runs as it would, and its first test stops it with that test's plan."""

    typed_in = False

    def draw(self, sides: int) -> int:
        # Other dice before any test: the odds of what follows would depend on them.
        raise _DiceBeforeTest

    def weigh(self, plan: CheckPlan) -> None:
        """A test is about to be rolled: stop here with its plan (a forecast's probe may
        let it be rolled instead, with a face it chose: rules/engine/forecast.py)."""
        raise PlannedTest(plan)


class _DiceBeforeTest(Exception):
    pass


class PlannedTest(Exception):
    """Raised by a probe at the test it weighs, with that test's plan (`first_test_odds`,
    rules/engine/forecast.py)."""

    def __init__(self, plan: CheckPlan) -> None:
        super().__init__(plan.rule_id)
        self.plan = plan


def first_test_odds(run: Callable[[OddsProbe], object]) -> Odds | None:
    """The odds of the first test that `run(rng)` rolls, where `run` is the very operation
    an action performs with its dice source `rng`: what the action would roll is what is
    weighed. None when it rolls no test, or other dice before one. A `RuleError` it raises
    is the action's own refusal, and goes up as it is.
    """
    try:
        run(OddsProbe())
    except PlannedTest as planned:
        return Odds(planned.plan, roll_odds(planned.plan))
    except _DiceBeforeTest:
        return None
    return None


def roll_planned(draft: Draft, plan: CheckPlan) -> CheckResult:
    """Roll a planned D20 test, record it and explain it."""
    if isinstance(draft.rng, OddsProbe):
        draft.rng.weigh(plan)
    # A check's die is reported inside its CheckResult, not a second time among the rolls.
    die = draft.roll(D20, key=plan.key, rule_id=plan.rule_id, purpose="check", record=False)
    die_value, total, success, extreme = plan.verdict(die.total)
    result = CheckResult(
        plan.key,
        plan.skill,
        plan.stat,
        plan.stat_value,
        die.total,
        die_value,
        "R6" if die_value != die.total else None,
        plan.modifiers,
        total,
        plan.difficulty,
        success,
        extreme,
        die,
        plan.rule_id,
        draft.now,
        plan.passing_faces(),
    )
    draft.record_check(result)
    fr, en = check_text(result)
    draft.say(plan.rule_id, fr, en, plan.key)
    if result.die_rule:
        draft.rule("R6")
    for modifier in plan.modifiers:
        if modifier.rule_id:
            draft.rule(modifier.rule_id)
    if result.typed_in:
        draft.rule("R9")
    return result


def roll_check(
    draft: Draft,
    key: str,
    stat: str,
    *,
    skill: str | None,
    difficulty: int | None,
    modifiers: Iterable[Modifier] = (),
    rule_id: str,
) -> CheckResult:
    """Roll a test for a character of the state, adding the rules' own modifiers."""
    plan = plan_check(
        draft.char(key),
        stat,
        skill=skill,
        difficulty=difficulty,
        modifiers=modifiers,
        rule_id=rule_id,
        ruleset=draft.ruleset,
    )
    return roll_planned(draft, plan)


def require_alive(character: CharacterState) -> None:
    if character.vital is Vital.DEAD:
        raise CharacterDead(
            agree(f"{character.label} est mort·e", character.gender)
            + " : aucune règle ne permet cette action (seul le MJ peut ramener un mort, R16).",
            f"{character.label} is dead: no rule allows this action "
            "(only the GM can bring the dead back, R16).",
            rule_id="R16",
        )


def require_conscious(character: CharacterState) -> None:
    require_alive(character)
    if character.vital not in (Vital.UP, Vital.BORROWED_TIME):
        # In a coma (R11), or stabilised and waking only through R13's tries.
        raise NotConscious(
            agree(f"{character.label} est inconscient·e et ne peut pas agir.", character.gender),
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
    draft = Draft(campaign, rng, ruleset)
    roll_check(
        draft,
        key,
        stat,
        skill=skill,
        difficulty=difficulty,
        modifiers=tuple(modifiers),
        rule_id="R5",
    )
    return draft.outcome()
