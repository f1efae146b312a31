from datetime import timedelta

import pytest

from rules.engine import (
    CAUSE_DEATHS_DOOR,
    CAUSE_FLUX,
    CharacterDead,
    Condition,
    ConditionKind,
    InvalidAmount,
    InvalidHealer,
    InvalidState,
    Modifier,
    NotConscious,
    NotDead,
    NotEnoughFlux,
    NotInComa,
    NotStabilised,
    ScriptedDice,
    Sequel,
    UnknownCharacter,
    Vital,
    WakeAlreadyTried,
    advance_clock,
    attempt_stabilise,
    attempt_wake,
    end_scene,
    gm_end_coma,
    gm_revive,
    heal,
    restore_flux,
    spend_flux,
    take_damage,
)
from tests.rules.util import EVENING, campaign, hero

NO_DICE = ScriptedDice([])


def comatose(pv=-1, **changes):
    return hero(vital=Vital.COMA, pv=pv, next_coma_hour=EVENING + timedelta(hours=1), **changes)


def stabilised(pv=-1, **changes):
    return hero(vital=Vital.STABILISED, pv=pv, stabilised_at=EVENING, **changes)


# R1 — resources


def test_r1_healing_never_raises_pv_above_the_maximum():
    outcome = heal(campaign(hero(pv=7)), "a", 5)
    assert outcome.character("a").pv == 10
    assert outcome.rules == ("R1",)


def test_r1_healing_keeps_pv_already_above_a_lowered_maximum():
    assert heal(campaign(hero(pv=12)), "a", 3).character("a").pv == 12


def test_r1_flux_never_goes_below_zero():
    with pytest.raises(NotEnoughFlux, match="6 Flux"):
        spend_flux(campaign(hero()), "a", 7)


def test_r1_restoring_flux_stops_at_the_maximum():
    assert restore_flux(campaign(hero(flux=5)), "a", 4).character("a").flux == 6


def test_r1_a_state_with_negative_flux_is_refused():
    with pytest.raises(InvalidState):
        hero(flux=-1)


def test_r1_two_characters_with_one_key_are_refused():
    with pytest.raises(InvalidState):
        campaign(hero(), hero())


def test_r1_negative_amounts_are_refused():
    state = campaign(hero())
    for action in (heal, spend_flux, restore_flux):
        with pytest.raises(InvalidAmount):
            action(state, "a", -1)
    with pytest.raises(InvalidAmount, match="négatif"):
        take_damage(state, "a", -2, rng=NO_DICE)


def test_unknown_character_is_refused():
    with pytest.raises(UnknownCharacter, match="zed"):
        heal(campaign(hero()), "zed", 1)


# R3 — PA


def test_r3_damage_is_reduced_by_pa():
    outcome = take_damage(campaign(hero(pa=2)), "a", 5, rng=NO_DICE)
    assert outcome.character("a").pv == 7
    assert outcome.explanation_en == "R3 · Aldo — 5 damage − 2 PA = 3; PV 10 → 7"


def test_r3_pa_never_heal():
    outcome = take_damage(campaign(hero(pa=4)), "a", 3, rng=NO_DICE)
    assert outcome.character("a").pv == 10 and outcome.changes == ()


def test_r3_a_source_that_ignores_pa():
    outcome = take_damage(campaign(hero(pa=4)), "a", 3, rng=NO_DICE, ignores_pa=True)
    assert outcome.character("a").pv == 7
    assert "ignores PA" in outcome.explanation_en


def test_r3_ebranle_removes_three_pa_never_below_zero():
    shaken = (Condition(ConditionKind.EBRANLE),)
    assert (
        take_damage(campaign(hero(pa=5, conditions=shaken)), "a", 4, rng=NO_DICE).character("a").pv
        == 8
    )
    assert (
        take_damage(campaign(hero(pa=1, conditions=shaken)), "a", 4, rng=NO_DICE).character("a").pv
        == 6
    )


# R10 — death's door


def test_r10_pv_above_zero_acts_normally_no_test():
    outcome = take_damage(campaign(hero()), "a", 9, rng=NO_DICE)
    assert outcome.character("a").vital is Vital.UP and outcome.checks == ()


