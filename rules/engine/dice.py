"""Dice expressions, dice sources and rolls.

A dice source is either a `random.Random` (production passes `random.SystemRandom()`, tests a
seeded `random.Random`) or any object with `typed_in: bool` and `draw(sides) -> int`, such as
`ScriptedDice`, which also carries the values a person typed in from physical dice (R9).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Protocol

from .errors import DiceScriptExhausted, DieValueOutOfRange, InvalidDiceExpression

_EXPRESSION = re.compile(r"\s*(\d*)\s*[dD]\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*")
MAX_DICE = 100
MAX_SIDES = 1000


class DiceSource(Protocol):
    """Anything that can produce die values; `typed_in` says whether a person entered them."""

    typed_in: bool

    def draw(self, sides: int) -> int: ...


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """A parsed `NdS±B` expression; parse text once with `parse_dice`."""

    count: int
    sides: int
    bonus: int = 0

    def __str__(self) -> str:
        bonus = f"{self.bonus:+d}" if self.bonus else ""
        return f"{self.count}d{self.sides}{bonus}"


@dataclass(frozen=True, slots=True)
class Roll:
    """One roll: every die as it came, the total, and who produced the dice (R9).

    `character_key`, `at` (game time), `rule_id` and `purpose` are filled in when the roll
    is made inside an engine operation.
    """

    expr: DiceExpr
    dice: tuple[int, ...]
    total: int
    typed_in: bool = False
    character_key: str | None = None
    at: datetime | None = None
    rule_id: str | None = None
    purpose: str = ""


@lru_cache(maxsize=512)
def parse_dice(text: str) -> DiceExpr:
    """Parse `1d20`, `1d10+5`, `1d4-1`, `2d6`, `d6`; raise `InvalidDiceExpression` otherwise."""
    match = _EXPRESSION.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise InvalidDiceExpression(
            f"« {text} » n’est pas une expression de dés (exemples : 1d20, 1d10+5, 1d4-1).",
            f"'{text}' is not a dice expression (examples: 1d20, 1d10+5, 1d4-1).",
        )
    count = int(match[1] or 1)
    sides = int(match[2])
    bonus = int(match[4] or 0) * (-1 if match[3] == "-" else 1)
    if not (1 <= count <= MAX_DICE and 2 <= sides <= MAX_SIDES):
        raise InvalidDiceExpression(
            f"« {text} » : il faut de 1 à {MAX_DICE} dés de 2 à {MAX_SIDES} faces.",
            f"'{text}': use 1 to {MAX_DICE} dice of 2 to {MAX_SIDES} sides.",
        )
    return DiceExpr(count, sides, bonus)


class ScriptedDice:
    """Die values given in advance: a test's script, or the dice a person typed in (R9).

    Each `draw` takes the next value; a value the die cannot show, or running out of values,
    raises a `RuleError` so a typo never becomes a silent result.
    """

    def __init__(self, values: tuple[int, ...] | list[int], *, typed_in: bool = True) -> None:
        self._values = tuple(values)
        self._next = 0
        self.typed_in = typed_in

    @property
    def remaining(self) -> tuple[int, ...]:
        return self._values[self._next :]

    def draw(self, sides: int) -> int:
        if self._next >= len(self._values):
            missing = DiceScriptExhausted(
                f"Il manque une valeur de dé (D{sides}) : toutes les valeurs saisies ont servi.",
                f"A die value (D{sides}) is missing: every typed-in value has been used.",
            )
            missing.sides = sides
            raise missing
        value = self._values[self._next]
        if not 1 <= value <= sides:
            raise DieValueOutOfRange(
                f"Un D{sides} ne peut pas donner {value} (de 1 à {sides}).",
                f"A D{sides} cannot show {value} (1 to {sides}).",
            )
        self._next += 1
        return value


def roll(expr: DiceExpr | str, rng: random.Random | DiceSource) -> Roll:
    """Roll `expr` with `rng`, keeping every die."""
    if isinstance(expr, str):
        expr = parse_dice(expr)
    if isinstance(rng, random.Random):
        draw = rng.randrange
        dice = tuple(draw(expr.sides) + 1 for _ in range(expr.count))
        typed_in = False
    else:
        dice = tuple(rng.draw(expr.sides) for _ in range(expr.count))
        typed_in = rng.typed_in
    return Roll(expr, dice, sum(dice) + expr.bonus, typed_in)


D4 = parse_dice("1d4")
D6 = parse_dice("1d6")
D10 = parse_dice("1d10")
D20 = parse_dice("1d20")
