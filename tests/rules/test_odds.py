"""Exact odds of every roll before it is rolled (R5–R8, R10, R12, R13, R27, R28).

Each rule's odds come from `first_test_odds` running the action's own operation; each is
checked twice: against the number worked out by hand here, and against the same operation
played on every face of the D20 (a scripted die), so the odds and the roll cannot disagree.
"""

from dataclasses import replace
from datetime import timedelta
from fractions import Fraction

import pytest

from rules.engine import (
    CannotSoften,
    CharacterDead,
    CheckPlan,
    Condition,
    ConditionKind,
    Illness,
    InvalidHealer,
    Modifier,
    NotInComa,
    NotStabilised,
    Ruleset,
    ScriptedDice,
    Sequel,
    Severity,
    Soften,
    Surface,
    Vital,
    WakeAlreadyTried,
    attempt_stabilise,
    attempt_wake,
    check,
    fall,
    fall_ill,
    first_test_odds,
    heal,
    plan_check,
    roll_odds,
    take_damage,
)
from tests.rules.util import EVENING, campaign, hero


def faces_won(run) -> Fraction:
    """Play `run(rng)` on each face of the D20 (later dice show 1) and count the successes of
    its first test."""
    wins = 0
    for face in range(1, 21):
        outcome = run(ScriptedDice([face, 1, 1, 1], typed_in=False))
        wins += outcome.checks[0].success
    return Fraction(wins, 20)


def weighed(run):
    """The odds of `run`, after checking that playing every face gives the same."""
    odds = first_test_odds(run)
    assert odds is not None
    assert odds.probability == faces_won(run)
    # The rolled test keeps the same odds with it, for the dice's statistics.
    played = run(ScriptedDice([10, 1, 1, 1], typed_in=False)).checks[0]
    assert Fraction(played.passing_faces, 20) == odds.probability
    return odds


# ---------------------------------------------------------------------------------------------
# R5–R8: a plain test and the rules' own modifiers


def test_r5_a_plain_test_succeeds_on_the_faces_that_reach_the_difficulty():
    # Aldo, VAI 2: d20 + 2 >= 10 on 8..20.
    odds = weighed(lambda rng: check(campaign(), "a", "VAI", rng=rng))
    assert odds.probability == Fraction(13, 20)
    assert odds.percent == 65
    assert (odds.plan.rule_id, odds.plan.stat, odds.plan.difficulty) == ("R5", "VAI", 10)


def test_r5_the_natural_extremes_option_decides_the_first_and_last_faces():
    ruleset = Ruleset(natural_extremes=True)
    hopeless = weighed(
        lambda rng: check(campaign(), "a", "VAI", rng=rng, difficulty=40, ruleset=ruleset)
    )
    certain = weighed(
        lambda rng: check(campaign(), "a", "VAI", rng=rng, difficulty=-5, ruleset=ruleset)
    )
    assert (hopeless.probability, certain.probability) == (Fraction(1, 20), Fraction(19, 20))


def test_r6_an_odd_face_counts_0_while_extenue():
    tired = hero(conditions=(Condition(ConditionKind.EXTENUE),))
    # d20 + 2 >= 10: 8..20 is 13 faces, the odd ones count 0: 8, 10, …, 20 is 7.
    odds = weighed(lambda rng: check(campaign(tired), "a", "VAI", rng=rng))
    assert odds.probability == Fraction(7, 20)
    assert odds.plan.odd_zero is True


def test_r6_immobilise_too():
    stuck = hero(conditions=(Condition(ConditionKind.IMMOBILISE),))
    assert weighed(lambda rng: check(campaign(stuck), "a", "VAI", rng=rng)).percent == 35


def test_r7_each_sequel_lowers_survie_only():
    scarred = hero(sequels=(Sequel("ADR"), Sequel("PUI")))
    survie = weighed(lambda rng: check(campaign(scarred), "a", "VAI", rng=rng, skill="Survie"))
    other = weighed(lambda rng: check(campaign(scarred), "a", "VAI", rng=rng, skill="Volonté"))
    assert (survie.percent, other.percent) == (55, 65)
    assert [m.rule_id for m in survie.plan.modifiers] == ["R7", "R7"]


def test_r8_illness_and_sleep_deprivation_add_up_with_the_gms_modifier():
    worn = hero(illness=Illness(Severity.ILL, 3), sleep_deprived=True)
    odds = weighed(
        lambda rng: check(campaign(worn), "a", "VAI", rng=rng, modifiers=[Modifier("aide", 1)])
    )
    # d20 + 2 - 2 - 2 + 1 >= 10 on 11..20.
    assert odds.probability == Fraction(10, 20)
    assert [m.rule_id for m in odds.plan.modifiers] == ["R8", "R8", None]


