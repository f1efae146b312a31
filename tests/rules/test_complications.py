from datetime import timedelta

import pytest

from rules.engine import (
    CannotSoften,
    CharacterDead,
    Illness,
    InvalidFall,
    NotIll,
    ScriptedDice,
    Severity,
    Soften,
    Surface,
    Vital,
    advance_clock,
    advance_to_morning,
    fall,
    fall_height,
    fall_ill,
    take_remedy,
)
from tests.rules.util import EVENING, campaign, hero

NO_DICE = ScriptedDice([])


def big(**changes):
    """A sturdy target so fall damage does not reach 0 PV (no R10 test in the way)."""
    return hero(**{"pv": 60, "pv_max": 60, "pa": 5, **changes})


def fall_damage(outcome):
    return 60 - outcome.character("a").pv


# R27 table, one test per row.


def test_r27_one_storey_1d10():
    outcome = fall(campaign(big()), "a", storeys=1, rng=ScriptedDice([7]))
    assert fall_damage(outcome) == 7
    assert str(outcome.rolls[0].expr) == "1d10"


def test_r27_two_storeys_1d10_plus_5():
    assert fall_damage(fall(campaign(big()), "a", storeys=2, rng=ScriptedDice([7]))) == 12


def test_r27_three_storeys_1d10_plus_10():
    assert fall_damage(fall(campaign(big()), "a", storeys=3, rng=ScriptedDice([7]))) == 17


def test_r27_four_storeys_1d10_plus_20():
    assert fall_damage(fall(campaign(big()), "a", storeys=4, rng=ScriptedDice([7]))) == 27


def test_r27_five_storeys_1d10_plus_30():
    assert fall_damage(fall(campaign(big()), "a", storeys=5, rng=ScriptedDice([7]))) == 37


def test_r27_six_storeys_is_death():
    outcome = fall(campaign(big()), "a", storeys=6, rng=NO_DICE)
    assert outcome.character("a").vital is Vital.DEAD and outcome.rolls == ()
    assert outcome.rules == ("R27", "R16")


def test_r27_more_than_six_storeys_is_death():
    assert fall(campaign(big()), "a", storeys=9, rng=NO_DICE).character("a").vital is Vital.DEAD


def test_r27_in_motion_1d10_malus_3():
    outcome = fall(
        campaign(big()), "a", in_motion=True, soften=Soften.ADR_TEST, rng=ScriptedDice([12, 9])
    )
    (agilite,) = outcome.checks
    assert [(m.value, m.rule_id) for m in agilite.modifiers] == [(-3, "R27")]
    assert agilite.total == 12 + 1 - 3 and agilite.success
    assert fall_damage(outcome) == 5  # 9 halved, rounded up


def test_r27_damage_ignores_pa():
    assert fall_damage(fall(campaign(big(pa=9)), "a", storeys=1, rng=ScriptedDice([4]))) == 4


def test_r27_three_storeys_on_rough_ground_counts_as_four():
    outcome = fall(campaign(big()), "a", storeys=3, surface=Surface.ROUGH, rng=ScriptedDice([2]))
    assert fall_damage(outcome) == 22
    assert "counts as 4 storeys" in outcome.explanation_en


def test_r27_two_storeys_into_water_counts_as_one():
    outcome = fall(campaign(big()), "a", storeys=2, surface=Surface.SOFT, rng=ScriptedDice([2]))
    assert fall_damage(outcome) == 2


def test_r27_one_storey_on_soft_ground_deals_no_damage():
    outcome = fall(campaign(big()), "a", storeys=1, surface=Surface.SOFT, rng=NO_DICE)
    assert fall_damage(outcome) == 0 and outcome.rolls == ()
    assert "no damage" in outcome.explanation_en


def test_r27_five_storeys_on_rough_ground_is_death():
    outcome = fall(campaign(big()), "a", storeys=5, surface=Surface.ROUGH, rng=NO_DICE)
    assert outcome.character("a").vital is Vital.DEAD


def test_r27_in_motion_on_rough_ground_falls_as_two_storeys():
    assert fall_height(in_motion=True, surface=Surface.ROUGH) == 2
    outcome = fall(
        campaign(big()),
        "a",
        in_motion=True,
        surface=Surface.ROUGH,
        rng=ScriptedDice([1]),
    )
    assert fall_damage(outcome) == 6


def test_r27_in_motion_into_water_deals_no_damage():
    outcome = fall(campaign(big()), "a", in_motion=True, surface=Surface.SOFT, rng=NO_DICE)
    assert fall_damage(outcome) == 0


def test_r27_a_spell_softens_half_rounded_up():
    outcome = fall(campaign(big()), "a", storeys=2, soften=Soften.SPELL, rng=ScriptedDice([6]))
    assert fall_damage(outcome) == 6  # 11 / 2 rounded up
    assert outcome.checks == ()
    assert "softened fall: 11 / 2 = 6" in outcome.explanation_en


def test_r27_an_adr_test_takes_the_row_malus():
    outcome = fall(
        campaign(big()), "a", storeys=5, soften=Soften.ADR_TEST, rng=ScriptedDice([16, 4])
    )
    (agilite,) = outcome.checks
    assert agilite.total == 16 + 1 - 8 and not agilite.success
    assert fall_damage(outcome) == 34


