import random

import pytest

from rules.engine import (
    DiceExpr,
    DiceScriptExhausted,
    DieValueOutOfRange,
    InvalidDiceExpression,
    RuleError,
    ScriptedDice,
    parse_dice,
    roll,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1d20", DiceExpr(1, 20, 0)),
        ("1d10+5", DiceExpr(1, 10, 5)),
        ("1d4-1", DiceExpr(1, 4, -1)),
        ("2d6", DiceExpr(2, 6, 0)),
        ("d6", DiceExpr(1, 6, 0)),
        (" 1D10 + 30 ", DiceExpr(1, 10, 30)),
    ],
)
def test_parse_dice_reads_the_usual_expressions(text, expected):
    assert parse_dice(text) == expected


@pytest.mark.parametrize("text", ["", "d", "1d", "20", "1d20+", "1x20", "0d6", "1d1", "101d6", 7])
def test_parse_dice_refuses_malformed_expressions(text):
    with pytest.raises(InvalidDiceExpression) as error:
        parse_dice(text)
    assert isinstance(error.value, RuleError)
    assert str(text) in error.value.message_fr and str(text) in error.value.message_en
    assert error.value.code == "invalid_dice_expression"


def test_dice_expression_prints_back_as_written():
    assert [str(parse_dice(t)) for t in ("1d20", "1d10+5", "1d4-1")] == ["1d20", "1d10+5", "1d4-1"]


def test_roll_with_a_random_keeps_every_die_and_is_not_typed_in():
    result = roll("2d6", random.Random(3))
    assert len(result.dice) == 2 and all(1 <= d <= 6 for d in result.dice)
    assert result.total == sum(result.dice)
    assert result.typed_in is False


def test_roll_with_the_same_seed_gives_the_same_dice():
    assert roll("3d6+1", random.Random(9)) == roll("3d6+1", random.Random(9))


def test_r9_scripted_dice_are_typed_in_and_add_the_bonus():
    dice = ScriptedDice([3, 4])
    result = roll(parse_dice("2d6+5"), dice)
    assert result.dice == (3, 4) and result.total == 12 and result.typed_in is True
    assert dice.remaining == ()


def test_scripted_dice_may_stand_for_the_server():
    assert roll("1d4-1", ScriptedDice([1], typed_in=False)).typed_in is False


def test_scripted_dice_refuse_a_value_the_die_cannot_show():
    with pytest.raises(DieValueOutOfRange, match="D6"):
        roll("1d6", ScriptedDice([7]))
    with pytest.raises(DieValueOutOfRange):
        roll("1d6", ScriptedDice([0]))


def test_scripted_dice_say_when_they_run_out():
    dice = ScriptedDice([5])
    roll("1d6", dice)
    with pytest.raises(DiceScriptExhausted):
        roll("1d6", dice)
