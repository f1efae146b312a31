"""R33: the GM's order, one turn each per round; a reorder never takes a turn away nor
gives a second one. Aria, Brann, Gobelin: 2 actions, 1 reflex each."""

import pytest

from rules.engine import Fight, InvalidFight, join_fight, leave_fight, set_order
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


# ---------------------------------------------------------------------------------------------
# R33: combatants joining (reinforcements) and leaving (fled) in the middle of a fight


def four():
    """Aria, Brann, Gobelin in the fight; Dame (2 actions, 1 reflex) outside it."""
    from dataclasses import replace

    from tests.rules.util import hero

    state = party()
    return replace(state, characters=(*state.characters, hero("dame")))


def test_r33_a_newcomer_joins_last_by_default_and_plays_this_round():
    state = turn(start(four()).state).state  # round 1, Brann's turn; Aria had hers
    outcome = checked(state, join_fight(state, "dame"))
    fight = outcome.state.fight
    assert fight.order == ("aria", "brann", "gobelin", "dame")
    assert fight.current == "brann" and fight.done == ("aria",)
    assert budgets(outcome.state)["dame"] == (2, 1)
    assert outcome.explanation_lines("fr") == (
        "R33 · Ordre du combat : Aria, Brann, Gobelin, Dame",
        "R33 · Dame rejoint le combat à la place 4 (2 actions, 1 réflexe) : "
        "son tour viendra dans cette manche",
    )
    assert outcome.explanation_lines("en")[1] == (
        "R33 · Dame joins the fight in place 4 (2 actions, 1 reflex): their turn comes this round"
    )
    seen, after = turns_of_round(outcome.state)
    assert seen == ["brann", "gobelin", "dame"]  # nobody loses or gains a turn
    assert turns_of_round(after)[0] == ["aria", "brann", "gobelin", "dame"]


def test_r33_a_newcomer_at_a_place_the_round_has_passed_first_plays_next_round():
    state = turn(start(four()).state).state  # Brann's turn; Aria had hers
    outcome = checked(state, join_fight(state, "dame", place=1))
    fight = outcome.state.fight
    assert fight.order == ("dame", "aria", "brann", "gobelin") and fight.current == "brann"
    assert set(fight.done) == {"aria", "dame"}
    assert outcome.explanation_lines("fr")[1].endswith(": son premier tour viendra à la manche 2")
    seen, after = turns_of_round(outcome.state)
    assert seen == ["brann", "gobelin"]  # Aria gets no second turn, Dame none this round
    assert turns_of_round(after)[0] == ["dame", "aria", "brann", "gobelin"]
    # Her budget is hers at once (a reflex may be spent before her first turn).
    assert budgets(outcome.state)["dame"] == (2, 1)


def test_r33_a_newcomer_at_the_current_place_waits_for_next_round_and_the_turn_stays():
    state = turn(start(four()).state).state  # Brann's turn, place 2
    fight = join_fight(state, "dame", place=2).state.fight
    assert fight.order == ("aria", "dame", "brann", "gobelin") and fight.current == "brann"
    assert "dame" in fight.done


def test_r33_a_newcomer_right_after_the_current_one_plays_next():
    state = start(four()).state  # Aria's turn
    state = join_fight(state, "dame", place=2).state
    assert turns_of_round(state)[0] == ["aria", "dame", "brann", "gobelin"]


def test_r33_joining_refuses_one_already_in_the_fight_a_bad_place_or_a_dead_one():
    from dataclasses import replace

    from rules.engine import AlreadyInFight, CharacterDead, NoFight, Vital

    state = start(four()).state
    with pytest.raises(AlreadyInFight) as refused:
        join_fight(state, "brann")
    assert refused.value.message_fr == "Brann est déjà dans le combat."
    for place in (0, 5, -1):
        with pytest.raises(InvalidFight) as refused:
            join_fight(state, "dame", place=place)
    assert refused.value.message_fr == "La place de Dame va de 1 à 4, pas -1."
    dead = state.with_character(replace(state.character("dame"), vital=Vital.DEAD))
    with pytest.raises(CharacterDead):
        join_fight(dead, "dame")
    with pytest.raises(NoFight):
        join_fight(four(), "dame")


