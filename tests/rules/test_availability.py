"""What a character's state allows, why the rest is refused, and that the engine agrees."""

import random
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.engine import (
    Condition,
    ConditionKind,
    Illness,
    RuleError,
    Severity,
    Vital,
    add_condition,
    attempt_stabilise,
    attempt_wake,
    check,
    fall,
    fall_ill,
    gm_end_coma,
    gm_revive,
    heal,
    remove_condition,
    restore_flux,
    spend_flux,
    take_damage,
    take_remedy,
)
from rules.engine.availability import OPERATIONS, availability
from tests.rules.util import EVENING, campaign, hero

EVERY = set(OPERATIONS)
ALIVE_ALWAYS = {"damage", "heal", "restore_flux", "add_condition", "fall", "fall_ill"}


def allowed(character, now=EVENING):
    return set(availability(character, now=now).allowed)


def refusal(character, operation, now=EVENING):
    return availability(character, now=now).refusal(operation)


def test_a_conscious_character_with_nothing_special():
    assert allowed(hero()) == ALIVE_ALWAYS | {"spend_flux", "check"}
    assert refusal(hero(), "check") is None
    assert availability(hero(), now=EVENING).allows("check")
    assert not availability(hero(), now=EVENING).allows("revive")


def test_r16_the_dead_may_only_be_revived():
    dead = hero(vital=Vital.DEAD, pv=-5, conditions=(Condition(ConditionKind.GENE),))
    assert allowed(dead) == {"revive"}
    damage = refusal(dead, "damage")
    assert (damage.rule_id, damage.code) == ("R16", "character_dead")
    assert "est mort·e" in damage.message_fr and "is dead" in damage.message_en
    assert refusal(dead, "remove_condition").rule_id == "R16"


def test_r16_only_the_dead_are_revived():
    revive = refusal(hero(), "revive")
    assert (revive.rule_id, revive.code) == ("R16", "not_dead")
    assert revive.message_fr == "Aldo n’est pas mort·e."


def test_r11_in_a_coma_stabilise_heal_or_end_the_coma_but_no_test():
    coma = hero(vital=Vital.COMA, pv=-1)
    assert {"stabilise", "heal", "end_coma"} <= allowed(coma)
    assert not {"check", "wake", "revive"} & allowed(coma)
    test = refusal(coma, "check")
    assert (test.rule_id, test.code) == ("R11", "not_conscious")
    assert test.message_fr == "Aldo est inconscient·e et ne peut pas agir."


def test_r12_a_conscious_character_is_not_stabilised():
    for character in (hero(), hero(vital=Vital.BORROWED_TIME, pv=0)):
        stabilise = refusal(character, "stabilise")
        assert (stabilise.rule_id, stabilise.code) == ("R12", "not_in_coma")
        assert "n’est pas dans le coma" in stabilise.message_fr


def test_r12_a_stabilised_character_is_not_stabilised_again():
    stabilise = refusal(hero(vital=Vital.STABILISED, pv=-1), "stabilise")
    assert stabilise.message_fr == "Aldo est déjà stabilisé·e."


def test_r13_a_stabilised_character_tries_to_wake_once_per_game_hour():
    stabilised = hero(vital=Vital.STABILISED, pv=-1, stabilised_at=EVENING)
    assert {"wake", "end_coma", "heal"} <= allowed(stabilised)
    unconscious = refusal(stabilised, "check")
    assert (unconscious.rule_id, unconscious.code) == ("R13", "not_conscious")
    tried = hero(vital=Vital.STABILISED, pv=-1, last_wake_try=EVENING)
    wake = refusal(tried, "wake", now=EVENING + timedelta(minutes=59))
    assert (wake.rule_id, wake.code) == ("R13", "wake_already_tried")
    assert "20:00" in wake.message_fr
    assert "wake" in allowed(tried, now=EVENING + timedelta(hours=1))


def test_r13_only_the_stabilised_try_to_wake():
    wake = refusal(hero(vital=Vital.COMA, pv=-1), "wake")
    assert (wake.rule_id, wake.code) == ("R13", "not_stabilised")


def test_r15_only_a_coma_is_ended_by_the_gm():
    end = refusal(hero(), "end_coma")
    assert (end.rule_id, end.code) == ("R15", "not_in_coma")


