"""R33: the GM's order, one turn each per round; a reorder never takes a turn away nor
gives a second one. Aria, Brann, Gobelin: 2 actions, 1 reflex each."""

import pytest

from rules.engine import Fight, InvalidFight, set_order
from tests.rules.util import budgets, checked, new_round, party, start, turn


def turns_of_round(state):
    """Whose turns the rest of the round gives, current first, and the state after it."""
    number, seen = state.fight.round, []
    while state.fight.round == number:
        seen.append(state.fight.current)
        state = turn(state).state
    return seen, state


def test_r33_a_fight_starts_in_the_order_the_gm_gives():
    state = start(party(), ("gobelin", "aria", "brann")).state
    assert state.fight.order == ("gobelin", "aria", "brann")
    assert turns_of_round(state)[0] == ["gobelin", "aria", "brann"]


def test_r33_moving_someone_above_the_current_turn_does_not_take_their_turn():
    state = turn(start(party()).state).state  # round 1, Brann's turn; Aria had hers
    moved = checked(state, set_order(state, ("gobelin", "aria", "brann"))).state
    assert moved.fight.current == "brann" and moved.fight.done == ("aria",)
    seen, after = turns_of_round(moved)
    assert seen == ["brann", "gobelin"]  # Gobelin still has his; Aria gets no second one
    assert after.fight.round == 2
    assert turns_of_round(after)[0] == ["gobelin", "aria", "brann"]


def test_r33_moving_someone_up_before_anyone_acted_keeps_every_turn():
    state = start(party()).state  # Aria's turn, nobody has had one yet
    moved = checked(state, set_order(state, ("gobelin", "brann", "aria"))).state
    seen, _after = turns_of_round(moved)
    assert sorted(seen) == ["aria", "brann", "gobelin"] and seen[0] == "aria"
    assert seen[1:] == ["gobelin", "brann"]  # the others, in the new order


def test_r33_moving_one_who_had_their_turn_below_gives_no_second_one():
    state = turn(turn(start(party()).state).state).state  # Gobelin's turn, last
    moved = set_order(state, ("gobelin", "brann", "aria")).state
    seen, after = turns_of_round(moved)
    assert seen == ["gobelin"] and after.fight.round == 2


def test_r33_a_combatant_who_leaves_and_comes_back_keeps_the_round_had():
    state = turn(start(party()).state).state  # Brann's turn; Aria had hers
    out = set_order(state, ("brann", "gobelin")).state
    back = set_order(out, ("aria", "brann", "gobelin")).state
    # Back in, Aria is a newcomer to this round's list: she has not had a turn in it.
    seen, _after = turns_of_round(back)
    assert seen == ["brann", "aria", "gobelin"]


def test_r33_the_current_one_leaving_passes_the_turn_to_the_first_still_waiting():
    state = turn(start(party()).state).state  # Brann's turn; Aria had hers
    moved = set_order(state, ("aria", "gobelin")).state
    assert moved.fight.current == "gobelin" and moved.fight.done == ("aria",)


def test_r33_a_fight_refuses_a_current_turn_already_had_or_one_had_outside_it():
    with pytest.raises(InvalidFight):
        Fight(("a", "b"), 1, 0, (2, 2), (1, 1), (), ("a",))
    with pytest.raises(InvalidFight):
        Fight(("a", "b"), 1, 1, (2, 2), (1, 1), (), ("z",))


def test_r33_a_new_round_forgets_who_had_their_turn():
    state = start(party()).state
    state = new_round(state).state
    assert state.fight.done == () and state.fight.current == "aria"
    assert budgets(state)["aria"] == (2, 1)


def test_r9_r33_a_roll_a_rounds_length_brings_takes_typed_dice():
    from rules.engine import Ruleset, ScriptedDice, Vital, next_turn
    from tests.rules.util import EVENING, campaign, hero

    hourly = Ruleset(round_seconds=3600)
    asleep = hero("a", pv=-1, vital=Vital.STABILISED, stabilised_at=EVENING)
    state = start(campaign(asleep, hero("b")), ("b",), ruleset=hourly).state
    typed = ScriptedDice([18, 3], typed_in=True)  # the try's D20, then the sequel's D6
    outcome = next_turn(state, rng=typed, ruleset=hourly)
    [try_] = outcome.checks
    assert try_.rule_id == "R13" and try_.typed_in and try_.natural == 18
    assert outcome.character("a").vital is Vital.UP and outcome.state.fight.round == 2
