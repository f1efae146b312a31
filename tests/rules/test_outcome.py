import pytest

from rules.engine import (
    Change,
    ReplayMismatch,
    RuleError,
    ScriptedDice,
    replay,
    spend_flux,
    take_damage,
)
from tests.rules.util import EVENING, campaign, hero


def test_replay_applies_character_and_campaign_changes_in_order():
    state = campaign(hero())
    outcome = take_damage(state, "a", 12, rng=ScriptedDice([8]))
    assert replay(state, outcome.changes) == outcome.state
    assert replay(state, list(outcome.changes)) == outcome.state
    moved = Change(None, "scene", 1, 2, "R32", EVENING)
    assert replay(state, (moved,)).scene == 2


def test_replay_refuses_a_change_that_does_not_match_the_state():
    with pytest.raises(ReplayMismatch, match="pv"):
        replay(campaign(hero()), (Change("a", "pv", 3, 4, "R1", EVENING),))


def test_an_error_leaves_the_state_untouched():
    state = campaign(hero(flux=2))
    with pytest.raises(RuleError) as error:
        spend_flux(state, "a", 3)
    assert state == campaign(hero(flux=2))
    assert error.value.code == "not_enough_flux"
    assert str(error.value) == f"{error.value.message_fr} / {error.value.message_en}"


def test_outcome_lists_rolls_checks_changes_rules_and_lines_with_game_time():
    outcome = take_damage(campaign(hero()), "a", 11, rng=ScriptedDice([3]), cause="chute")
    assert [c.field for c in outcome.changes] == [
        "down_cause",
        "pv",
        "next_coma_hour",
        "vital",
    ]
    assert {c.at for c in outcome.changes} == {EVENING}
    assert [line.rule_id for line in outcome.lines] == ["R3", "R10", "R10"]
    assert outcome.lines[1].character_key == "a"
    assert outcome.explanation_en.splitlines()[-1] == "R10 · Aldo — now in a coma"


def test_events_keep_the_order_things_happened_in():
    """The damage, then the R10 Survie test it caused, then the coma it led to."""
    from rules.engine import CheckResult, ScriptedDice, take_damage
    from tests.rules.util import campaign, hero

    outcome = take_damage(campaign(hero()), "a", 10, rng=ScriptedDice([7]))
    kinds = [
        ("check", e.rule_id) if isinstance(e, CheckResult) else (e.field, e.rule_id)
        for e in outcome.events
    ]
    assert kinds[0] == ("pv", "R3")
    assert kinds[1] == ("check", "R10")
    assert ("vital", "R10") in kinds[2:]
    assert len(outcome.events) == len(outcome.rolls) + len(outcome.checks) + len(outcome.changes)