def test_r10_reaching_zero_pv_fails_survie_falls_into_coma():
    outcome = take_damage(campaign(hero()), "a", 10, rng=ScriptedDice([7]), cause="épée")
    character = outcome.character("a")
    (survie,) = outcome.checks
    assert (survie.skill, survie.rule_id, survie.total, survie.success) == (
        "Survie",
        "R10",
        9,
        False,
    )
    assert character.vital is Vital.COMA and character.pv == 0
    assert character.next_coma_hour == EVENING + timedelta(hours=1)
    assert character.down_cause == "épée"


def test_r10_success_gives_borrowed_time_extenue_and_a_coma_due_in_ten_minutes():
    outcome = take_damage(campaign(hero()), "a", 12, rng=ScriptedDice([8]))
    character = outcome.character("a")
    assert character.vital is Vital.BORROWED_TIME and character.pv == -2
    assert character.coma_due == EVENING + timedelta(minutes=10)
    assert character.conditions == (Condition(ConditionKind.EXTENUE, CAUSE_DEATHS_DOOR),)
    assert outcome.rules == ("R3", "R10", "R9")


def test_r10_more_damage_on_borrowed_time_asks_no_new_test():
    state = take_damage(campaign(hero()), "a", 12, rng=ScriptedDice([8])).state
    outcome = take_damage(state, "a", 3, rng=NO_DICE)
    assert outcome.checks == () and outcome.character("a").vital is Vital.BORROWED_TIME


def test_r10_coma_when_ten_minutes_pass():
    state = take_damage(campaign(hero()), "a", 12, rng=ScriptedDice([8])).state
    assert advance_clock(state, minutes=9, rng=NO_DICE).character("a").vital is (
        Vital.BORROWED_TIME
    )
    outcome = advance_clock(state, minutes=10, rng=NO_DICE)
    character = outcome.character("a")
    assert character.vital is Vital.COMA and character.conditions == ()
    assert character.next_coma_hour == EVENING + timedelta(minutes=70)


def test_r10_coma_at_the_end_of_the_scene_if_sooner():
    state = take_damage(campaign(hero()), "a", 12, rng=ScriptedDice([8])).state
    outcome = end_scene(state)
    assert outcome.character("a").vital is Vital.COMA
    assert outcome.state.scene == 2
    assert outcome.character("a").coma_due is None


def test_r10_pv_back_above_zero_cancels_the_coma():
    state = take_damage(campaign(hero()), "a", 12, rng=ScriptedDice([8])).state
    outcome = heal(state, "a", 3)
    character = outcome.character("a")
    assert character.vital is Vital.UP and character.pv == 1
    assert character.coma_due is None and character.conditions == ()
    assert advance_clock(outcome.state, minutes=30, rng=NO_DICE).character("a").vital is Vital.UP


def test_r10_healing_that_stays_at_zero_keeps_borrowed_time():
    state = take_damage(campaign(hero()), "a", 12, rng=ScriptedDice([8])).state
    assert heal(state, "a", 2).character("a").vital is Vital.BORROWED_TIME


def test_r10_end_of_scene_leaves_conscious_characters_alone():
    outcome = end_scene(campaign(hero()))
    assert outcome.character("a").vital is Vital.UP
    assert outcome.explanation_fr == "R32 · fin de la scène 1"


# R11 — coma


def test_r11_a_coma_loses_one_pv_per_hour():
    outcome = advance_clock(campaign(comatose(pv=-1)), minutes=120, rng=ScriptedDice([15]))
    assert outcome.character("a").pv == -3 and len(outcome.checks) == 1
    assert [c.at for c in outcome.changes if c.field == "pv"] == [
        EVENING + timedelta(hours=1),
        EVENING + timedelta(hours=2),
    ]


def test_r11_no_survie_test_while_minus_pv_does_not_exceed_vai():
    outcome = advance_clock(campaign(comatose(pv=-1)), minutes=60, rng=NO_DICE)
    assert outcome.character("a").pv == -2 and outcome.checks == ()


