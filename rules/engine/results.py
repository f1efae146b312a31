"""What the engine records: a test's terms and verdict (`Modifier`, `CheckResult`) and the
pieces of an Outcome (`Change`, `Line`).

They live apart from the code that makes them so that `checks` (which rolls tests) and `outcome`
(which gathers an operation's results) each import them from here and neither imports the other
back. `text` words a check from its fields alone, so a CheckResult can still say itself
(`text_fr`) with `text` below this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from .dice import Roll
from .text import check_text


@dataclass(frozen=True, slots=True)
class Modifier:
    """One term added to a test, with where it comes from (a rule id, or None for the GM's)."""

    label: str
    value: int
    rule_id: str | None = None
    label_en: str | None = None

    @property
    def en(self) -> str:
        return self.label if self.label_en is None else self.label_en


@dataclass(frozen=True, slots=True)
class CheckPlan:
    """A test about to be rolled: every term but the die. `checks.roll_planned` rolls it and
    `checks.roll_odds` weighs it, so the odds shown before a roll are those of that very roll.

    `difficulty` is resolved (the campaign's default already put in); `odd_zero` is R6;
    `natural_extremes` is the R5 option.
    """

    key: str | None
    skill: str | None
    stat: str
    stat_value: int
    modifiers: tuple[Modifier, ...]
    odd_zero: bool
    difficulty: int
    natural_extremes: bool
    rule_id: str

    def verdict(self, natural: int) -> tuple[int, int, bool, str | None]:
        """The one place a die face becomes a verdict, for rolled, typed-in and weighed tests:
        the die's value (R6), the total, success, and the R5 extreme that decided it."""
        return self._verdict(natural, self.bonus())

    def bonus(self) -> int:
        """Every term but the die: the stat and the modifiers."""
        return self.stat_value + sum(m.value for m in self.modifiers)

    def passing_faces(self) -> int:
        """How many of the D20's 20 faces pass: counted, not weighed face by face (every
        rolled test counts them). `faces_by_verdict` is the same count through the verdict
        itself; tests/rules/test_odds.py proves them equal on every plan."""
        need = self.difficulty - self.bonus()  # the die's value that passes
        lowest = max(need, 1)
        if self.odd_zero:  # R6: the ten odd faces are worth 0, the ten even ones themselves
            count = max(0, 10 - (lowest - 1) // 2) + (10 if need <= 0 else 0)
        else:
            count = max(0, 21 - lowest)
        if self.natural_extremes:  # R5: the 1 always fails, the 20 always passes
            count -= (0 if self.odd_zero else 1) >= need
            count += need > 20
        return count

    def faces_by_verdict(self) -> int:
        """`passing_faces` the long way: each face through the verdict a rolled die gets."""
        bonus = self.bonus()
        return sum(self._verdict(natural, bonus)[2] for natural in range(1, 21))

    def _verdict(self, natural: int, bonus: int) -> tuple[int, int, bool, str | None]:
        die_value = 0 if self.odd_zero and natural % 2 else natural
        total = die_value + bonus
        success = total >= self.difficulty
        extreme = None
        if self.natural_extremes and natural in (1, 20):
            extreme = f"natural_{natural}"
            success = natural == 20
        return die_value, total, success, extreme


@dataclass(frozen=True, slots=True)
class Odds:
    """The exact chance that a planned test succeeds, over the 20 faces of its D20."""

    plan: CheckPlan
    probability: Fraction

    @property
    def percent(self) -> int:
        # Multiples of 1/20: always a whole percentage.
        return int(self.probability * 100)


@dataclass(frozen=True, slots=True)
class CheckResult:
    """A test with every term: the natural die, the rule that changed it (R6), the stat, each
    modifier, the total, the difficulty and the verdict. `extreme` is set when the R5 option
    (natural 20 / natural 1) decided the result instead of the total."""

    character_key: str | None
    skill: str | None
    stat: str
    stat_value: int
    natural: int
    die_value: int
    die_rule: str | None
    modifiers: tuple[Modifier, ...]
    total: int
    difficulty: int
    success: bool
    extreme: str | None
    roll: Roll
    rule_id: str
    at: datetime | None
    # How many of the D20's 20 faces pass this very test (`checks.roll_odds` × 20): the exact
    # odds the roll was made at, kept so the dice's statistics weigh each roll by its own.
    passing_faces: int | None = None

    @property
    def typed_in(self) -> bool:
        return self.roll.typed_in

    @property
    def text_fr(self) -> str:
        return check_text(self)[0]

    @property
    def text_en(self) -> str:
        return check_text(self)[1]


@dataclass(frozen=True, slots=True)
class Change:
    """One field set to a new value: on a character, or on the campaign when the key is None.

    `by_gm` marks what only the GM's hand did (an override, a revival, a removed condition).
    """

    character_key: str | None
    field: str
    before: Any
    after: Any
    rule_id: str
    at: datetime
    by_gm: bool = False


@dataclass(frozen=True, slots=True)
class Line:
    """One sentence of explanation, in French and English, tied to a rule and a game time."""

    fr: str
    en: str
    rule_id: str
    character_key: str | None
    at: datetime
