"""What the campaign's settings change and the order in which the clock applies what falls due
(R10–R13, R17–R19, R26, R28, R31, R32): one test or more per point settled in docs/rules.md."""

from datetime import datetime, timedelta

import pytest

from rules.engine import (
    CAUSE_DEATHS_DOOR,
    CAUSE_FLUX,
    CAUSE_SLEEP,
    Condition,
    ConditionKind,
    Illness,
    Ruleset,
    ScriptedDice,
    Severity,
    Vital,
    WakeAlreadyTried,
    advance_clock,
    attempt_stabilise,
    attempt_wake,
    clinic_night,
    end_scene,
    fall_ill,
    heal,
    hour_rest,
    night_rest,
    replay,
    restore_flux,
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
    assert "aucun essai, même s’ils sont réactivés" in outcome.explanation_fr
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


# R10 / R26 — borrowed time


def test_r10_damage_again_on_borrowed_time_asks_no_test_and_keeps_the_ten_minutes():
    state = on_borrowed_time(campaign(hero()))
    state = advance_clock(state, minutes=5, rng=NO_DICE).state
    outcome = take_damage(state, "a", 3, rng=NO_DICE)
    assert outcome.checks == ()
    assert outcome.character("a").coma_due == EVENING + timedelta(minutes=10)
    vital = [
        advance_clock(outcome.state, minutes=m, rng=NO_DICE).character("a").vital for m in (4, 5)
    ]
    assert vital == [Vital.BORROWED_TIME, Vital.COMA]  # 20:09, 20:10


def test_r10_extenue_from_r10_ends_when_pv_are_above_zero_or_at_the_coma():
    deaths_door = Condition(ConditionKind.EXTENUE, CAUSE_DEATHS_DOOR)
    state = on_borrowed_time(campaign(hero()))
    assert state.character("a").conditions == (deaths_door,)
    assert heal(state, "a", 2).character("a").conditions == (deaths_door,)  # PV 0: still there
    assert heal(state, "a", 3).character("a").conditions == ()
    assert advance_clock(state, minutes=10, rng=NO_DICE).character("a").conditions == ()
    assert end_scene(state).character("a").conditions == ()


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
    assert outcome.explanation_en.startswith(
        "R18 · the group rests for an hour, until day 8888, 21:00"
    )
    assert "le groupe se repose une heure, jusqu’au jour 8888 à 21:00" in outcome.explanation_fr


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


# R26 / R6 — Exténué from Flux 0 through a coma


def test_r26_extenue_from_flux_zero_stays_through_the_coma_and_zeroes_odd_dice():
    flux_zero = Condition(ConditionKind.EXTENUE, CAUSE_FLUX)
    drained = hero(flux=0, conditions=(flux_zero,))
    # R10's test: natural 11 counts 0 (R6), 0 + 2 < 10: straight into the coma.
    down = take_damage(campaign(drained), "a", 12, rng=ScriptedDice([11]))
    assert down.checks[0].die_value == 0 and down.checks[0].die_rule == "R6"
    assert down.character("a").vital is Vital.COMA
    assert down.character("a").conditions == (flux_zero,)
    # R11's test an hour later (−PV 3 > VAI 2): 11 still counts 0: death.
    dead = advance_clock(down.state, minutes=60, rng=ScriptedDice([11]))
    assert dead.checks[0].die_value == 0 and dead.character("a").vital is Vital.DEAD
    # Flux above 0 in the coma ends it: the same 11 counts 11.
    restored = restore_flux(down.state, "a", 1)
    assert restored.character("a").conditions == ()
    alive = advance_clock(restored.state, minutes=60, rng=ScriptedDice([11]))
    assert alive.checks[0].die_value == 11 and alive.character("a").vital is Vital.COMA


def test_r26_extenue_from_flux_zero_zeroes_odd_dice_on_waking_tries_too():
    drained = stabilised(
        when=EVENING, flux=0, conditions=(Condition(ConditionKind.EXTENUE, CAUSE_FLUX),)
    )
    outcome = attempt_wake(campaign(drained), "a", rng=ScriptedDice([19]))
    assert outcome.checks[0].die_value == 0 and outcome.character("a").vital is Vital.STABILISED


# R17 / R28 / R31 — what a night gives


@pytest.mark.parametrize(
    ("hours", "poor", "severity", "gain"),
    [
        (8, False, None, 4),
        (8, True, None, 2),
        (4, False, None, 2),
        (4, True, None, 2),  # short and poor: halved once, never a quarter
        (8, False, Severity.MILD, 4),
        (4, True, Severity.MILD, 2),
        (8, False, Severity.ILL, 2),
        (4, True, Severity.ILL, 2),
        (8, False, Severity.SEVERE, 1),
        (4, True, Severity.SEVERE, 1),
        (8, False, Severity.CRITICAL, 0),
        (4, True, Severity.CRITICAL, 0),
    ],
)
def test_r17_a_night_gives_its_own_then_the_illness_caps_it(hours, poor, severity, gain):
    illness = None if severity is None else Illness(severity, 3)
    character = hero(pv=1, flux=1, illness=illness)
    # A short night asks R31's Volonté test: a 20 passes whatever the maluses.
    outcome = night_rest(
        campaign(character), hours=hours, poor_quality=poor, rng=ScriptedDice([20])
    )
    assert (outcome.character("a").pv, outcome.character("a").flux) == (1 + gain, 1 + gain)


def test_r28_the_bedtime_illness_governs_the_night_that_ends_it():
    ill = hero(pv=1, flux=1, illness=Illness(Severity.SEVERE, 0))
    outcome = night_rest(campaign(ill), hours=10, rng=NO_DICE)  # 20:00 → 06:00, the morning
    assert outcome.character("a").illness is None
    assert (outcome.character("a").pv, outcome.character("a").flux) == (2, 2)


def test_r19_a_clinic_adds_its_d4_on_top_of_a_short_poor_ill_night():
    ill = hero(pv=1, flux=1, illness=Illness(Severity.ILL, 3))
    outcome = clinic_night(
        campaign(ill), keys=["a"], hours=4, poor_quality=True, rng=ScriptedDice([3, 20])
    )
    assert (outcome.character("a").pv, outcome.character("a").flux) == (1 + 2 + 3, 1 + 2)


# R31 — sleep deprivation


def _malus(check):
    return [(m.value, m.label) for m in check.modifiers if m.label == "privation de sommeil"]


def test_r31_the_sleep_deprivation_malus_applies_to_every_test():
    deprived = hero(sleep_deprived=True)
    survie = take_damage(campaign(deprived), "a", 10, rng=ScriptedDice([10])).checks[0]
    volonte = night_rest(campaign(deprived), hours=4, rng=ScriptedDice([10])).checks[0]
    constitution = fall_ill(
        campaign(deprived), "a", severity=Severity.MILD, rng=ScriptedDice([10, 1])
    ).checks[0]
    patient = hero("p", vital=Vital.COMA, pv=-1, next_coma_hour=EVENING + HOUR)
    medecine = attempt_stabilise(
        campaign(patient, deprived), "p", rng=ScriptedDice([10]), healer_key="a"
    ).checks[0]
    coma = hero(vital=Vital.COMA, pv=-2, next_coma_hour=EVENING + HOUR, sleep_deprived=True)
    r11 = advance_clock(campaign(coma), minutes=60, rng=ScriptedDice([10])).checks[0]
    r13 = attempt_wake(
        campaign(stabilised(when=EVENING, sleep_deprived=True)), "a", rng=ScriptedDice([3])
    ).checks[0]
    checks = (survie, volonte, constitution, medecine, r11, r13)
    assert [c.skill for c in checks] == [
        "Survie",
        "Volonté",
        "Constitution",
        "Médecine",
        "Survie",
        "Survie",
    ]
    assert all(_malus(c) == [(-2, "privation de sommeil")] for c in checks)


def test_r31_a_full_but_poor_night_ends_it_only_when_the_campaign_says_so():
    sleepy = hero(sleep_deprived=True, conditions=(Condition(ConditionKind.EXTENUE, CAUSE_SLEEP),))
    poor = night_rest(campaign(sleepy), hours=8, poor_quality=True, rng=NO_DICE)
    assert poor.character("a").sleep_deprived and poor.character("a").conditions
    proper = night_rest(
        campaign(sleepy),
        hours=8,
        poor_quality=True,
        rng=NO_DICE,
        ruleset=Ruleset(poor_night_is_proper=True),
    )
    assert not proper.character("a").sleep_deprived and proper.character("a").conditions == ()


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
