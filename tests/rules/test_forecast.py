"""The clock's forecast (R32 with R11, R13, R30, R31): exact odds, proven against every dice
sequence the operation itself can be played with, and against figures computed by hand."""

from dataclasses import replace
from datetime import timedelta
from fractions import Fraction

import pytest

from rules.engine import (
    DiceScriptExhausted,
    HourRestLimitReached,
    Illness,
    Ruleset,
    ScriptedDice,
    Severity,
    Vital,
    advance_clock,
    forecast_clock,
    forecast_hour_rest,
    forecast_night,
    hour_rest,
    night_rest,
    percent_text,
)
from rules.engine.forecast import outcomes
from tests.rules.util import EVENING, campaign, hero

HALF_PAST = EVENING + timedelta(minutes=30)


def brute_force(run):
    """Every sequence of die faces `run(dice)` can be played with, each to its end, with its
    probability: the engine plays the real operation, nothing is grouped or skipped."""
    ends = []
    branches = [((), Fraction(1))]
    while branches:
        faces, weight = branches.pop()
        try:
            outcome = run(ScriptedDice(faces, typed_in=False))
        except DiceScriptExhausted as missing:
            sides = missing.sides
            branches.extend(((*faces, f), weight / sides) for f in range(1, sides + 1))
        else:
            ends.append((weight, outcome))
    assert sum(w for w, _ in ends) == 1
    return ends


def brute_figures(ends, key, start_vital):
    death = sum((w for w, o in ends if o.character(key).vital is Vital.DEAD), Fraction(0))
    woke = sum(
        (
            w
            for w, o in ends
            if start_vital is Vital.STABILISED and o.character(key).vital is Vital.UP
        ),
        Fraction(0),
    )
    most = {}
    for _, outcome in ends:
        seen = {}
        for check in outcome.checks:
            if check.character_key == key:
                seen[check.rule_id] = seen.get(check.rule_id, 0) + 1
        for rule, n in seen.items():
            most[rule] = max(most.get(rule, 0), n)
    return death, woke, most


def coma(key="b", pv=-3, **changes):
    """In a coma past R11's threshold (−PV > VAI 2): every hour from 20:30 asks a Survie."""
    return hero(key, vital=Vital.COMA, pv=pv, next_coma_hour=HALF_PAST, **changes)


def check_against_brute_force(state, weighed, run):
    ends = brute_force(run)
    by_key = {f.key: f for f in weighed}
    for character in state.characters:
        death, woke, most = brute_figures(ends, character.key, character.vital)
        if not most:
            assert character.key not in by_key
            continue
        found = by_key[character.key]
        assert found.death == death
        assert found.wake == woke
        assert dict(found.tests) == most


@pytest.mark.parametrize("hours", [2, 3])
def test_r11_r32_coma_chain_odds_equal_every_dice_sequence(hours):
    """R11 over a 2- and a 3-hour clock move: the forecast's death risk and test count are
    those of every D20 sequence the clock itself can roll, weighed one by one."""
    state = campaign(coma(illness=Illness(Severity.ILL, 3)))
    weighed = forecast_clock(state, minutes=60 * hours)
    assert weighed[0].tests == (("R11", hours),)
    check_against_brute_force(
        state, weighed, lambda dice: advance_clock(state, rng=dice, minutes=60 * hours)
    )


def test_r11_r13_r32_two_characters_and_a_wake_with_its_sequel_die_equal_brute_force():
    """Two characters at once (a coma crossing R11's threshold on the way, a stabilised one
    trying to wake with the D6 of a sequel, R13/R14): each figure equals the enumeration."""
    state = campaign(
        coma("b", pv=-2),  # 20:30 −3: past the threshold, a test
        hero("s", vital=Vital.STABILISED, pv=-1, stabilised_at=EVENING - timedelta(minutes=15)),
        hero("a"),
    )
    weighed = forecast_clock(state, minutes=60)
    assert [f.key for f in weighed] == ["b", "s"]
    check_against_brute_force(
        state, weighed, lambda dice: advance_clock(state, rng=dice, minutes=60)
    )


def test_r11_r30_r32_an_illness_ending_at_the_morning_ends_its_malus_mid_chain():
    """R30: an illness whose last day ends at 06:00 gives no malus to the hours after; the
    forecast follows it as the clock would (enumerated over 2 hours, 05:00 to 07:00)."""
    early = EVENING.replace(hour=5) + timedelta(days=1)
    state = campaign(
        hero(
            "b",
            vital=Vital.COMA,
            pv=-3,
            next_coma_hour=early + timedelta(minutes=30),
            illness=Illness(Severity.SEVERE, 0),
        ),
        clock=early,
    )
    weighed = forecast_clock(state, minutes=120)
    # By hand: 05:30 at VAI 2 − 3 (faces 11 and up pass), 06:30 at VAI 2 (8 and up).
    assert weighed[0].death == 1 - Fraction(10, 20) * Fraction(13, 20)
    check_against_brute_force(
        state, weighed, lambda dice: advance_clock(state, rng=dice, minutes=120)
    )


def test_r31_r32_a_short_night_and_a_coma_in_it_equal_brute_force():
    """A 1-hour night: the sleeper's Volonté (R31) and the coma's hour (R11)."""
    state = campaign(hero("a"), coma("b", pv=-3))
    weighed = forecast_night(state, hours=1)
    sleeper = next(f for f in weighed if f.key == "a")
    assert sleeper.tests == (("R31", 1),)
    # Volonté VAI 2 at 10: faces 8 and up pass; a failure leaves the sleeper Exténué.
    assert sleeper.exhausted == Fraction(7, 20)
    check_against_brute_force(state, weighed, lambda dice: night_rest(state, hours=1, rng=dice))


