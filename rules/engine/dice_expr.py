"""Free rolls (R9): a dice expression typed by a person, « 2d6+3 », « 1d20+ADR », « d6−1 ».

The grammar is small: terms joined by + or −, each a group of dice (`NdS`, N from 1, S from
2), a whole number, or a statistic of the campaign (its character's effective value, R14).
Anything else is refused with a message that says what is wrong, in French and English; the
number of dice, their faces and the numbers are capped so that a typo never rolls a million
dice.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass

from .dice import DiceExpr, DiceSource, roll
from .errors import InvalidDiceExpression
from .state import DEFAULT_RULESET, CharacterState, Ruleset
from .text import MINUS

MAX_DICE = 100  # in one roll, over all its groups
MAX_SIDES = 1000
MAX_NUMBER = 1000
MAX_TERMS = 20
MAX_LENGTH = 60
EXAMPLES = "2d6+3, 1d20+ADR, d6−1"

_TOKEN = re.compile(
    r"\s*(?:(?P<count>\d*)[dD](?P<sides>\d*+)(?![^\W\d_])"
    r"|(?P<number>\d+)|(?P<stat>[^\W\d_]+)|(?P<sign>[+\-−])|(?P<other>\S))"
)


@dataclass(frozen=True, slots=True)
class Term:
    """One term: `sign` (+1 or −1) and a group of dice (`count`, `sides`), a `number` or a
    `stat`'s name."""

    sign: int
    count: int = 0
    sides: int = 0
    number: int = 0
    stat: str = ""

    def __str__(self) -> str:
        if self.sides:
            return f"{self.count}d{self.sides}"
        return self.stat or str(self.number)


@dataclass(frozen=True, slots=True)
class FreeExpr:
    """A parsed expression; `str()` writes it back plainly (« 2d6+3 », « 1d20−ADR »)."""

    terms: tuple[Term, ...]

    def __str__(self) -> str:
        text = ""
        for place, term in enumerate(self.terms):
            if term.sign < 0:
                text += MINUS
            elif place:
                text += "+"
            text += str(term)
        return text

    @property
    def stats(self) -> tuple[str, ...]:
        return tuple(t.stat for t in self.terms if t.stat)


def _refuse(text: str, fr: str, en: str) -> InvalidDiceExpression:
    return InvalidDiceExpression(f"« {text} » : {fr}", f"'{text}': {en}")


def _dice_term(text: str, sign: int, count: str, sides: str) -> Term:
    if not sides:
        raise _refuse(
            text,
            f"il manque le nombre de faces après « d » (par exemple {count or 1}d6).",
            f"the number of sides is missing after 'd' (for example {count or 1}d6).",
        )
    n, s = int(count or 1), int(sides)
    if n < 1:
        raise _refuse(text, "il faut au moins un dé.", "roll at least one die.")
    if not 2 <= s <= MAX_SIDES:
        raise _refuse(
            text,
            f"un dé a de 2 à {MAX_SIDES} faces (pas {s}).",
            f"a die has 2 to {MAX_SIDES} sides (not {s}).",
        )
    return Term(sign, count=n, sides=s)


