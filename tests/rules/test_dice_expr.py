"""Free rolls (R9): the small grammar of a typed dice expression, its clear refusals, and the
roll itself (server or typed-in dice, a character's effective statistics)."""

import random

import pytest

from rules.engine import DieValueOutOfRange, InvalidDiceExpression, ScriptedDice, Sequel
from rules.engine.dice_expr import parse_free_roll, roll_free
from tests.rules.util import hero

STATS = ("ADR", "PUI", "INS", "PRE", "VAI", "SAV", "ESP")


def refused(text):
    with pytest.raises(InvalidDiceExpression) as error:
        parse_free_roll(text, STATS)
    return error.value.message_fr, error.value.message_en


@pytest.mark.parametrize(
    ("text", "fr"),
    [
        ("2d", "« 2d » : il manque le nombre de faces après « d » (par exemple 2d6)."),
        ("d", "« d » : il manque le nombre de faces après « d » (par exemple 1d6)."),
        ("d0", "« d0 » : un dé a de 2 à 1000 faces (pas 0)."),
        ("d1", "« d1 » : un dé a de 2 à 1000 faces (pas 1)."),
        ("1d1001", "« 1d1001 » : un dé a de 2 à 1000 faces (pas 1001)."),
        ("1000d6", "« 1000d6 » : au plus 100 dés en un jet (1000 demandés)."),
        ("60d6+41d4", "« 60d6+41d4 » : au plus 100 dés en un jet (101 demandés)."),
        ("0d6", "« 0d6 » : il faut au moins un dé."),
        ("2d6 3", "« 2d6 3 » : il manque un + ou un − avant « 3 »."),
        ("2d6+", "« 2d6+ » : il manque un terme après le dernier signe."),
        ("2d6+-3", "« 2d6+-3 » : deux signes de suite."),
        ("2d6*2", "« 2d6*2 » : « * » n’est pas compris (exemples : 2d6+3, 1d20+ADR, d6−1)."),
        ("1d6+1001", "« 1d6+1001 » : les nombres vont jusqu’à 1000."),
        ("3+4", "« 3+4 » : il n’y a aucun dé à lancer."),
        (
            "1d20+FOR",
            "« 1d20+FOR » : « FOR » n’est pas une statistique (ADR, PUI, INS, PRE, VAI, SAV, ESP).",
        ),
        ("   ", "Tapez une expression de dés, par exemple 2d6+3, 1d20+ADR, d6−1."),
        ("1d6" + "+1" * 30, "Une expression de dés tient en 60 caractères."),
        ("1d2" + "+1" * 20, "« 1d2" + "+1" * 20 + " » : au plus 20 termes."),
    ],
)
def test_r9_free_roll_refusals_say_what_is_wrong(text, fr):
    message_fr, message_en = refused(text)
    assert message_fr == fr
    assert message_en  # every refusal is said in English too


def test_r9_free_roll_expressions_written_back_plainly():
    assert str(parse_free_roll("2d6+3", STATS)) == "2d6+3"
    assert str(parse_free_roll(" d6 − 1 ", STATS)) == "1d6−1"
    assert str(parse_free_roll("1d20+adr", STATS)) == "1d20+ADR"
    assert str(parse_free_roll("-1d4+2D6", STATS)) == "−1d4+2d6"
    assert parse_free_roll("1d20+ADR-VAI", STATS).stats == ("ADR", "VAI")
    # A statistic whose name starts with a D is a statistic, not a die.
    assert parse_free_roll("1d20+DEX", ("DEX",)).stats == ("DEX",)


def test_r9_free_roll_server_dice_and_total():
    rolled = roll_free(parse_free_roll("2d6+3", STATS), random.Random(4))
    assert len(rolled.dice) == 2
    assert rolled.total == sum(rolled.dice) + 3
    assert not rolled.typed_in


def test_r9_r14_free_roll_typed_dice_and_a_characters_effective_stat():
    """R9: typed-in dice come in order; R14: a sequel lowers the stat the roll adds."""
    aldo = hero(sequels=(Sequel("ADR", "chute", 1),))  # ADR 1 − 1
    rolled = roll_free(
        parse_free_roll("1d20+ADR+2d4-1", STATS),
        ScriptedDice([14, 3, 2]),
        character=aldo,
    )
    assert rolled.typed_in
    assert rolled.total == 14 + 0 + 5 - 1
    assert rolled.text == "1d20+ADR+2d4−1 → 14 + 0 (ADR) + (3 + 2) − 1 = 18"
    low = roll_free(
        parse_free_roll("-2d4-VAI", STATS), ScriptedDice([1, 2]), character=hero(stats={"VAI": -2})
    )
    assert low.text == "−2d4−VAI → −(1 + 2) − −2 (VAI) = −1"


def test_r9_free_roll_typed_die_out_of_range_and_a_stat_without_character():
    with pytest.raises(DieValueOutOfRange):
        roll_free(parse_free_roll("1d6", STATS), ScriptedDice([7]))
    with pytest.raises(InvalidDiceExpression) as error:
        roll_free(parse_free_roll("1d20+ADR", STATS), random.Random(1))
    assert error.value.message_fr == (
        "« ADR » : choisissez un personnage pour compter sa statistique."
    )