def test_r27_one_storey_adr_test_has_no_malus():
    outcome = fall(
        campaign(big()), "a", storeys=1, soften=Soften.ADR_TEST, rng=ScriptedDice([9, 5])
    )
    assert outcome.checks[0].modifiers == () and outcome.checks[0].success
    assert fall_damage(outcome) == 3


def test_r27_six_storeys_cannot_be_softened():
    for soften in (Soften.SPELL, Soften.ADR_TEST):
        with pytest.raises(CannotSoften):
            fall(campaign(big()), "a", storeys=6, soften=soften, rng=NO_DICE)


@pytest.mark.parametrize(("storeys", "in_motion"), [(-1, False), (0, False), (2, True), (-1, True)])
def test_r27_invalid_falls_are_refused(storeys, in_motion):
    with pytest.raises(InvalidFall):
        fall(campaign(big()), "a", storeys=storeys, in_motion=in_motion, rng=NO_DICE)


def test_r27_a_fall_to_zero_pv_goes_through_r10():
    outcome = fall(campaign(hero(pv=5)), "a", storeys=1, rng=ScriptedDice([6, 3]))
    assert outcome.character("a").pv == -1
    assert outcome.checks[0].rule_id == "R10"
    assert outcome.character("a").vital is Vital.COMA
    assert outcome.character("a").down_cause == "chute"


def test_r27_the_dead_do_not_fall():
    with pytest.raises(CharacterDead):
        fall(campaign(hero(vital=Vital.DEAD)), "a", storeys=1, rng=NO_DICE)


# R28 illness


def test_r28_failed_constitution_lasts_1d4_plus_1_days():
    outcome = fall_ill(campaign(hero()), "a", severity=Severity.ILL, rng=ScriptedDice([7, 3]))
    (constitution,) = outcome.checks
    assert (constitution.skill, constitution.success) == ("Constitution", False)
    assert outcome.character("a").illness == Illness(Severity.ILL, 4)
    assert str(outcome.rolls[0].expr) == "1d4+1"


def test_r28_passed_constitution_lasts_1d4_minus_1_days():
    outcome = fall_ill(
        campaign(hero()), "a", severity=Severity.MILD, rng=ScriptedDice([8, 1]), name="toux"
    )
    assert outcome.character("a").illness == Illness(Severity.MILD, 0, "toux")


def test_r28_zero_days_passes_by_the_next_morning():
    state = fall_ill(campaign(hero()), "a", severity=Severity.MILD, rng=ScriptedDice([8, 1])).state
    assert advance_clock(state, minutes=599, rng=NO_DICE).character("a").illness is not None
    assert advance_to_morning(state, rng=NO_DICE).character("a").illness is None


@pytest.mark.parametrize(
    ("severity", "malus"),
    [(Severity.MILD, -1), (Severity.ILL, -2), (Severity.SEVERE, -3), (Severity.CRITICAL, -4)],
)
def test_r28_severity_malus_on_all_tests(severity, malus):
    outcome = fall_ill(
        campaign(hero(illness=Illness(severity, 2))),
        "a",
        severity=severity,
        rng=ScriptedDice([10, 2]),
    )
    assert outcome.checks[0].modifiers[0].value == malus


def test_r28_a_new_illness_replaces_the_old_one():
    outcome = fall_ill(
        campaign(hero(illness=Illness(Severity.MILD, 2))),
        "a",
        severity=Severity.CRITICAL,
        rng=ScriptedDice([20, 4]),
    )
    assert outcome.character("a").illness == Illness(Severity.CRITICAL, 3)


def test_r28_the_dead_do_not_fall_ill():
    with pytest.raises(CharacterDead):
        fall_ill(campaign(hero(vital=Vital.DEAD)), "a", severity=Severity.ILL, rng=NO_DICE)


# R29 remedies


def test_r29_a_remedy_shortens_the_illness_by_1d4_days():
    outcome = take_remedy(
        campaign(hero(illness=Illness(Severity.ILL, 4))), "a", rng=ScriptedDice([3])
    )
    assert outcome.character("a").illness == Illness(Severity.ILL, 1)
    assert outcome.rolls[0].rule_id == "R29"


def test_r29_a_remedy_never_goes_below_zero_days():
    outcome = take_remedy(
        campaign(hero(illness=Illness(Severity.ILL, 1))), "a", rng=ScriptedDice([4])
    )
    assert outcome.character("a").illness.days_left == 0


def test_r29_a_remedy_needs_an_illness():
    with pytest.raises(NotIll):
        take_remedy(campaign(hero()), "a", rng=NO_DICE)


# R30 countdown


def test_r30_days_count_down_when_the_clock_passes_a_morning():
    state = campaign(hero(illness=Illness(Severity.ILL, 2)))
    one = advance_to_morning(state, rng=NO_DICE)
    assert one.character("a").illness.days_left == 1
    assert one.changes[0].at == EVENING + timedelta(hours=10)
    three = advance_clock(state, minutes=3 * 24 * 60, rng=NO_DICE)
    assert three.character("a").illness is None
    assert [c.at.day for c in three.changes if c.field == "illness"] == [2, 3, 4]


def test_r30_the_dead_have_no_countdown():
    state = campaign(hero(vital=Vital.DEAD, illness=Illness(Severity.ILL, 2)))
    assert advance_to_morning(state, rng=NO_DICE).character("a").illness.days_left == 2