def parse_free_roll(text: str, stats: Iterable[str]) -> FreeExpr:
    """Parse a free roll's expression against the campaign's `stats`; `InvalidDiceExpression`
    (with what is wrong, and where) otherwise."""
    text = text.strip()
    if not text:
        raise InvalidDiceExpression(
            f"Tapez une expression de dés, par exemple {EXAMPLES}.",
            f"Type a dice expression, for example {EXAMPLES}.",
        )
    if len(text) > MAX_LENGTH:
        raise InvalidDiceExpression(
            f"Une expression de dés tient en {MAX_LENGTH} caractères.",
            f"A dice expression fits in {MAX_LENGTH} characters.",
        )
    known = {name.upper(): name for name in stats}
    terms: list[Term] = []
    sign: int | None = None
    for token in _TOKEN.finditer(text):
        kind = token.lastgroup
        if kind == "other":
            raise _refuse(
                text,
                f"« {token['other']} » n’est pas compris (exemples : {EXAMPLES}).",
                f"'{token['other']}' is not understood (examples: {EXAMPLES}).",
            )
        if kind == "sign":
            if sign is not None:
                raise _refuse(text, "deux signes de suite.", "two signs in a row.")
            sign = -1 if token["sign"] != "+" else 1
            continue
        if terms and sign is None:
            raise _refuse(
                text,
                f"il manque un + ou un {MINUS} avant « {token.group().strip()} ».",
                f"a + or a - is missing before '{token.group().strip()}'.",
            )
        positive = 1 if sign is None else sign
        sign = None
        if kind == "number":
            if int(token["number"]) > MAX_NUMBER:
                raise _refuse(
                    text,
                    f"les nombres vont jusqu’à {MAX_NUMBER}.",
                    f"numbers go up to {MAX_NUMBER}.",
                )
            terms.append(Term(positive, number=int(token["number"])))
        elif kind == "stat":
            name = known.get(token["stat"].upper())
            if name is None:
                listed = ", ".join(known.values())
                raise _refuse(
                    text,
                    f"« {token['stat']} » n’est pas une statistique ({listed}).",
                    f"'{token['stat']}' is not a statistic ({listed}).",
                )
            terms.append(Term(positive, stat=name))
        else:
            terms.append(_dice_term(text, positive, token["count"], token["sides"]))
    if sign is not None:
        raise _refuse(
            text, "il manque un terme après le dernier signe.", "a term is missing after the sign."
        )
    if not any(t.sides for t in terms):
        raise _refuse(text, "il n’y a aucun dé à lancer.", "there is no die to roll.")
    dice = sum(t.count for t in terms)
    if dice > MAX_DICE:
        raise _refuse(
            text,
            f"au plus {MAX_DICE} dés en un jet ({dice} demandés).",
            f"at most {MAX_DICE} dice in one roll ({dice} asked).",
        )
    if len(terms) > MAX_TERMS:
        raise _refuse(text, f"au plus {MAX_TERMS} termes.", f"at most {MAX_TERMS} terms.")
    return FreeExpr(tuple(terms))


def _number(value: int) -> str:
    return f"{MINUS}{-value}" if value < 0 else str(value)


@dataclass(frozen=True, slots=True)
class FreeRoll:
    """A free roll made: each term with its value (the dice of a group, a stat's value), the
    total, and whether a person typed the dice in (R9)."""

    expr: FreeExpr
    values: tuple[tuple[int, ...], ...]  # per term: its dice, or its one value
    total: int
    typed_in: bool

    @property
    def dice(self) -> tuple[int, ...]:
        return tuple(
            v
            for term, vs in zip(self.expr.terms, self.values, strict=True)
            if term.sides
            for v in vs
        )

    @property
    def text(self) -> str:
        """ "2d6+ADR → 4 + 2 + 1 (ADR) = 7" (the same in both languages)."""
        parts = ""
        for place, (term, values) in enumerate(zip(self.expr.terms, self.values, strict=True)):
            shown = " + ".join(map(str, values)) if term.sides else _number(values[0])
            if len(values) > 1 and (term.sign < 0 or place):
                shown = f"({shown})"
            if term.stat:
                shown = f"{shown} ({term.stat})"
            if term.sign < 0:
                parts += f" {MINUS} {shown}" if place else f"{MINUS}{shown}"
            else:
                parts += f" + {shown}" if place else shown
        return f"{self.expr} → {parts} = {_number(self.total)}"


def roll_free(
    expr: FreeExpr,
    rng: random.Random | DiceSource,
    *,
    character: CharacterState | None = None,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> FreeRoll:
    """Roll `expr`: each group of dice from `rng` in order (typed-in dice, R9, come the same
    way), each stat the character's effective value; a stat without a character is refused."""
    if expr.stats and character is None:
        raise InvalidDiceExpression(
            f"« {expr.stats[0]} » : choisissez un personnage pour compter sa statistique.",
            f"'{expr.stats[0]}': choose a character for its statistic to count.",
        )
    values: list[tuple[int, ...]] = []
    total = 0
    typed_in = False
    for term in expr.terms:
        if term.sides:
            rolled = roll(DiceExpr(term.count, term.sides), rng)
            typed_in = typed_in or rolled.typed_in
            values.append(rolled.dice)
            total += term.sign * rolled.total
        else:
            value = term.number
            if term.stat:
                value = character.stat(term.stat, ruleset)  # type: ignore[union-attr]
            values.append((value,))
            total += term.sign * value
    return FreeRoll(expr, tuple(values), total, typed_in)
