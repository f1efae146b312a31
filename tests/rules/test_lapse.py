"""R34: a rules roll asked of a player lapses when the rules no longer call for it.

Aldo (`hero`): 10 PV, VAI 2; the campaign's difficulty 10. The clock stops at 21:00 for his
hour of coma (R11) or his waking try (R13) when his player rolls his rules rolls (`defer`).
"""

from dataclasses import replace
from datetime import timedelta

import pytest

from rules.engine import (
    NotDue,
    Ruleset,
    ScriptedDice,
    Vital,
    advance_clock,
    gm_end_coma,
    heal,
    hour_rest,
    lapse_reason,
    lapse_roll,
    next_turn,
    night_rest,
    resume_clock,
    start_fight,
    take_damage,
)
from rules.engine.state import CAUSE_DEATHS_DOOR, Condition, ConditionKind
from tests.rules.util import EVENING, campaign, hero

HOUR = timedelta(hours=1)
NO_DICE = ScriptedDice([])


def _coma(pv=-2, **changes):
    return hero(pv=pv, vital=Vital.COMA, next_coma_hour=EVENING + HOUR, **changes)


def _stopped_in_coma(*others, minutes=180):
    """The clock stopped at 21:00 for Aldo's R11 test (PV −3 after the hour's loss)."""
    start = campaign(_coma(), *others)
    stopped = advance_clock(start, minutes=minutes, rng=NO_DICE, defer=["a"])
    [due] = stopped.due
    return stopped.state, due


def _with(state, key="a", **changes):
    return state.with_character(replace(state.character(key), **changes))


def test_r11_the_hours_loss_is_shown_when_the_clock_stops_then_the_test_is_asked():
    state, due = _stopped_in_coma()
    assert (due.kind, due.rule_id, due.at) == ("coma_hour", "R11", EVENING + HOUR)
    assert state.character("a").pv == -3
    assert lapse_reason(state, "a", "coma_hour", due.at) is None
    # The answer rolls only the test: 9 + 2 ≥ 10, no second loss for that hour.
    on = resume_clock(state, "a", "coma_hour", rng=ScriptedDice([9]), to=due.at)
    assert on.character("a").pv == -3 and [c.rule_id for c in on.checks] == ["R11"]


def test_r34_r15_r11_healed_above_0_the_coma_test_lapses_and_the_clock_goes_on():
    state, due = _stopped_in_coma()
    healed = heal(state, "a", 5).state  # −3 → 2: stabilised (R15)
    assert healed.character("a").vital is Vital.STABILISED
    reason = lapse_reason(healed, "a", "coma_hour", due.at)
    assert reason is not None and "R15" in reason[0] and "au-dessus de 0 PV" in reason[0]
    with pytest.raises(NotDue, match="au-dessus de 0 PV"):
        resume_clock(healed, "a", "coma_hour", rng=NO_DICE, to=due.target)
    # Stabilised at 21:00, the automatic waking tries (R13) come at 22:00 and 23:00: the
    # clock goes on from 21:00 and rolls them (nobody defers them here).
    on = lapse_roll(healed, "a", "coma_hour", due.at, rng=ScriptedDice([1, 1]), to=due.target)
    assert on.state.clock == EVENING + 3 * HOUR
    assert [c.rule_id for c in on.checks] == ["R13", "R13"]
    assert on.lines[0].rule_id == "R34"
    assert "devient sans objet" in on.lines[0].fr and "(R11)" in on.lines[0].fr
    assert "l’horloge reprend" in on.lines[1].fr
    assert {"R34", "R11"} <= set(on.rules)


def test_r34_r11_the_clock_may_stop_again_after_a_lapse():
    state, due = _stopped_in_coma()
    healed = heal(state, "a", 5).state
    on = lapse_roll(healed, "a", "coma_hour", due.at, rng=NO_DICE, to=due.target, defer=["a"])
    # Stabilised at 21:00: the waking try at 22:00 is the player's again (R13).
    assert on.state.clock == EVENING + 2 * HOUR
    assert [(d.kind, d.at) for d in on.due] == [("wake", EVENING + 2 * HOUR)]


def test_r34_r12_stabilised_or_r16_dead_or_r15_coma_ended_the_coma_test_lapses():
    state, due = _stopped_in_coma()
    stabilised = _with(state, vital=Vital.STABILISED, next_coma_hour=None, stabilised_at=due.at)
    assert "R12" in lapse_reason(stabilised, "a", "coma_hour", due.at)[0]
    dead = _with(state, vital=Vital.DEAD)
    assert lapse_reason(dead, "a", "coma_hour", due.at) == ("mort·e (R16)", "dead (R16)")
    awake = gm_end_coma(state, "a").state
    assert "R15" in lapse_reason(awake, "a", "coma_hour", due.at)[0]
    # Healed but still at or below 0, within VAI: the hour asks no test any more (R11).
    within = _with(state, pv=-1)
    assert "ne dépasse plus" in lapse_reason(within, "a", "coma_hour", due.at)[0]


