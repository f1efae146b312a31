"""The sheet set by hand (rules/engine/sheet.py): PV and Flux written by the GM go through the
rules they trigger (R1, R10, R15, R26), and outcomes in a row join into one."""

from rules.engine import (
    CAUSE_FLUX,
    Change,
    ConditionKind,
    ScriptedDice,
    Steps,
    Vital,
    bring_down,
    by_hand,
    set_resource,
)
from tests.rules.util import EVENING, campaign, hero

NO_DICE = ScriptedDice([])


def test_r1_a_value_set_to_what_it_is_changes_nothing():
    assert set_resource(campaign(), "a", "pv", 10, rng=NO_DICE) is None
    assert set_resource(campaign(), "a", "flux", 6, rng=NO_DICE) is None


def test_r10_pv_set_to_zero_by_hand_is_damage_through_armour_with_the_survie_test():
    # Aldo has 2 PA: set by hand, the PV go down by the full difference all the same.
    outcome = set_resource(campaign(hero(pa=2)), "a", "pv", 0, rng=ScriptedDice([7]))
    character = outcome.character("a")
    (survie,) = outcome.checks
    assert (survie.rule_id, survie.total, survie.success) == ("R10", 9, False)
    assert character.pv == 0 and character.vital is Vital.COMA
    assert "R10" in outcome.rules


def test_r15_pv_set_higher_by_hand_is_healing():
    outcome = set_resource(campaign(hero(pv=3)), "a", "pv", 8, rng=NO_DICE)
    assert outcome.character("a").pv == 8 and outcome.checks == ()
    assert [(c.field, c.before, c.after) for c in outcome.changes] == [("pv", 3, 8)]


def test_r26_flux_set_to_zero_by_hand_makes_the_character_extenue():
    outcome = set_resource(campaign(), "a", "flux", 0, rng=NO_DICE)
    character = outcome.character("a")
    assert character.flux == 0 and character.has(ConditionKind.EXTENUE, CAUSE_FLUX)
    assert "R26" in outcome.rules


def test_r26_flux_set_higher_by_hand_ends_extenue():
    state = set_resource(campaign(), "a", "flux", 0, rng=NO_DICE).state
    outcome = set_resource(state, "a", "flux", 4, rng=NO_DICE)
    character = outcome.character("a")
    assert character.flux == 4 and not character.has(ConditionKind.EXTENUE)


def test_r1_nothing_comes_down_when_the_value_is_within_its_new_maximum():
    assert bring_down(campaign(hero(pv=5)), "a", "pv", 7) is None
    assert bring_down(campaign(), "a", "flux", 6) is None


def test_r1_pv_come_down_to_a_lowered_maximum_with_an_r1_sentence():
    outcome = bring_down(campaign(), "a", "pv", 7)
    (change,) = outcome.changes
    assert (change.field, change.before, change.after, change.rule_id) == ("pv", 10, 7, "R1")
    assert change.by_gm and change.at == EVENING
    (line,) = outcome.lines
    assert line.fr == "Aldo — PV ramenés au nouveau maximum : 10 → 7"
    assert line.en == "Aldo — PV brought down to the new maximum: 10 → 7"
    assert (line.rule_id, outcome.rules) == ("R1", ("R1",))
    assert outcome.character("a").pv == 7


def test_r26_flux_brought_down_to_a_zero_maximum_makes_the_character_extenue():
    outcome = bring_down(campaign(), "a", "flux", 0)
    assert outcome.character("a").has(ConditionKind.EXTENUE, CAUSE_FLUX)
    assert "R26" in outcome.rules


def test_r1_a_dead_characters_flux_comes_down_without_being_spent():
    dead = campaign(hero(vital=Vital.DEAD, pv=-10))
    outcome = bring_down(dead, "a", "flux", 2)
    assert outcome.character("a").flux == 2 and outcome.rules == ("R1",)
    (line,) = outcome.lines
    assert line.en == "Aldo — Flux brought down to the new maximum: 6 → 2"
    assert line.fr == "Aldo — Flux ramené au nouveau maximum : 6 → 2"


