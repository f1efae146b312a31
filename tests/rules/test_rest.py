from datetime import timedelta

import pytest

from rules.engine import (
    CAUSE_SLEEP,
    CharacterDead,
    Condition,
    ConditionKind,
    HourRestLimitReached,
    HourRestPending,
    Illness,
    InvalidAmount,
    InvalidHourRestSplit,
    NoPendingHourRest,
    NotConscious,
    Ruleset,
    ScriptedDice,
    Severity,
    Vital,
    advance_clock,
    clinic_night,
    hour_rest,
    night_rest,
    partial_night,
    share_hour_rest,
)
from tests.rules.util import EVENING, campaign, hero

NO_DICE = ScriptedDice([])


def tired(**changes):
    return hero(pv=2, flux=1, **changes)


def test_r17_a_night_of_six_hours_gives_four_pv_and_four_flux():
    outcome = night_rest(campaign(tired()), hours=6, rng=NO_DICE)
    assert (outcome.character("a").pv, outcome.character("a").flux) == (6, 5)
    assert outcome.checks == ()


def test_r17_a_night_advances_the_clock_by_its_length():
    outcome = night_rest(campaign(tired()), hours=8, rng=NO_DICE)
    assert outcome.state.clock == EVENING + timedelta(hours=8)


def test_r17_a_poor_night_gives_half_and_asks_no_test():
    outcome = night_rest(campaign(tired()), hours=8, rng=NO_DICE, poor_quality=True)
    assert (outcome.character("a").pv, outcome.character("a").flux) == (4, 3)
    assert outcome.checks == ()


def test_r17_recovery_stops_at_the_maxima():
    outcome = night_rest(campaign(hero(pv=9, flux=5)), hours=7, rng=NO_DICE)
    assert (outcome.character("a").pv, outcome.character("a").flux) == (10, 6)


def test_r17_only_conscious_characters_sleep_by_default():
    outcome = night_rest(
        campaign(tired(), hero("d", vital=Vital.DEAD, pv=-9)), hours=6, rng=NO_DICE
    )
    assert outcome.character("d").pv == -9


def test_r17_a_sleeper_must_be_awake_and_alive():
    state = campaign(tired(), hero("c", vital=Vital.COMA, pv=-1), hero("d", vital=Vital.DEAD))
    with pytest.raises(NotConscious):
        night_rest(state, hours=6, rng=NO_DICE, keys=["c"])
    with pytest.raises(CharacterDead):
        night_rest(state, hours=6, rng=NO_DICE, keys=["d"])
    with pytest.raises(InvalidAmount):
        night_rest(state, hours=0, rng=NO_DICE)


def test_r18_one_d4_for_the_group_then_each_shares_it():
    state = campaign(tired(), hero("b", pv=9, flux=2))
    rolled = hour_rest(state, rng=ScriptedDice([3]))
    assert rolled.state.pending_hour_rest == 3 and rolled.state.hour_rests_used == 1
    assert [r.purpose for r in rolled.rolls] == ["hour_rest"]
    shared = share_hour_rest(rolled.state, splits={"a": (2, 1), "b": (3, 0)})
    assert (shared.character("a").pv, shared.character("a").flux) == (4, 2)
    assert shared.character("b").pv == 10  # 2 points beyond the max are lost
    assert "2 lost beyond the max" in shared.explanation_en
    assert shared.state.pending_hour_rest is None


def test_r18_a_split_that_does_not_add_up_is_refused():
    rolled = hour_rest(campaign(tired()), rng=ScriptedDice([3])).state
    for split in ((2, 2), (4, -1), (1, 1)):
        with pytest.raises(InvalidHourRestSplit, match="≠ 3"):
            share_hour_rest(rolled, splits={"a": split})


def test_r18_once_per_half_day_by_default():
    state = share_hour_rest(
        hour_rest(campaign(tired()), rng=ScriptedDice([2])).state, splits={"a": (1, 1)}
    ).state
    with pytest.raises(HourRestLimitReached, match="MJ"):
        hour_rest(state, rng=ScriptedDice([2]))


def test_r18_the_gm_may_override_the_limit_logged():
    state = share_hour_rest(
        hour_rest(campaign(tired()), rng=ScriptedDice([2])).state, splits={"a": (1, 1)}
    ).state
    outcome = hour_rest(state, rng=ScriptedDice([4]), gm_override=True)
    used = next(c for c in outcome.changes if c.field == "hour_rests_used")
    assert used.by_gm and used.after == 2
    assert "the GM allows an extra rest" in outcome.explanation_en


def test_r18_the_limit_is_a_campaign_setting():
    state = campaign(tired(), hour_rests_used=1)
    assert hour_rest(state, rng=ScriptedDice([1]), ruleset=Ruleset(hour_rests_per_half_day=2))


def test_r18_the_limit_resets_each_half_day():
    # 20:00 + 10 h passes 06:00, a new half-day.
    state = campaign(tired(), hour_rests_used=1)
    outcome = advance_clock(state, minutes=600, rng=NO_DICE)
    assert outcome.state.hour_rests_used == 0
    assert outcome.changes[0].at == EVENING + timedelta(hours=10)


def test_r18_sharing_needs_a_roll_and_a_roll_waits_for_its_sharing():
    with pytest.raises(NoPendingHourRest):
        share_hour_rest(campaign(tired()), splits={"a": (1, 0)})
    with pytest.raises(HourRestPending):
        hour_rest(campaign(tired(), pending_hour_rest=2), rng=NO_DICE, gm_override=True)


