"""R34 in the engine: a rules roll asked of a player that the rules no longer call for.

Aldo (`hero`): 10 PV, VAI 2; the campaign's difficulty 10, its clock at EVENING (20:00).
"""

from dataclasses import replace
from datetime import timedelta

import pytest

from rules.engine import (
    ScriptedDice,
    StillDue,
    Vital,
    advance_clock,
    heal,
    lapse_roll,
    night_rest,
    rules_roll_due,
    take_damage,
)
from tests.rules.util import EVENING, campaign, hero

HOUR = timedelta(hours=1)
NO_DICE = ScriptedDice([])


def _coma_stop():
    """The clock stopped at 21:00 for R11's Survie of Aldo, in a coma, going to 23:00."""
    start = campaign(hero(pv=-2, vital=Vital.COMA, next_coma_hour=EVENING + HOUR))
    return advance_clock(start, minutes=180, rng=NO_DICE, defer=["a"])


def test_r10_r34_the_survie_at_0_pv_is_due_only_while_up_at_0_or_below():
    asked = take_damage(campaign(), "a", 10, rng=NO_DICE, defer=["a"]).state
    assert rules_roll_due(asked, "a", "deaths_door")
    healed = heal(asked, "a", 3).state
    assert not rules_roll_due(healed, "a", "deaths_door")
    in_coma = asked.with_character(replace(asked.character("a"), vital=Vital.COMA))
    assert not rules_roll_due(in_coma, "a", "deaths_door")


def test_r31_r34_the_volonte_is_due_only_while_up():
    asked = night_rest(campaign(), hours=4, rng=NO_DICE, defer=["a"]).state
    assert rules_roll_due(asked, "a", "sleep")
    down = asked.with_character(replace(asked.character("a"), pv=-1, vital=Vital.COMA))
    assert not rules_roll_due(down, "a", "sleep")


def test_r11_r34_the_coma_hours_survie_is_due_while_past_the_threshold():
    stopped = _coma_stop().state
    assert rules_roll_due(stopped, "a", "coma_hour")
    # Healed to −2 (the threshold is −PV > VAI 2): the hour asks no test any more.
    short = stopped.with_character(replace(stopped.character("a"), pv=-2))
    assert not rules_roll_due(short, "a", "coma_hour")
    # R15: healed above 0 in a coma, stabilised.
    assert not rules_roll_due(heal(stopped, "a", 5).state, "a", "coma_hour")
    assert not rules_roll_due(stopped, "a", "wake")
    assert not rules_roll_due(stopped, "a", "no_such_roll")


def test_r34_a_lapsed_roll_lets_the_clock_go_on_from_where_it_stopped():
    stopped = _coma_stop().state
    healed = heal(stopped, "a", 5).state
    assert healed.character("a").vital is Vital.STABILISED  # R15
    dice = ScriptedDice([3, 4])
    outcome = lapse_roll(healed, "a", "coma_hour", rng=dice, to=EVENING + 3 * HOUR)
    # Nobody rolled R11; the clock went from 21:00 to 23:00, the waking tries of 22:00 and
    # 23:00 (R13) rolled by the server (3 + 2 and 4 + 2 < 10: still stabilised).
    assert [c.rule_id for c in outcome.checks] == ["R13", "R13"]
    assert outcome.state.clock == EVENING + 3 * HOUR
    assert "R34" in outcome.rules
    said = [line.fr for line in outcome.lines]
    assert "Aldo — le jet demandé n’est plus dû : la demande devient caduque" in said
    assert any(line.startswith("l’horloge reprend jusqu’au") for line in said)


def test_r34_a_lapsed_roll_without_a_clock_changes_nothing():
    asked = take_damage(campaign(), "a", 10, rng=NO_DICE, defer=["a"]).state
    healed = heal(asked, "a", 3).state
    outcome = lapse_roll(healed, "a", "deaths_door", rng=NO_DICE)
    assert outcome.state == healed and outcome.changes == ()


def test_r34_a_roll_still_due_does_not_lapse():
    with pytest.raises(StillDue, match="R34"):
        lapse_roll(_coma_stop().state, "a", "coma_hour", rng=NO_DICE, to=EVENING + 3 * HOUR)