def test_r18_r11_an_hour_rest_weighs_its_hour_and_its_d4_changes_nothing():
    state = campaign(coma("b"))
    weighed = forecast_hour_rest(state)
    assert weighed[0].tests == (("R11", 1),)
    check_against_brute_force(state, weighed, lambda dice: hour_rest(state, rng=dice))


def survive_one(vai, malus, difficulty=10):
    """By hand, without the engine: the D20 faces f with f + VAI − malus ≥ difficulty."""
    return Fraction(sum(1 for f in range(1, 21) if f + vai - malus >= difficulty), 20)


def test_r11_two_hour_chain_death_risk_computed_independently():
    """Bastien, VAI 3, malade (−2), past the threshold: two hourly tests at 12/20 each."""
    bastien = coma(name="Bastien", pv=-4, stats={"VAI": 3}, illness=Illness(Severity.ILL, 5))
    (weighed,) = forecast_clock(campaign(bastien), minutes=120)
    expected = 1 - survive_one(3, 2) ** 2
    assert expected == Fraction(16, 25)
    assert weighed.death == expected
    assert weighed.fr == "Bastien (coma, VAI 3, malade) : 2 tests de Survie, risque de mort 64 %"
    assert weighed.en == "Bastien (coma, VAI 3, ill): 2 Survie tests, risk of death 64 %"


def test_r11_ten_hour_chain_death_risk_computed_independently():
    """Ten hours of coma past the threshold, no illness: 1 − (13/20)^10."""
    (weighed,) = forecast_clock(campaign(coma(pv=-5)), minutes=600)
    assert weighed.tests == (("R11", 10),)
    assert weighed.death == 1 - survive_one(2, 0) ** 10
    assert percent_text(weighed.death) == "99 %"


def test_r11_r12_short_of_the_threshold_and_the_dead_roll_nothing():
    """A coma short of R11's threshold for the whole move rolls nothing; nor do the dead or
    the standing characters on a plain clock move: no forecast line for them."""
    state = campaign(
        coma("b", pv=-1),  # −2 at 20:30: not past VAI 2 yet
        hero("d", vital=Vital.DEAD, pv=-9),
        hero("a"),
    )
    assert forecast_clock(state, minutes=60) == ()


def test_r32_to_the_morning_and_settings_are_the_operations_own():
    state = campaign(coma(pv=-5))
    (weighed,) = forecast_clock(state, to_morning=True)
    assert weighed.tests == (("R11", 10),)  # 20:30 … 05:30
    (easier,) = forecast_clock(state, to_morning=True, ruleset=Ruleset(default_difficulty=5))
    assert easier.death < weighed.death


def test_r18_a_refused_operation_is_refused_by_the_forecast_too():
    with pytest.raises(HourRestLimitReached):
        forecast_hour_rest(campaign(coma(), hour_rests_used=9))


def test_r19_night_keys_and_clinic_are_filtered_per_character():
    """Chosen sleepers and the clinic: a character weighed alone keeps its own place in them;
    the clinic's D4 is enumerated like any die."""
    state = campaign(hero("a"), hero("c"))
    weighed = forecast_night(state, hours=3, keys=["a"], clinic_keys=["c"])
    assert sorted(f.key for f in weighed) == ["a", "c"]
    none = forecast_night(state, hours=3, keys=[])
    assert none == ()


def test_percent_text_never_rounds_a_possibility_away():
    assert percent_text(Fraction(0)) == "0 %"
    assert percent_text(Fraction(1)) == "100 %"
    assert percent_text(Fraction(1, 1000)) == "< 1 %"
    assert percent_text(Fraction(999, 1000)) == "> 99 %"
    assert percent_text(Fraction(2, 3)) == "67 %"


def test_outcomes_weigh_plain_dice_faces():
    """Dice other than a test's D20 split into each face (the clinic's D4, R19)."""
    state = campaign(hero("a", pv=5))
    ends = outcomes(
        lambda rng: night_rest(state, hours=8, rng=rng, clinic_keys=["a"]),
    )
    assert sorted(o.character("a").pv for _, o in ends) == [10, 10, 10, 10]
    assert sum(w for w, _ in ends) == 1
    assert len(ends) == 4


def test_r13_forecast_text_names_the_waking_chance():
    state = campaign(
        replace(
            hero("s", vital=Vital.STABILISED, pv=-1, stabilised_at=EVENING),
            name="Sacha",
        )
    )
    (weighed,) = forecast_clock(state, minutes=60)
    assert weighed.fr == "Sacha (stabilisé·e, VAI 2) : 1 essai de réveil, chance de réveil 65 %"


def test_r10_r11_r13_only_a_coma_or_borrowed_time_may_die_on_the_clock():
    """The party bar weighs only those `may_die_on_the_clock` names: every other state's
    death risk over five hours is 0, and the filter by keys leaves the others out."""
    from rules.engine import may_die_on_the_clock

    borrowed = hero("b", vital=Vital.BORROWED_TIME, pv=-3, coma_due=HALF_PAST)
    state = campaign(
        coma("c"),
        borrowed,
        hero("s", vital=Vital.STABILISED, pv=-1, stabilised_at=EVENING),
        hero("a"),
    )
    assert [c.key for c in state.characters if may_die_on_the_clock(c)] == ["c", "b"]
    for weighed in forecast_clock(state, minutes=300):
        assert (weighed.death > 0) == (weighed.key in ("c", "b"))
    only = forecast_clock(state, minutes=120, keys=["b"])
    # Borrowed time runs out at 20:30 (R10), the first coma hour comes at 21:30 (R11).
    assert [(f.key, f.tests) for f in only] == [("b", (("R11", 1),))]