def test_r11_past_the_threshold_a_survie_test_each_hour_success_lives():
    outcome = advance_clock(campaign(comatose(pv=-2)), minutes=60, rng=ScriptedDice([8]))
    (survie,) = outcome.checks
    assert survie.rule_id == "R11" and survie.success
    assert outcome.character("a").vital is Vital.COMA and outcome.character("a").pv == -3


def test_r11_failure_is_death():
    outcome = advance_clock(campaign(comatose(pv=-2)), minutes=180, rng=ScriptedDice([8, 7]))
    character = outcome.character("a")
    assert character.vital is Vital.DEAD and character.pv == -4
    assert [c.at for c in outcome.checks] == [
        EVENING + timedelta(hours=1),
        EVENING + timedelta(hours=2),
    ]
    assert "R16" in outcome.rules


def test_r11_threshold_uses_effective_vai_and_sequels_count_on_the_test():
    character = comatose(pv=-1, sequels=(Sequel("VAI"),))
    outcome = advance_clock(campaign(character), minutes=60, rng=ScriptedDice([10]))
    # VAI 2 - 1 = 1; PV -2 is past it; 10 + 1 - 1 (R7) = 10 >= 10.
    assert outcome.checks[0].total == 10 and outcome.checks[0].success


# R12 — stabilising


def test_r12_a_healer_character_stabilises_with_medecine_esp():
    healer = hero("h")
    outcome = attempt_stabilise(
        campaign(comatose(), healer), "a", rng=ScriptedDice([7]), healer_key="h"
    )
    (medecine,) = outcome.checks
    assert (medecine.character_key, medecine.skill, medecine.stat, medecine.total) == (
        "h",
        "Médecine",
        "ESP",
        10,
    )
    character = outcome.character("a")
    assert character.vital is Vital.STABILISED and character.next_coma_hour is None
    assert character.stabilised_at == EVENING


def test_r12_each_failure_costs_the_patient_one_pv():
    outcome = attempt_stabilise(campaign(comatose(pv=-1)), "a", rng=ScriptedDice([6]), healer_esp=3)
    assert outcome.character("a").pv == -2 and outcome.character("a").vital is Vital.COMA
    assert outcome.checks[0].character_key is None


def test_r12_may_be_tried_again():
    state = attempt_stabilise(campaign(comatose()), "a", rng=ScriptedDice([1]), healer_esp=3).state
    outcome = attempt_stabilise(state, "a", rng=ScriptedDice([19]), healer_esp=3)
    assert outcome.character("a").vital is Vital.STABILISED and outcome.character("a").pv == -2


def test_r12_healer_maluses_and_r6_apply():
    healer = hero("h", sleep_deprived=True, conditions=(Condition(ConditionKind.EXTENUE),))
    outcome = attempt_stabilise(
        campaign(comatose(), healer),
        "a",
        rng=ScriptedDice([19]),
        healer_key="h",
        modifiers=[Modifier("trousse", 2)],
    )
    assert outcome.checks[0].total == 0 + 3 - 2 + 2
    assert outcome.character("a").pv == -2


def test_r12_the_stabilised_character_loses_no_more_pv():
    state = attempt_stabilise(campaign(comatose()), "a", rng=ScriptedDice([19]), healer_esp=3).state
    outcome = advance_clock(state, minutes=59, rng=NO_DICE)
    assert outcome.character("a").pv == -1


def test_r12_needs_someone_else():
    state = campaign(comatose(), hero("h"))
    with pytest.raises(InvalidHealer):
        attempt_stabilise(state, "a", rng=NO_DICE)
    with pytest.raises(InvalidHealer):
        attempt_stabilise(state, "a", rng=NO_DICE, healer_key="h", healer_esp=3)
    with pytest.raises(InvalidHealer):
        attempt_stabilise(state, "a", rng=NO_DICE, healer_key="a")


def test_r12_the_healer_must_be_conscious():
    with pytest.raises(NotConscious):
        attempt_stabilise(
            campaign(comatose(), hero("h", vital=Vital.STABILISED, pv=-1)),
            "a",
            rng=NO_DICE,
            healer_key="h",
        )


