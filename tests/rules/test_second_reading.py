"""RULES.md, "Settled points (second reading)" (issue 15): one test or more per point."""

from datetime import datetime, timedelta

import pytest

from rules.engine import (
    Illness,
    Ruleset,
    ScriptedDice,
    Severity,
    Vital,
    WakeAlreadyTried,
    advance_clock,
    attempt_stabilise,
    attempt_wake,
    hour_rest,
    replay,
    share_hour_rest,
    take_damage,
)
from tests.rules.util import EVENING, campaign, hero

NO_DICE = ScriptedDice([])
HOUR = timedelta(hours=1)
MORNING = datetime(2024, 5, 2, 8, 0)
TRIES_OFF = Ruleset(automatic_wake_tries=False)


def at(hour, minute=0, day=2):
    return datetime(2024, 5, day, hour, minute)


def stabilised(key="a", when=MORNING, pv=-1, **changes):
    return hero(key, vital=Vital.STABILISED, pv=pv, stabilised_at=when, **changes)


def on_borrowed_time(state, key="a"):
    """`key` takes 12 at the state's clock and passes R10's Survie test (8 + VAI 2)."""
    return take_damage(state, key, 12, rng=ScriptedDice([8])).state


def wake_times(outcome):
    return [c.at for c in outcome.checks if c.rule_id == "R13"]


# R13 / R32 — the clock never replays time


def test_r13_tries_switched_on_count_from_that_moment_not_from_the_hours_they_were_off():
    state = campaign(stabilised(), clock=MORNING)
    off = advance_clock(state, to=at(18), rng=NO_DICE, ruleset=TRIES_OFF)
    assert off.checks == () and off.character("a").wake_tries_from == at(18)
    # Switched on at 18:00: no try for 09:00 … 18:00 (NO_DICE would run out on the first one).
    on = advance_clock(off.state, to=at(18, 30), rng=NO_DICE)
    assert on.checks == () and on.character("a").vital is Vital.STABILISED
    later = advance_clock(on.state, to=at(20), rng=ScriptedDice([3, 4]))
    assert wake_times(later) == [at(19), at(20)]


def test_r13_each_move_of_the_clock_with_tries_off_moves_where_they_count_from():
    state = campaign(stabilised(), clock=MORNING)
    for minutes in (20, 20, 20, 20):
        state = advance_clock(state, minutes=minutes, rng=NO_DICE, ruleset=TRIES_OFF).state
    assert state.character("a").wake_tries_from == at(9, 20)
    outcome = advance_clock(state, to=at(10, 20), rng=ScriptedDice([3]))
    assert wake_times(outcome) == [at(10, 20)]


def test_r13_tries_off_are_explained_and_undone_by_replay():
    state = campaign(stabilised(), hero("b"), clock=MORNING)
    outcome = advance_clock(state, minutes=90, rng=NO_DICE, ruleset=TRIES_OFF)
    assert [(c.character_key, c.field) for c in outcome.changes] == [
        ("a", "wake_tries_from"),
        (None, "clock"),
    ]
    assert "aucun essai, même s'ils sont réactivés" in outcome.explanation_fr
    assert replay(state, outcome.changes) == outcome.state


def test_r13_tries_off_leave_the_try_by_hand_alone():
    state = advance_clock(
        campaign(stabilised(), clock=MORNING), to=at(18), rng=NO_DICE, ruleset=TRIES_OFF
    ).state
    outcome = attempt_wake(state, "a", rng=ScriptedDice([3]), ruleset=TRIES_OFF)
    assert outcome.character("a").last_wake_try == at(18)