def test_plan_check_and_roll_odds_weigh_a_test_without_an_operation():
    plan = plan_check(hero(), "VAI", skill=None, difficulty=None, rule_id="R5", ruleset=Ruleset())
    assert roll_odds(plan) == Fraction(13, 20)


# ---------------------------------------------------------------------------------------------
# R10: damage that takes PV to 0 or below asks a Survie test at once


def test_r10_damage_to_0_pv_weighs_the_survie_test():
    scarred = hero(sequels=(Sequel("SAV"),))  # R7: -1 to Survie
    odds = weighed(lambda rng: take_damage(campaign(scarred), "a", 10, rng=rng))
    assert (odds.plan.rule_id, odds.plan.skill, odds.percent) == ("R10", "Survie", 60)


def test_r10_damage_that_leaves_pv_above_0_rolls_no_test():
    assert first_test_odds(lambda rng: take_damage(campaign(), "a", 9, rng=rng)) is None


def test_r10_pa_count_before_deciding_whether_a_test_comes():
    armoured = hero(pa=2)
    assert first_test_odds(lambda rng: take_damage(campaign(armoured), "a", 11, rng=rng)) is None
    odds = first_test_odds(
        lambda rng: take_damage(campaign(armoured), "a", 11, rng=rng, ignores_pa=True)
    )
    assert odds is not None and odds.plan.rule_id == "R10"


def test_r10_on_borrowed_time_more_damage_asks_no_new_test():
    down = hero(pv=0, vital=Vital.BORROWED_TIME)
    assert first_test_odds(lambda rng: take_damage(campaign(down), "a", 3, rng=rng)) is None


def test_an_action_that_rolls_nothing_has_no_odds():
    assert first_test_odds(lambda rng: heal(campaign(), "a", 2)) is None


def test_the_odds_keep_the_actions_refusal():
    dead = hero(vital=Vital.DEAD, pv=-5)
    with pytest.raises(CharacterDead):
        first_test_odds(lambda rng: take_damage(campaign(dead), "a", 3, rng=rng))


# ---------------------------------------------------------------------------------------------
# R12: Médecine (ESP) by another character, or by someone with a given ESP


def _in_coma(**changes):
    return hero(pv=-3, vital=Vital.COMA, **changes)


def test_r12_a_healer_of_the_party_with_their_own_maluses():
    healer = hero("b", conditions=(Condition(ConditionKind.EXTENUE),))  # ESP 3, R6
    table = campaign(_in_coma(), healer)
    odds = weighed(lambda rng: attempt_stabilise(table, "a", rng=rng, healer_key="b"))
    # d20 + 3 >= 10 on 7..20, even faces only: 8, 10, …, 20.
    assert odds.probability == Fraction(7, 20)
    assert (odds.plan.rule_id, odds.plan.skill, odds.plan.key) == ("R12", "Médecine", "b")


def test_r12_someone_outside_the_party_with_an_esp_and_a_difficulty():
    table = campaign(_in_coma())
    odds = weighed(lambda rng: attempt_stabilise(table, "a", rng=rng, healer_esp=5, difficulty=12))
    assert odds.probability == Fraction(14, 20)
    assert (odds.plan.key, odds.plan.stat_value, odds.plan.odd_zero) == (None, 5, False)


def test_r12_refusals_come_before_the_odds():
    with pytest.raises(NotInComa):
        first_test_odds(lambda rng: attempt_stabilise(campaign(), "a", rng=rng, healer_esp=3))
    with pytest.raises(InvalidHealer):
        first_test_odds(lambda rng: attempt_stabilise(campaign(_in_coma()), "a", rng=rng))


# ---------------------------------------------------------------------------------------------
# R13: the waking try, Survie with the sequels' malus


def test_r13_a_waking_try_weighs_survie_with_r6_and_r7():
    sleeper = hero(
        pv=-2,
        vital=Vital.STABILISED,
        stabilised_at=EVENING,
        sequels=(Sequel("ADR"),),
        conditions=(Condition(ConditionKind.EXTENUE),),
    )
    odds = weighed(lambda rng: attempt_wake(campaign(sleeper), "a", rng=rng))
    # d20 + 2 - 1 >= 10 on 9..20, even faces only: 10, 12, …, 20.
    assert odds.probability == Fraction(6, 20)
    assert (odds.plan.rule_id, odds.plan.skill) == ("R13", "Survie")