def test_r12_only_a_coma_can_be_stabilised():
    with pytest.raises(NotInComa):
        attempt_stabilise(campaign(hero()), "a", rng=NO_DICE, healer_esp=3)
    with pytest.raises(NotInComa):
        attempt_stabilise(campaign(stabilised()), "a", rng=NO_DICE, healer_esp=3)


# R13 — waking


def test_r13_first_try_as_soon_as_stabilised_success_gives_one_pv_and_a_sequel():
    outcome = attempt_wake(
        campaign(stabilised(pv=-3)), "a", rng=ScriptedDice([8, 2]), sequel_cause="toux sanglante"
    )
    character = outcome.character("a")
    assert character.vital is Vital.UP and character.pv == 1
    assert character.sequels == (Sequel("PUI", "toux sanglante", 2, EVENING),)
    assert character.stabilised_at is None and character.last_wake_try is None
    assert outcome.checks[0].rule_id == "R13"
    assert [r.purpose for r in outcome.rolls] == ["sequel"]


def test_r13_failure_waits_an_hour():
    state = attempt_wake(campaign(stabilised()), "a", rng=ScriptedDice([3])).state
    assert state.character("a").vital is Vital.STABILISED
    assert state.character("a").last_wake_try == EVENING
    with pytest.raises(WakeAlreadyTried, match="20:00"):
        attempt_wake(state, "a", rng=ScriptedDice([20, 1]))
    later = advance_clock(state, minutes=59, rng=NO_DICE).state
    with pytest.raises(WakeAlreadyTried):
        attempt_wake(later, "a", rng=ScriptedDice([20, 1]))


def test_r13_sequel_cause_defaults_to_what_brought_the_character_down():
    character = stabilised(down_cause="morsure")
    outcome = attempt_wake(campaign(character), "a", rng=ScriptedDice([10, 6]))
    assert outcome.character("a").sequels[0].cause == "morsure"
    assert outcome.character("a").down_cause == ""


def test_r13_only_a_stabilised_character_can_try_to_wake():
    with pytest.raises(NotStabilised):
        attempt_wake(campaign(comatose()), "a", rng=NO_DICE)


def test_r13_the_clock_makes_a_try_each_further_hour():
    outcome = advance_clock(campaign(stabilised()), minutes=120, rng=ScriptedDice([3, 12, 5]))
    assert [c.at for c in outcome.checks] == [
        EVENING + timedelta(hours=1),
        EVENING + timedelta(hours=2),
    ]
    assert outcome.character("a").vital is Vital.UP
    assert outcome.character("a").sequels[0].stat == "VAI"


def test_r13_automatic_tries_can_be_turned_off():
    from rules.engine import Ruleset

    outcome = advance_clock(
        campaign(stabilised()),
        minutes=180,
        rng=NO_DICE,
        ruleset=Ruleset(automatic_wake_tries=False),
    )
    assert outcome.checks == () and outcome.character("a").vital is Vital.STABILISED


# R14 — sequel table


# Aldo's VAI is 2, ADR 1 and ESP 3 (tests/rules/util.py), his other characteristics 0.
@pytest.mark.parametrize(
    ("d6", "stat", "after"),
    [(1, "ADR", 0), (2, "PUI", -1), (3, "INS", -1), (4, "PRE", -1), (5, "VAI", 1), (6, "SAV", -1)],
)
def test_r14_d6_table(d6, stat, after):
    outcome = attempt_wake(campaign(stabilised()), "a", rng=ScriptedDice([10, d6]))
    character = outcome.character("a")
    assert character.sequels[0].stat == stat and character.sequels[0].d6 == d6
    assert character.stat(stat) == character.base_stat(stat) - 1 == after
    assert "R14" in outcome.rules


def test_r14_each_sequel_also_gives_r7_minus_one():
    state = attempt_wake(campaign(stabilised()), "a", rng=ScriptedDice([10, 1])).state
    outcome = take_damage(state, "a", 5, rng=ScriptedDice([8]))
    assert [m.rule_id for m in outcome.checks[0].modifiers] == ["R7"]
    assert outcome.checks[0].total == 9