def test_r13_after_a_try_by_hand_the_next_automatic_try_is_an_hour_after_it():
    state = advance_clock(campaign(stabilised(), clock=MORNING), minutes=25, rng=NO_DICE).state
    state = attempt_wake(state, "a", rng=ScriptedDice([3])).state  # 08:25, fails
    # Not at 09:00 (an hour after the stabilisation): at 09:25.
    assert advance_clock(state, to=at(9, 24), rng=NO_DICE).checks == ()
    outcome = advance_clock(state, to=at(10, 30), rng=ScriptedDice([3, 4]))
    assert wake_times(outcome) == [at(9, 25), at(10, 25)]
    with pytest.raises(WakeAlreadyTried):
        attempt_wake(outcome.state, "a", rng=ScriptedDice([3]))


def test_r32_changing_a_setting_never_replays_time_already_passed():
    # The ten minutes of R10 were fixed when the test passed; a longer delay set later
    # does not put off a coma already counted.
    state = on_borrowed_time(campaign(hero(), clock=MORNING))
    longer = Ruleset(coma_delay=timedelta(minutes=30))
    coma = advance_clock(state, minutes=10, rng=NO_DICE, ruleset=longer)
    assert coma.character("a").vital is Vital.COMA
    # 06:00 has passed; moving the morning to 07:00 at 07:30 counts no second morning today.
    ill = campaign(hero(illness=Illness(Severity.MILD, 3)), clock=at(5))
    state = advance_clock(ill, to=at(7, 30), rng=NO_DICE).state
    assert state.character("a").illness.days_left == 2
    later = advance_clock(state, to=at(12), rng=NO_DICE, ruleset=Ruleset(morning_hour=7))
    assert later.character("a").illness.days_left == 2


# R11 / R12 — hurt again once stabilised


def test_r12_a_stabilised_character_hurt_again_is_back_in_a_coma():
    outcome = take_damage(campaign(stabilised(when=EVENING)), "a", 2, rng=NO_DICE)
    character = outcome.character("a")
    assert character.vital is Vital.COMA and character.pv == -3
    assert character.stabilised_at is None and character.next_coma_hour == EVENING + HOUR
    assert "no longer stabilised" in outcome.explanation_en and "R12" in outcome.rules
    # 1 PV an hour again (R11: −PV 4 > VAI 2, so a Survie test too) …
    hours = advance_clock(outcome.state, minutes=60, rng=ScriptedDice([10]))
    assert hours.character("a").pv == -4 and hours.checks[0].rule_id == "R11"
    # … until stabilised again.
    again = attempt_stabilise(hours.state, "a", rng=ScriptedDice([10]), healer_esp=3)
    assert again.character("a").vital is Vital.STABILISED


def test_r12_the_campaign_may_keep_a_hurt_character_stabilised():
    keep = Ruleset(damage_ends_stabilisation=False)
    outcome = take_damage(campaign(stabilised(when=EVENING)), "a", 2, rng=NO_DICE, ruleset=keep)
    assert outcome.character("a").vital is Vital.STABILISED and outcome.character("a").pv == -3
    later = advance_clock(outcome.state, minutes=59, rng=NO_DICE, ruleset=keep)
    assert later.character("a").pv == -3


def test_r12_only_a_wound_that_gets_through_counts():
    # Stabilised above 0 by healing (R15), a wound that leaves PV above 0 keeps it so; PA that
    # stop the whole blow leave nothing to count.
    above = take_damage(campaign(stabilised(pv=3, when=EVENING)), "a", 2, rng=NO_DICE)
    assert above.character("a").vital is Vital.STABILISED and above.character("a").pv == 1
    armoured = take_damage(campaign(stabilised(pa=3, when=EVENING)), "a", 2, rng=NO_DICE)
    assert armoured.character("a").vital is Vital.STABILISED and armoured.changes == ()


# R18 — an hour's rest takes an hour


