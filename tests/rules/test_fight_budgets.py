"""R33 with R20–R25: a condition given or removed during a round changes what is left at once
(the new effective budget minus what was spent, never below 0); Surpris and the fight's end.
Aria, Brann, Gobelin: 2 actions, 1 reflex each."""

import pytest

from rules.engine import (
    CAUSE_FIGHT,
    CAUSE_GM,
    ConditionKind,
    NothingLeftToSpend,
    Ruleset,
    ScriptedDice,
    Vital,
    add_condition,
    end_fight,
    left_this_round,
    remove_condition,
    spend,
    take_damage,
)
from tests.rules.util import budgets, checked, new_round, party, start, turn

BY_HAND = Ruleset(surprise_ends_after_first_round=False)


def test_r24_paralyse_given_mid_round_leaves_nothing_to_spend():
    state = start(party()).state
    state = spend(state, "aria", "action").state  # 1 action, 1 reflex left
    outcome = checked(state, add_condition(state, "aria", ConditionKind.PARALYSE))
    assert budgets(outcome.state)["aria"] == (0, 0)
    assert "R33 · Aria — reste cette manche : 0 action, 0 réflexe" in (
        outcome.explanation_lines("fr")
    )
    with pytest.raises(NothingLeftToSpend):
        spend(outcome.state, "aria", "action")
    with pytest.raises(NothingLeftToSpend):
        spend(outcome.state, "aria", "reflex")


def test_r24_paralyse_removed_mid_round_gives_back_what_was_not_spent():
    state = start(party(aria=(ConditionKind.PARALYSE,))).state
    assert budgets(state)["aria"] == (0, 0)
    freed = remove_condition(state, "aria", ConditionKind.PARALYSE).state
    assert budgets(freed)["aria"] == (2, 1)  # nothing was spent this round


def test_r22_gene_mid_round_counts_what_was_spent():
    state = start(party()).state
    state = spend(state, "brann", "action").state
    gene = add_condition(state, "brann", ConditionKind.GENE).state
    assert budgets(gene)["brann"] == (0, 1)  # new budget 1, 1 spent
    assert budgets(remove_condition(gene, "brann", ConditionKind.GENE).state)["brann"] == (1, 1)


def test_r25_r22_surpris_with_gene_applies_gene_to_the_base_first():
    # Base 2, Gêné −1 → 1, Surpris: at most 1 → 1 action, no reflex.
    state = start(party(gobelin=(ConditionKind.GENE,)), surprised=("gobelin",)).state
    assert budgets(state)["gobelin"] == (1, 0)
    # Given in that order during a round: the same budget.
    state = start(party()).state
    state = add_condition(state, "gobelin", ConditionKind.SURPRIS).state
    assert budgets(state)["gobelin"] == (1, 0)
    state = add_condition(state, "gobelin", ConditionKind.GENE).state
    assert budgets(state)["gobelin"] == (1, 0)


def test_r10_a_coma_mid_round_leaves_nothing():
    state = start(party()).state
    # 20 damage, Survie 1 + 2 < 10: a coma at once (R10).
    outcome = checked(state, take_damage(state, "aria", 20, rng=ScriptedDice([1])))
    assert outcome.character("aria").vital is Vital.COMA
    assert budgets(outcome.state)["aria"] == (0, 0)
    assert left_this_round(outcome.state, "aria") == (0, 0)


def test_r25_surpris_given_by_hand_during_a_fight_ends_only_by_hand():
    state = start(party()).state
    state = add_condition(state, "brann", ConditionKind.SURPRIS).state
    after = new_round(new_round(state).state).state
    assert after.character("brann").has(ConditionKind.SURPRIS, CAUSE_GM)
    ended = end_fight(after).state
    assert ended.character("brann").has(ConditionKind.SURPRIS, CAUSE_GM)


def test_r25_with_only_by_hand_a_start_surpris_survives_the_end_of_the_fight():
    state = start(party(), surprised=("aria",), ruleset=BY_HAND).state
    state = new_round(state, BY_HAND).state
    assert state.character("aria").has(ConditionKind.SURPRIS, CAUSE_FIGHT)
    ended = end_fight(state, ruleset=BY_HAND).state
    assert ended.fight is None
    assert ended.character("aria").has(ConditionKind.SURPRIS, CAUSE_FIGHT)


def test_r25_ending_a_fight_in_round_1_ends_its_start_surpris_and_moves_no_time():
    state = start(party(), surprised=("aria",), ruleset=Ruleset(round_seconds=6)).state
    state = turn(state, Ruleset(round_seconds=6)).state
    outcome = checked(state, end_fight(state, ruleset=Ruleset(round_seconds=6)))
    assert not outcome.character("aria").has(ConditionKind.SURPRIS)
    assert outcome.state.clock == state.clock
    assert all(change.field != "clock" for change in outcome.changes)