# R15 — healing in a coma, GM ends a coma


def test_r15_healing_a_comatose_character_above_zero_stabilises():
    outcome = heal(campaign(comatose(pv=-1)), "a", 3)
    character = outcome.character("a")
    assert character.pv == 2 and character.vital is Vital.STABILISED
    assert "R15" in outcome.rules
    assert advance_clock(outcome.state, minutes=59, rng=NO_DICE).character("a").pv == 2


def test_r15_waking_keeps_pv_already_above_one():
    outcome = attempt_wake(campaign(stabilised(pv=4)), "a", rng=ScriptedDice([10, 1]))
    assert outcome.character("a").pv == 4


def test_r15_healing_in_a_coma_that_stays_below_zero_does_not_stabilise():
    outcome = heal(campaign(comatose(pv=-3)), "a", 2)
    assert outcome.character("a").vital is Vital.COMA and outcome.character("a").pv == -1


def test_r15_the_gm_ends_a_coma_by_hand():
    outcome = gm_end_coma(campaign(comatose(pv=-3)), "a")
    character = outcome.character("a")
    assert (character.vital, character.pv, character.next_coma_hour) == (Vital.UP, 1, None)
    assert all(change.by_gm for change in outcome.changes)
    assert gm_end_coma(campaign(stabilised()), "a", pv=5).character("a").pv == 5


def test_r15_gm_end_coma_refuses_what_is_not_a_coma():
    with pytest.raises(NotInComa):
        gm_end_coma(campaign(hero()), "a")
    with pytest.raises(InvalidAmount):
        gm_end_coma(campaign(comatose()), "a", pv=0)


# R16 — death


def test_r16_death_is_a_state_the_character_stays():
    outcome = advance_clock(campaign(comatose(pv=-2), hero("b")), minutes=60, rng=ScriptedDice([1]))
    assert [c.key for c in outcome.state.characters] == ["a", "b"]
    assert outcome.character("a").vital is Vital.DEAD
    assert advance_clock(outcome.state, minutes=600, rng=NO_DICE).character("a").pv == -3


def test_r16_no_rule_acts_on_the_dead():
    state = campaign(hero(vital=Vital.DEAD, pv=-5))
    for action in (
        lambda: take_damage(state, "a", 1, rng=NO_DICE),
        lambda: heal(state, "a", 1),
        lambda: spend_flux(state, "a", 1),
        lambda: restore_flux(state, "a", 1),
        lambda: attempt_wake(state, "a", rng=NO_DICE),
        lambda: attempt_stabilise(state, "a", rng=NO_DICE, healer_esp=3),
        lambda: gm_end_coma(state, "a"),
    ):
        with pytest.raises(CharacterDead, match="R16"):
            action()


def test_r16_only_the_gm_revives_by_hand():
    outcome = gm_revive(campaign(hero(vital=Vital.DEAD, pv=-5)), "a", pv=2)
    assert outcome.character("a").vital is Vital.UP and outcome.character("a").pv == 2
    assert {c.by_gm for c in outcome.changes} == {True}
    with pytest.raises(NotDead):
        gm_revive(campaign(hero()), "a")
    with pytest.raises(InvalidAmount):
        gm_revive(campaign(hero(vital=Vital.DEAD)), "a", pv=0)


# R26 — Flux 0


def test_r26_flux_at_zero_makes_the_character_extenue():
    outcome = spend_flux(campaign(hero(flux=3)), "a", 3)
    assert outcome.character("a").conditions == (Condition(ConditionKind.EXTENUE, CAUSE_FLUX),)
    assert outcome.rules == ("R1", "R26")


def test_r26_extenue_from_flux_ends_when_flux_is_above_zero():
    state = spend_flux(campaign(hero(flux=3)), "a", 3).state
    outcome = restore_flux(state, "a", 1)
    assert outcome.character("a").conditions == ()
    assert "R26" in outcome.rules


def test_r26_spending_flux_above_zero_adds_nothing():
    assert spend_flux(campaign(hero()), "a", 2).character("a").conditions == ()