def test_by_hand_names_only_the_rules_its_changes_give():
    changes = [
        Change("a", "name", "Aldo", "Aldo le Brave", "", EVENING, True),
        Change("a", "pa", 0, 2, "R3", EVENING, True),
    ]
    outcome = by_hand(campaign(), changes)
    assert outcome.rules == ("R3",) and outcome.events == tuple(changes)
    assert outcome.character("a").pa == 2 and outcome.character("a").name == "Aldo le Brave"


def test_steps_join_outcomes_in_order_each_on_the_state_the_last_left():
    steps = Steps(campaign())
    steps.keep([])  # nothing to keep: no part
    steps.keep([Change("a", "gm_notes", "", "Suspect", "", EVENING, True)])
    steps.by_hand([Change("a", "pa", 0, 0, "R3", EVENING, True)])  # unchanged: left out
    steps.by_hand([Change("a", "pv_max", 10, 12, "R1", EVENING, True)])
    steps.then(None)
    steps.then(set_resource(steps.state, "a", "pv", 12, rng=NO_DICE))
    steps.then(set_resource(steps.state, "a", "flux", 0, rng=NO_DICE))
    outcome = steps.outcome()
    assert [(c.field, c.after) for c in outcome.changes][:3] == [
        ("gm_notes", "Suspect"),
        ("pv_max", 12),
        ("pv", 12),
    ]
    assert outcome.rules[0] == "R1" and outcome.rules.count("R1") == 1 and "R26" in outcome.rules
    character = outcome.character("a")
    assert (character.pv_max, character.pv, character.flux) == (12, 12, 0)
    assert outcome.events[0].field == "gm_notes"


def test_steps_with_nothing_done_leave_the_state_as_it_was():
    state = campaign()
    steps = Steps(state)
    steps.by_hand([Change("a", "pa", 0, 0, "R3", EVENING, True)])
    outcome = steps.outcome()
    assert outcome.state == state and outcome.changes == () and outcome.rules == ()


def test_r10_r26_each_character_of_one_action_gets_their_own_rules():
    """R10, R26, R34: `each` plays the action on every character in turn, each on the state
    the previous one left; one falls to 0 PV and rolls their own Survie, one whose player
    rolls (R34) has it left as due, the third only loses PV; one outcome holds it all."""
    from rules.engine import each, take_damage

    state = campaign(hero("a", pv=4), hero("b", pv=4), hero("c", pv=20, pv_max=20))
    outcome = each(
        state,
        ["a", "b", "c"],
        lambda s, key: take_damage(s, key, 6, rng=ScriptedDice([15]), defer={"b"}),
    )
    assert replay_ok(state, outcome)
    assert [c.pv for c in outcome.state.characters] == [-2, -2, 14]
    (survie,) = outcome.checks
    assert (survie.rule_id, survie.character_key, survie.success) == ("R10", "a", True)
    assert [(d.key, d.kind, d.rule_id) for d in outcome.due] == [("b", "deaths_door", "R10")]
    assert "R10" in outcome.rules and "R34" in outcome.rules


def test_r26_a_refusal_for_one_character_refuses_all_and_names_them_once():
    """R26: Flux spent beyond what one has is refused for the whole action, naming who."""
    import pytest

    from rules.engine import NotEnoughFlux, RuleError, each, spend_flux

    state = campaign(hero("a"), hero("b", flux=1))
    with pytest.raises(NotEnoughFlux) as refused:
        each(state, ["a", "b"], lambda s, key: spend_flux(s, key, 3))
    assert refused.value.message_fr.count("B") == 1
    assert refused.value.message_fr.endswith("Rien n’a été appliqué.")
    # A refusal that does not name the character is said with their name first.
    with pytest.raises(RuleError) as refused:
        each(state, ["a", "b"], lambda s, key: spend_flux(s, key, -1))
    assert refused.value.message_fr.startswith("Aldo : ")
    assert refused.value.message_en.startswith("Aldo: ")


def replay_ok(state, outcome):
    from rules.engine import replay

    return replay(state, outcome.changes) == outcome.state