def test_r33_one_leaving_mid_round_costs_or_gives_nobody_a_turn():
    state = turn(start(four(), ("aria", "brann", "gobelin", "dame")).state).state  # Brann
    outcome = checked(state, leave_fight(state, "gobelin"))
    assert outcome.state.fight.order == ("aria", "brann", "dame")
    assert outcome.explanation_lines("fr") == (
        "R33 · Ordre du combat : Aria, Brann, Dame",
        "R33 · Gobelin quitte le combat",
    )
    seen, after = turns_of_round(outcome.state)
    assert seen == ["brann", "dame"]
    assert turns_of_round(after)[0] == ["aria", "brann", "dame"]


def test_r33_the_current_one_fleeing_passes_the_turn_to_the_next():
    state = turn(start(four(), ("aria", "brann", "gobelin", "dame")).state).state  # Brann
    outcome = checked(state, leave_fight(state, "brann"))
    fight = outcome.state.fight
    assert fight.current == "gobelin" and fight.done == ("aria",) and fight.round == 1
    assert outcome.explanation_lines("fr")[-1] == "R33 · Au tour de : Gobelin"
    assert turns_of_round(outcome.state)[0] == ["gobelin", "dame"]


def test_r33_leaving_refuses_one_not_in_the_fight_and_the_last_combatant():
    from rules.engine import NotInFight

    state = start(four(), ("aria", "brann")).state
    with pytest.raises(NotInFight):
        leave_fight(state, "dame")
    state = leave_fight(state, "aria").state
    with pytest.raises(InvalidFight) as refused:
        leave_fight(state, "brann")
    assert refused.value.message_fr == (
        "Brann est seul·e dans le combat : terminez le combat plutôt."
    )


def test_r33_join_and_leave_keep_the_order_and_turn_through_json():
    state = turn(start(four()).state).state
    state = join_fight(state, "dame", place=1).state
    state = leave_fight(state, "brann").state
    fight = state.fight
    assert Fight.from_json(fight.to_json()) == fight
    assert fight.current == "gobelin" and fight.order == ("dame", "aria", "gobelin")


def test_r33_the_last_turn_of_a_round_fleeing_starts_the_next_round_with_fresh_budgets():
    from rules.engine import spend

    state = start(four(), ("aria", "brann", "gobelin"), surprised=("aria",)).state
    state = spend(state, "brann", "action").state
    state = turn(turn(state).state).state  # Gobelin's turn, the last of round 1
    outcome = checked(state, leave_fight(state, "gobelin"))
    fight = outcome.state.fight
    assert (fight.round, fight.current, fight.done) == (2, "aria", ())
    assert budgets(outcome.state) == {"aria": (2, 1), "brann": (2, 1)}
    lines = outcome.explanation_lines("fr")
    assert lines[:3] == (
        "R33 · Ordre du combat : Aria, Brann",
        "R33 · Gobelin quitte le combat",
        "R33 · Fin de la manche 1",
    )
    assert "R33 · Au tour de : Aria" in lines and "R33 · Au tour de : Brann" not in lines
    assert "R25 · Aria — n’est plus Surpris·e" in lines  # round 1's end, as a turn would


def test_r33_when_rounds_move_the_clock_the_last_turn_fleeing_leaves_the_round_to_end():
    from dataclasses import replace

    from rules.engine import DEFAULT_RULESET

    ruleset = replace(DEFAULT_RULESET, round_seconds=6)
    state = start(four(), ("aria", "brann", "gobelin")).state
    state = turn(turn(state).state).state  # Gobelin's turn, the last of round 1
    fight = leave_fight(state, "gobelin", ruleset=ruleset).state.fight
    assert (fight.round, fight.current) == (1, "brann")  # « Tour suivant » ends the round
