"""RULES.md, "Settled points (second reading)" (issue 15): one test or more per point."""

from datetime import datetime, timedelta

from rules.engine import (
    Illness,
    Ruleset,
    ScriptedDice,
    Severity,
    Vital,
    advance_clock,
    take_damage,
)
from tests.rules.util import campaign, hero

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