def test_r18_the_dead_get_no_share():
    with pytest.raises(CharacterDead):
        share_hour_rest(campaign(hero(vital=Vital.DEAD), pending_hour_rest=2), splits={"a": (1, 1)})


def test_r18_a_share_that_lifts_flux_from_zero_ends_extenue():
    from rules.engine import CAUSE_FLUX

    character = hero(flux=0, conditions=(Condition(ConditionKind.EXTENUE, CAUSE_FLUX),))
    outcome = share_hour_rest(campaign(character, pending_hour_rest=1), splits={"a": (0, 1)})
    assert outcome.character("a").conditions == ()


def test_r19_a_clinic_night_gives_one_d4_pv_more():
    outcome = clinic_night(campaign(tired()), keys=["a"], hours=8, rng=ScriptedDice([3]))
    assert (outcome.character("a").pv, outcome.character("a").flux) == (2 + 4 + 3, 5)
    assert outcome.rolls[0].rule_id == "R19"


def test_r19_clinic_for_some_sleepers_only():
    state = campaign(tired(), tired(key="b"))
    outcome = night_rest(state, hours=8, rng=ScriptedDice([2]), clinic_keys=["b"])
    assert (outcome.character("a").pv, outcome.character("b").pv) == (6, 8)


def test_r28_mildly_ill_nights_are_unchanged():
    character = tired(illness=Illness(Severity.MILD, 3))
    outcome = night_rest(campaign(character), hours=8, rng=NO_DICE)
    assert (outcome.character("a").pv, outcome.character("a").flux) == (6, 5)


def test_r28_malade_nights_give_only_two_pv_and_two_flux():
    character = tired(illness=Illness(Severity.ILL, 3))
    outcome = night_rest(campaign(character), hours=8, rng=NO_DICE)
    assert (outcome.character("a").pv, outcome.character("a").flux) == (4, 3)
    assert "R28" in outcome.rules


def test_r28_gravement_malade_nights_give_one_pv_and_one_flux():
    character = tired(illness=Illness(Severity.SEVERE, 3))
    outcome = night_rest(campaign(character), hours=8, rng=NO_DICE)
    assert (outcome.character("a").pv, outcome.character("a").flux) == (3, 2)


def test_r28_tres_gravement_malade_nights_give_nothing():
    character = tired(illness=Illness(Severity.CRITICAL, 3))
    outcome = night_rest(campaign(character), hours=8, rng=NO_DICE)
    assert (outcome.character("a").pv, outcome.character("a").flux) == (2, 1)


def test_r28_the_illness_caps_a_short_night_too():
    character = tired(illness=Illness(Severity.SEVERE, 3))
    outcome = night_rest(campaign(character), hours=8, rng=NO_DICE, poor_quality=True)
    assert outcome.character("a").pv == 3


def test_r28_a_clinic_adds_its_d4_on_top_of_the_illness_cap():
    character = tired(illness=Illness(Severity.CRITICAL, 3))
    outcome = clinic_night(campaign(character), keys=["a"], hours=8, rng=ScriptedDice([4]))
    assert (outcome.character("a").pv, outcome.character("a").flux) == (6, 1)


def test_r28_the_cap_is_the_illness_at_bedtime_even_if_it_ends_that_morning():
    character = tired(illness=Illness(Severity.CRITICAL, 0))
    outcome = night_rest(campaign(character), hours=12, rng=NO_DICE)
    assert outcome.character("a").illness is None
    assert outcome.character("a").pv == 2


def test_r31_a_partial_night_success_is_sleep_deprivation():
    outcome = night_rest(campaign(tired()), hours=4, rng=ScriptedDice([8]))
    (volonte,) = outcome.checks
    assert (volonte.skill, volonte.rule_id, volonte.success) == ("Volonté", "R31", True)
    character = outcome.character("a")
    assert character.sleep_deprived and (character.pv, character.flux) == (4, 3)


def test_r31_a_partial_night_failure_is_extenue():
    outcome = night_rest(campaign(tired()), hours=5.5, rng=ScriptedDice([7]))
    character = outcome.character("a")
    assert character.conditions == (Condition(ConditionKind.EXTENUE, CAUSE_SLEEP),)
    assert not character.sleep_deprived


def test_r31_a_proper_night_clears_both():
    character = tired(
        sleep_deprived=True, conditions=(Condition(ConditionKind.EXTENUE, CAUSE_SLEEP),)
    )
    outcome = night_rest(campaign(character), hours=6, rng=NO_DICE)
    assert not outcome.character("a").sleep_deprived and outcome.character("a").conditions == ()


def test_r31_a_full_but_poor_night_clears_nothing_by_default():
    outcome = night_rest(
        campaign(tired(sleep_deprived=True)), hours=8, rng=NO_DICE, poor_quality=True
    )
    assert outcome.character("a").sleep_deprived


def test_r31_a_full_but_poor_night_may_count_as_proper():
    outcome = night_rest(
        campaign(tired(sleep_deprived=True)),
        hours=8,
        rng=NO_DICE,
        poor_quality=True,
        ruleset=Ruleset(poor_night_is_proper=True),
    )
    assert not outcome.character("a").sleep_deprived


def test_r31_partial_night_refuses_a_full_length():
    with pytest.raises(InvalidAmount):
        partial_night(campaign(tired()), hours=6, rng=NO_DICE)
    outcome = partial_night(campaign(tired()), hours=3, rng=ScriptedDice([10]))
    assert outcome.character("a").sleep_deprived