def test_r18_an_hour_rest_moves_the_clock_one_hour_with_what_falls_due_in_it():
    state = on_borrowed_time(campaign(hero(), stabilised("s", when=EVENING)))
    # s's waking try at 21:00 (3 fails), then the group's D4 at the end of the hour (2).
    outcome = hour_rest(state, rng=ScriptedDice([3, 2]))
    assert outcome.state.clock == EVENING + HOUR
    assert outcome.character("a").vital is Vital.COMA  # the ten minutes ended at 20:10
    assert [c.at for c in outcome.checks] == [EVENING + HOUR]
    (d4,) = outcome.rolls
    assert (d4.purpose, d4.total, d4.at) == ("hour_rest", 2, EVENING + HOUR)
    assert outcome.state.pending_hour_rest == 2
    assert outcome.explanation_en.startswith("R18 · the group rests for an hour, until 01/05 21:00")


def test_r18_a_coma_hour_inside_the_rest_is_lost_before_the_share():
    coma = hero("c", vital=Vital.COMA, pv=-1, next_coma_hour=EVENING + timedelta(minutes=30))
    rolled = hour_rest(campaign(hero(), coma), rng=ScriptedDice([4]))
    assert rolled.character("c").pv == -2
    shared = share_hour_rest(rolled.state, splits={"c": (4, 0)})
    assert shared.character("c").pv == 2 and shared.character("c").vital is Vital.STABILISED


def test_r18_a_rest_counts_in_the_half_day_it_starts_in():
    # Begun at 17:30: counted in the afternoon; the 18:00 reset on the way starts the evening.
    outcome = hour_rest(campaign(hero(), clock=at(17, 30, day=1)), rng=ScriptedDice([1]))
    used = [c.after for c in outcome.changes if c.field == "hour_rests_used"]
    assert used == [1, 0] and outcome.state.hour_rests_used == 0


# R32 — one moment


def test_r32_at_one_moment_the_morning_then_every_r10_then_r11_then_r13():
    six = at(6)
    # State order s, c, b is the reverse of the rule order.
    s = stabilised("s", when=six - HOUR)
    c = hero("c", vital=Vital.COMA, pv=-2, next_coma_hour=six)
    b = hero("b", vital=Vital.BORROWED_TIME, pv=-1, coma_due=six)
    ill = hero("i", illness=Illness(Severity.MILD, 2))
    state = campaign(s, c, b, ill, clock=at(5, 30))
    outcome = advance_clock(state, to=six, rng=ScriptedDice([10, 3]))
    order = [
        (e.character_key, getattr(e, "field", "check"), e.rule_id)
        for e in outcome.events
        if e.character_key is not None
    ]
    assert order[0] == ("i", "illness", "R30")
    firsts = [next(i for i, o in enumerate(order) if o[0] == key) for key in "bcs"]
    assert firsts == sorted(firsts)
    assert ("c", "check", "R11") in order and ("s", "check", "R13") in order


def test_r32_an_illness_ending_that_morning_gives_no_malus_to_that_hours_test():
    # −PV 3 > VAI 2 at 06:00: R11's Survie test. 8 + 2 = 10 passes only without the −3.
    c = hero(
        "c", vital=Vital.COMA, pv=-2, illness=Illness(Severity.SEVERE, 0), next_coma_hour=at(6)
    )
    outcome = advance_clock(campaign(c, clock=at(5)), to=at(6), rng=ScriptedDice([8]))
    (survie,) = outcome.checks
    assert survie.modifiers == () and survie.success
    assert outcome.character("c").illness is None and outcome.character("c").vital is Vital.COMA


def test_r32_a_moment_the_clock_reaches_exactly_is_passed():
    borrowed = on_borrowed_time(campaign(hero(), clock=MORNING))
    assert advance_clock(borrowed, to=at(8, 10), rng=NO_DICE).character("a").vital is Vital.COMA
    ill = campaign(hero(illness=Illness(Severity.MILD, 2)), clock=at(5))
    assert advance_clock(ill, to=at(6), rng=NO_DICE).character("a").illness.days_left == 1
    rested = campaign(hero(), clock=at(17, day=1), hour_rests_used=1)
    assert advance_clock(rested, to=at(18, day=1), rng=NO_DICE).state.hour_rests_used == 0
