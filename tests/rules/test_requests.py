"""R34 in the engine: rules rolls left to a player (`defer`), and rolled later.

Aldo (`hero`): 10 PV, VAI 2; the campaign's difficulty 10.
"""

from dataclasses import replace
from datetime import timedelta

import pytest

from rules.engine import (
    DueRoll,
    NotDue,
    ScriptedDice,
    Vital,
    advance_clock,
    advance_to_morning,
    deaths_door_test,
    night_rest,
    resume_clock,
    sleep_test,
    take_damage,
)
from tests.rules.util import EVENING, campaign, hero

HOUR = timedelta(hours=1)
NO_DICE = ScriptedDice([])


def test_r34_r10_damage_leaves_the_survie_to_the_player():
    outcome = take_damage(campaign(), "a", 10, rng=NO_DICE, defer=["a"])
    aldo = outcome.character("a")
    assert (aldo.pv, aldo.vital) == (0, Vital.UP)
    assert outcome.checks == ()
    assert outcome.due == (DueRoll("deaths_door", "R10", "a", EVENING),)
    assert "R34" in outcome.rules and "R10" in outcome.rules
    # Later, the player's die: 8 + 2 ≥ 10, borrowed time (R10).
    later = deaths_door_test(outcome.state, "a", rng=ScriptedDice([8]))
    assert later.character("a").vital is Vital.BORROWED_TIME
    assert later.checks[0].rule_id == "R10" and later.checks[0].typed_in
    # Failed: the coma.
    assert deaths_door_test(outcome.state, "a", rng=ScriptedDice([7])).character("a").vital is (
        Vital.COMA
    )


def test_r34_r10_others_roll_as_before():
    outcome = take_damage(campaign(), "a", 10, rng=ScriptedDice([15]), defer=["b"])
    assert outcome.due == () and outcome.character("a").vital is Vital.BORROWED_TIME


def test_r34_r10_no_longer_due_once_healed_or_rolled():
    with pytest.raises(NotDue):
        deaths_door_test(campaign(), "a", rng=NO_DICE)  # 10 PV: nothing due
    fallen = campaign(hero(pv=-1, vital=Vital.COMA))
    with pytest.raises(NotDue):
        deaths_door_test(fallen, "a", rng=NO_DICE)


def test_r34_r11_the_clock_stops_before_the_hour_whose_test_is_due():
    # In a coma at −2: at 21:00 PV −3, −PV 3 > VAI 2, a Survie test (R11).
    start = campaign(hero(pv=-2, vital=Vital.COMA, next_coma_hour=EVENING + HOUR))
    outcome = advance_clock(start, minutes=180, rng=NO_DICE, defer=["a"])
    assert outcome.state.clock == EVENING + HOUR
    assert outcome.character("a").pv == -2  # the hour is not played yet
    assert outcome.due == (DueRoll("coma_hour", "R11", "a", EVENING + HOUR, EVENING + 3 * HOUR),)
    # The player's 9: 9 + 2 ≥ 10; the clock goes on and stops at 22:00 for the next one.
    on = resume_clock(
        outcome.state, "a", "coma_hour", rng=ScriptedDice([9]), to=EVENING + 3 * HOUR, defer=["a"]
    )
    assert on.character("a").pv == -3 and on.character("a").vital is Vital.COMA
    assert on.state.clock == EVENING + 2 * HOUR
    assert [d.kind for d in on.due] == ["coma_hour"]
    # Rolled by the server this time (no defer): the rest of the way, every hour rolled.
    end = resume_clock(
        on.state, "a", "coma_hour", rng=ScriptedDice([10, 10]), to=EVENING + 3 * HOUR
    )
    assert end.state.clock == EVENING + 3 * HOUR
    assert end.character("a").pv == -5 and end.due == ()


def test_r34_r11_an_hour_below_the_threshold_does_not_stop_the_clock():
    start = campaign(hero(pv=0, vital=Vital.COMA, next_coma_hour=EVENING + HOUR))
    outcome = advance_clock(start, minutes=60, rng=NO_DICE, defer=["a"])
    assert outcome.due == () and outcome.character("a").pv == -1


def test_r34_r13_the_clock_stops_at_the_waking_try_and_to_morning_too():
    start = campaign(hero(pv=-1, vital=Vital.STABILISED, stabilised_at=EVENING))
    outcome = advance_to_morning(start, rng=NO_DICE, defer=["a"])
    assert outcome.state.clock == EVENING + HOUR
    [due] = outcome.due
    assert (due.kind, due.rule_id) == ("wake", "R13")
    awake = resume_clock(
        outcome.state, "a", "wake", rng=ScriptedDice([18, 3]), to=due.target, defer=["a"]
    )
    assert awake.character("a").vital is Vital.UP
    assert awake.state.clock == due.target


def test_r34_resuming_what_is_no_longer_due_is_refused():
    start = campaign(hero(pv=-2, vital=Vital.COMA, next_coma_hour=EVENING + HOUR))
    stopped = advance_clock(start, minutes=120, rng=NO_DICE, defer=["a"]).state
    with pytest.raises(NotDue):
        resume_clock(stopped, "a", "wake", rng=NO_DICE, to=EVENING + 2 * HOUR)
    with pytest.raises(NotDue):
        resume_clock(start, "a", "coma_hour", rng=NO_DICE, to=EVENING + 2 * HOUR)
    # Due, but healed by hand to 0 since: the hour takes 1 PV and asks no test.
    healed = stopped.with_character(replace(stopped.character("a"), pv=0))
    with pytest.raises(NotDue, match="plus de test"):
        resume_clock(healed, "a", "coma_hour", rng=NO_DICE, to=EVENING + 2 * HOUR)


def test_r34_r31_a_short_night_leaves_the_volonte_to_the_player():
    start = campaign(hero(), hero("b"))
    outcome = night_rest(start, hours=4, rng=ScriptedDice([15]), defer=["a"])
    assert [(d.kind, d.key) for d in outcome.due] == [("sleep", "a")]
    assert [c.character_key for c in outcome.checks] == ["b"]
    later = sleep_test(outcome.state, "a", rng=ScriptedDice([3]))
    # 3 + 2 < 10: Exténué (R31).
    assert [c.kind.value for c in later.character("a").conditions] == ["extenue"]
    assert sleep_test(outcome.state, "a", rng=ScriptedDice([12])).character("a").sleep_deprived
    with pytest.raises(NotDue):
        sleep_test(campaign(hero(pv=-1, vital=Vital.COMA)), "a", rng=NO_DICE)