def test_r1_no_flux_to_spend_at_zero():
    spend = refusal(hero(flux=0), "spend_flux")
    assert (spend.rule_id, spend.code) == ("R1", "not_enough_flux")
    assert spend.message_fr == "Aldo n’a plus de Flux à dépenser."
    assert "restore_flux" in allowed(hero(flux=0))


def test_r26_a_condition_is_removed_only_when_there_is_one():
    remove = refusal(hero(), "remove_condition")
    assert (remove.rule_id, remove.code) == ("R26", "condition_not_present")
    assert "remove_condition" in allowed(hero(conditions=(Condition(ConditionKind.GENE),)))


def test_r29_a_remedy_needs_an_illness():
    remedy = refusal(hero(), "remedy")
    assert (remedy.rule_id, remedy.code) == ("R29", "not_ill")
    assert "remedy" in allowed(hero(illness=Illness(Severity.ILL, 3)))


def test_r10_borrowed_time_still_acts():
    borrowed = hero(vital=Vital.BORROWED_TIME, pv=-2)
    assert "check" in allowed(borrowed)
    assert not {"stabilise", "wake", "end_coma", "revive"} & allowed(borrowed)


def test_every_operation_is_either_allowed_or_refused_once():
    for vital in Vital:
        result = availability(hero(vital=vital), now=EVENING)
        names = list(result.allowed) + [r.operation for r in result.refused]
        assert sorted(names) == sorted(OPERATIONS)
        assert all(r.rule_id for r in result.refused)


# ---------------------------------------------------------------------------------------------
# Agreement: what availability allows, the engine does; what it refuses, the engine refuses
# with the same error.


def _run(operation, character):
    state = campaign(character, hero("b"))
    rng = random.Random(7)
    kind = character.conditions[0].kind if character.conditions else ConditionKind.GENE
    calls = {
        "damage": lambda: take_damage(state, "a", 1, rng=rng),
        "heal": lambda: heal(state, "a", 1),
        "spend_flux": lambda: spend_flux(state, "a", 1),
        "restore_flux": lambda: restore_flux(state, "a", 1),
        "check": lambda: check(state, "a", "VAI", rng=rng),
        "add_condition": lambda: add_condition(state, "a", ConditionKind.GENE),
        "remove_condition": lambda: remove_condition(state, "a", kind),
        "fall": lambda: fall(state, "a", rng=rng, storeys=1),
        "fall_ill": lambda: fall_ill(state, "a", severity=Severity.MILD, rng=rng),
        "remedy": lambda: take_remedy(state, "a", rng=rng),
        "stabilise": lambda: attempt_stabilise(state, "a", rng=rng, healer_key="b"),
        "wake": lambda: attempt_wake(state, "a", rng=rng),
        "end_coma": lambda: gm_end_coma(state, "a"),
        "revive": lambda: gm_revive(state, "a", pv=1),
    }
    assert set(calls) == EVERY
    return calls[operation]()


characters = st.builds(
    lambda vital, pv, flux, kinds, ill, tried: hero(
        vital=vital,
        pv=pv,
        flux=flux,
        conditions=tuple(Condition(k) for k in kinds),
        illness=Illness(Severity.ILL, 2) if ill else None,
        stabilised_at=EVENING - timedelta(hours=2) if vital is Vital.STABILISED else None,
        last_wake_try=None if tried is None else EVENING - timedelta(minutes=tried),
    ),
    st.sampled_from(Vital),
    st.integers(-12, 10),
    st.integers(0, 6),
    st.lists(st.sampled_from(ConditionKind), max_size=3, unique=True),
    st.booleans(),
    st.none() | st.integers(0, 120),
)


@settings(max_examples=300, deadline=None)
@given(characters)
def test_availability_and_the_engine_never_disagree(character):
    result = availability(character, now=EVENING)
    for operation in result.allowed:
        outcome = _run(operation, character)  # raises if the engine refuses what was offered
        assert outcome.state is not None
    for refused in result.refused:
        with pytest.raises(RuleError) as error:
            _run(refused.operation, character)
        assert error.value.code == refused.code
        assert (error.value.message_fr, error.value.rule_id) == (
            refused.message_fr,
            refused.rule_id,
        )
