"""R34 in the engine: rules rolls left to a player (`defer`), and rolled later.

Aldo (`hero`): 10 PV, VAI 2; the campaign's difficulty 10.
"""

from dataclasses import replace
from datetime import timedelta

import pytest

from rules.engine import (
    DueRoll,
    Illness,
    NotDue,
    Ruleset,
    ScriptedDice,
    Severity,
    Vital,
    advance_clock,
    advance_to_morning,
    deaths_door_test,
    end_fight,
    hour_rest,
    moves_clock,
    next_turn,
    night_rest,
    resume_clock,
    sleep_test,
    start_fight,
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


def test_r11_r34_the_hours_loss_comes_first_then_the_clock_stops_for_its_test():
    # In a coma at −2: at 21:00 PV −3, −PV 3 > VAI 2, a Survie test (R11). The hour's PV
    # loss is applied when the clock stops (the card shows −3), only the test waits.
    start = campaign(hero(pv=-2, vital=Vital.COMA, next_coma_hour=EVENING + HOUR))
    outcome = advance_clock(start, minutes=180, rng=NO_DICE, defer=["a"])
    assert outcome.state.clock == EVENING + HOUR
    assert outcome.character("a").pv == -3
    assert outcome.character("a").next_coma_hour == EVENING + 2 * HOUR
    assert outcome.due == (DueRoll("coma_hour", "R11", "a", EVENING + HOUR, EVENING + 3 * HOUR),)
    # The player's 9: 9 + 2 ≥ 10; the clock goes on and stops at 22:00 for the next one.
    on = resume_clock(
        outcome.state, "a", "coma_hour", rng=ScriptedDice([9]), to=EVENING + 3 * HOUR, defer=["a"]
    )
    assert on.character("a").pv == -4 and on.character("a").vital is Vital.COMA
    assert on.state.clock == EVENING + 2 * HOUR  # 22:00's hour lost, its test asked
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
    # Due, but healed by hand to 0 since: no longer past R11's threshold, no test.
    healed = stopped.with_character(replace(stopped.character("a"), pv=0))
    with pytest.raises(NotDue, match="plus de jet dû"):
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


# R34 with actions that move the clock: the night, the hour rest and the round wait with it.
# Aldo (`a`) is stabilised at 20:00: his first automatic waking try (R13) falls at 21:00.
# Dice for that try: 18 (18 + 2 ≥ 10, awake), then the sequel's D6 (3).
WAKES = [18, 3]


def stabilised(**changes):
    return hero(pv=-1, vital=Vital.STABILISED, stabilised_at=EVENING, **changes)


def test_r34_r17_r28_a_night_stops_at_a_players_roll_and_ends_once_it_is_answered():
    # Bea sleeps, ill (R28: a night gives her 2 at most); her illness ends at 06:00 (R30).
    bea = hero("b", pv=5, flux=2, illness=Illness(Severity.ILL, days_left=0))
    start = campaign(stabilised(), bea)
    stopped = night_rest(start, hours=10, rng=NO_DICE, defer=["a"])
    assert stopped.state.clock == EVENING + HOUR
    [due] = stopped.due
    assert (due.kind, due.key, due.at, due.target) == (
        "wake",
        "a",
        EVENING + HOUR,
        EVENING + 10 * HOUR,
    )
    assert due.then["action"] == "night" and due.then["sleepers"] == ["b"]
    assert stopped.character("b").pv == 5  # nothing of the night given yet
    assert any(line.rule_id == "R34" and "nuit suspendue" in line.fr for line in stopped.lines)

    on = resume_clock(
        stopped.state,
        "a",
        "wake",
        rng=ScriptedDice(WAKES),
        to=due.target,
        defer=["a"],
        then=due.then,
    )
    assert on.character("a").vital is Vital.UP
    assert on.state.clock == EVENING + 10 * HOUR and on.due == ()
    bea = on.character("b")
    # The illness ended that morning, but the bedtime one governs the night (R28): 2, not 4.
    assert bea.illness is None
    assert (bea.pv, bea.flux) == (7, 4)
    assert "R28" in on.rules
    # Aldo, stabilised at bedtime, was not a sleeper: he wakes at 1 PV (R13), no night's 4.
    assert on.character("a").pv == 1


def test_r34_r17_a_sleeper_brought_down_while_the_clock_waited_gets_nothing():
    stopped = night_rest(campaign(stabilised(), hero("b", pv=5)), hours=8, rng=NO_DICE, defer=["a"])
    [due] = stopped.due
    dead = stopped.state.with_character(replace(stopped.state.character("b"), vital=Vital.DEAD))
    on = resume_clock(dead, "a", "wake", rng=ScriptedDice(WAKES), to=due.target, then=due.then)
    assert on.character("b").pv == 5
    assert any("ne lui rend rien" in line.fr for line in on.lines)


def test_r34_r18_the_hour_rests_1d4_waits_for_the_roll_in_its_hour():
    stopped = hour_rest(campaign(stabilised()), rng=NO_DICE, defer=["a"])
    [due] = stopped.due
    assert due.then == {"action": "hour_rest"} and stopped.state.clock == EVENING + HOUR
    assert stopped.state.pending_hour_rest is None and stopped.state.hour_rests_used == 1
    on = resume_clock(
        stopped.state, "a", "wake", rng=ScriptedDice([*WAKES, 4]), to=due.target, then=due.then
    )
    assert on.state.pending_hour_rest == 4 and on.character("a").vital is Vital.UP


def test_r34_r33_a_round_with_a_length_begins_once_the_roll_in_it_is_answered():
    hourly = Ruleset(round_seconds=3600)
    fighting = start_fight(campaign(stabilised(), hero("b")), ["b"], ruleset=hourly).state
    assert moves_clock(fighting, hourly) and not moves_clock(fighting)
    stopped = next_turn(fighting, rng=NO_DICE, ruleset=hourly, defer=["a"])
    [due] = stopped.due
    assert due.then == {"action": "new_round"}
    assert stopped.state.fight.round == 1  # the round ended, the next has not begun
    on = resume_clock(
        stopped.state, "a", "wake", rng=ScriptedDice(WAKES), to=due.target, ruleset=hourly,
        then=due.then,
    )  # fmt: skip
    assert (on.state.fight.round, on.state.fight.turn) == (2, 0)
    assert on.state.clock == EVENING + HOUR
    # Ended by the GM while the clock waited: the clock goes on, no round begins.
    ended = end_fight(stopped.state, ruleset=hourly).state
    after = resume_clock(
        ended, "a", "wake", rng=ScriptedDice(WAKES), to=due.target, ruleset=hourly, then=due.then
    )
    assert after.state.fight is None and after.state.clock == EVENING + HOUR