def test_r34_r10_healed_above_0_the_survie_at_0_lapses_without_moving_the_clock():
    down = take_damage(campaign(), "a", 10, rng=NO_DICE, defer=["a"])
    [due] = down.due
    assert lapse_reason(down.state, "a", "deaths_door", due.at) is None
    healed = heal(down.state, "a", 3).state
    assert "R10" in lapse_reason(healed, "a", "deaths_door", due.at)[0]
    out = lapse_roll(healed, "a", "deaths_door", due.at, rng=NO_DICE)
    assert out.state.clock == EVENING and out.changes == ()
    assert "Survie à 0 PV (R10)" in out.lines[0].fr
    # In a coma by the GM's hand meanwhile: not at death's door any more either.
    coma = _with(down.state, vital=Vital.COMA)
    assert "coma" in lapse_reason(coma, "a", "deaths_door", due.at)[0]
    with pytest.raises(NotDue, match="toujours dû"):
        lapse_roll(down.state, "a", "deaths_door", due.at, rng=NO_DICE)


def test_r34_r31_the_volonte_lapses_once_unconscious():
    night = night_rest(campaign(), hours=4, rng=NO_DICE, defer=["a"])
    [due] = night.due
    assert lapse_reason(night.state, "a", "sleep", due.at) is None
    down = _with(night.state, pv=-1, vital=Vital.COMA)
    assert "R31" in lapse_reason(down, "a", "sleep", due.at)[0]


def test_r34_r13_the_waking_try_lapses_once_awake_in_a_coma_again_or_tries_turned_off():
    start = campaign(hero(pv=-1, vital=Vital.STABILISED, stabilised_at=EVENING))
    stopped = advance_clock(start, minutes=120, rng=NO_DICE, defer=["a"])
    [due] = stopped.due
    state = stopped.state
    assert lapse_reason(state, "a", "wake", due.at) is None
    awake = gm_end_coma(state, "a").state
    assert "R15" in lapse_reason(awake, "a", "wake", due.at)[0]
    hurt = take_damage(state, "a", 1, rng=NO_DICE).state  # R12: back in a coma
    assert "R12" in lapse_reason(hurt, "a", "wake", due.at)[0]
    off = Ruleset(automatic_wake_tries=False)
    assert "désactivés" in lapse_reason(state, "a", "wake", due.at, off)[0]
    # Tried by hand at that hour meanwhile: the next try is an hour later, none now.
    tried = _with(state, last_wake_try=due.at)
    assert "aucun essai" in lapse_reason(tried, "a", "wake", due.at)[0]
    # A clock that has moved (by an old state) no longer stands where the roll was due.
    later = replace(state, clock=due.at + HOUR)
    assert "R32" in lapse_reason(later, "a", "wake", due.at)[0]


def test_r34_r17_a_lapse_ends_the_night_that_waited():
    bea = hero("b", pv=5)
    sleeping = campaign(hero(pv=-1, vital=Vital.STABILISED, stabilised_at=EVENING), bea)
    stopped = night_rest(sleeping, hours=8, rng=NO_DICE, defer=["a"])
    [due] = stopped.due
    dead = _with(stopped.state, vital=Vital.DEAD)
    on = lapse_roll(dead, "a", "wake", due.at, rng=NO_DICE, to=due.target, then=due.then)
    assert on.state.clock == EVENING + 8 * HOUR
    assert on.character("b").pv == 9  # the night's +4 (R17)


def test_r34_r33_a_lapse_begins_the_round_that_waited():
    hourly = Ruleset(round_seconds=3600)
    start = campaign(hero(pv=-1, vital=Vital.STABILISED, stabilised_at=EVENING), hero("b"))
    fighting = start_fight(start, ["b"], ruleset=hourly).state
    stopped = next_turn(fighting, rng=NO_DICE, ruleset=hourly, defer=["a"])
    [due] = stopped.due
    awake = gm_end_coma(stopped.state, "a").state
    on = lapse_roll(
        awake, "a", "wake", due.at, rng=NO_DICE, to=due.target, then=due.then, ruleset=hourly
    )
    assert on.state.fight.round == 2 and on.state.clock == EVENING + HOUR


def test_r34_r18_a_lapse_gives_the_hour_rests_1d4():
    stopped = hour_rest(
        campaign(hero(pv=-1, vital=Vital.STABILISED, stabilised_at=EVENING)),
        rng=NO_DICE,
        defer=["a"],
    )
    [due] = stopped.due
    dead = _with(stopped.state, vital=Vital.DEAD)
    on = lapse_roll(dead, "a", "wake", due.at, rng=ScriptedDice([3]), to=due.target, then=due.then)
    assert on.state.pending_hour_rest == 3


def test_r34_r10_borrowed_time_is_not_death_door_any_more():
    exhausted = Condition(ConditionKind.EXTENUE, CAUSE_DEATHS_DOOR)
    borrowed = campaign(hero(pv=-1, vital=Vital.BORROWED_TIME, conditions=(exhausted,)))
    assert lapse_reason(borrowed, "a", "deaths_door", EVENING) is not None