def test_r13_no_odds_for_a_try_the_rules_refuse():
    sleeper = hero(
        pv=-2,
        vital=Vital.STABILISED,
        stabilised_at=EVENING,
        last_wake_try=EVENING - timedelta(minutes=20),
    )
    with pytest.raises(WakeAlreadyTried):
        first_test_odds(lambda rng: attempt_wake(campaign(sleeper), "a", rng=rng))
    with pytest.raises(NotStabilised):
        first_test_odds(lambda rng: attempt_wake(campaign(), "a", rng=rng))


# ---------------------------------------------------------------------------------------------
# R27: softening a fall by an Agilité (ADR) test with the row's malus


@pytest.mark.parametrize(
    ("storeys", "surface", "malus", "faces"),
    [
        # Aldo, ADR 1: d20 + 1 - malus >= 10, on 9 + malus..20.
        (1, Surface.NORMAL, 0, 12),
        (2, Surface.NORMAL, 2, 10),
        (3, Surface.NORMAL, 4, 8),
        (4, Surface.NORMAL, 6, 6),
        (5, Surface.NORMAL, 8, 4),
        (4, Surface.ROUGH, 8, 4),  # counts as 5 storeys
        (2, Surface.SOFT, 0, 12),  # counts as 1 storey
    ],
)
def test_r27_each_rows_malus(storeys, surface, malus, faces):
    odds = weighed(
        lambda rng: fall(
            campaign(), "a", rng=rng, storeys=storeys, surface=surface, soften=Soften.ADR_TEST
        )
    )
    assert odds.probability == Fraction(faces, 20)
    assert sum(m.value for m in odds.plan.modifiers) == -malus
    assert (odds.plan.rule_id, odds.plan.stat) == ("R27", "ADR")


def test_r27_in_motion_takes_a_malus_of_3():
    odds = weighed(
        lambda rng: fall(campaign(), "a", rng=rng, in_motion=True, soften=Soften.ADR_TEST)
    )
    assert odds.probability == Fraction(9, 20)


def test_r27_no_agilite_test_no_odds():
    # Softened by a spell, or not at all: the damage die comes first, and no test.
    for soften in (Soften.SPELL, Soften.NONE):
        assert (
            first_test_odds(lambda rng: fall(campaign(), "a", rng=rng, storeys=2, soften=soften))  # noqa: B023
            is None
        )
    # Below one storey: no damage, no dice.
    soft = first_test_odds(
        lambda rng: fall(
            campaign(), "a", rng=rng, storeys=1, surface=Surface.SOFT, soften=Soften.ADR_TEST
        )
    )
    assert soft is None


def test_r27_a_deadly_fall_cannot_be_softened():
    with pytest.raises(CannotSoften):
        first_test_odds(
            lambda rng: fall(campaign(), "a", rng=rng, storeys=6, soften=Soften.ADR_TEST)
        )


# ---------------------------------------------------------------------------------------------
# R28: falling ill, a Constitution (VAI) test


def test_r28_constitution_with_the_current_illness_malus():
    ill = hero(illness=Illness(Severity.MILD, 2))
    odds = weighed(lambda rng: fall_ill(campaign(ill), "a", severity=Severity.ILL, rng=rng))
    # d20 + 2 - 1 >= 10 on 9..20.
    assert odds.probability == Fraction(12, 20)
    assert (odds.plan.rule_id, odds.plan.skill) == ("R28", "Constitution")


def test_the_odds_follow_the_campaigns_difficulty():
    ruleset = Ruleset(default_difficulty=14)
    odds = weighed(
        lambda rng: fall_ill(campaign(), "a", severity=Severity.MILD, rng=rng, ruleset=ruleset)
    )
    assert (odds.plan.difficulty, odds.probability) == (14, Fraction(9, 20))


def test_weighing_changes_nothing():
    table = campaign(replace(hero(), pv=1))
    first_test_odds(lambda rng: take_damage(table, "a", 5, rng=rng))
    assert table.character("a").pv == 1


@pytest.mark.parametrize("odd_zero", [False, True])
@pytest.mark.parametrize("natural_extremes", [False, True])
def test_r5_r6_the_passing_faces_counted_are_those_the_verdict_passes(odd_zero, natural_extremes):
    # Every plan a roll can meet (bonus −12…12, difficulty −5…45): the count a rolled test
    # keeps (R5, R6's odd faces at 0, the natural extremes) equals each face's own verdict.
    for bonus in range(-12, 13):
        for difficulty in range(-5, 46):
            plan = CheckPlan(
                key="a",
                skill=None,
                stat="VAI",
                stat_value=bonus,
                modifiers=(),
                odd_zero=odd_zero,
                difficulty=difficulty,
                natural_extremes=natural_extremes,
                rule_id="R5",
            )
            assert plan.passing_faces() == plan.faces_by_verdict(), (bonus, difficulty)
