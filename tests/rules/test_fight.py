import dataclasses
import json
from datetime import timedelta

import pytest

from rules.engine import (
    CAUSE_FIGHT,
    CAUSE_GM,
    DEFAULT_RULESET,
    CharacterDead,
    Condition,
    ConditionKind,
    Fight,
    FightAlreadyRunning,
    InvalidFight,
    InvalidSpend,
    NoFight,
    NotConscious,
    NothingLeftToSpend,
    NotInFight,
    Ruleset,
    UnknownCharacter,
    Vital,
    add_condition,
    describe_condition,
    end_fight,
    left_this_round,
    next_turn,
    set_order,
    spend,
    start_fight,
)
from tests.rules.util import (
    EVENING,
    budgets,
    campaign,
    checked,
    hero,
    new_round,
    no_dice,
    party,
    start,
    turn,
)

ONE = Fight(("aria", "brann"), 2, 1, (1, 2), (0, 1), ("aria",))


def test_r33_no_fight_is_running_by_default():
    assert campaign().fight is None


def test_r33_the_default_ruleset_ends_surprise_after_round_1_and_rounds_take_no_time():
    assert DEFAULT_RULESET.surprise_ends_after_first_round is True
    assert DEFAULT_RULESET.round_seconds == 0


def test_r33_a_fight_goes_to_json_and_back():
    data = ONE.to_json()
    assert data == {
        "order": ["aria", "brann"],
        "round": 2,
        "turn": 1,
        "actions_left": [1, 2],
        "reflexes_left": [0, 1],
        "surprised": ["aria"],
        "done": [],
    }
    assert Fight.from_json(json.loads(json.dumps(data))) == ONE
    # Stored before turns were tracked by name: those before the turn had theirs.
    del data["done"]
    assert Fight.from_json(data).done == ("aria",)
    # A generic dump of the dataclass (what the audit log does with a change's values) reads
    # back too.
    assert Fight.from_json(json.loads(json.dumps(dataclasses.asdict(ONE)))) == ONE


def test_r33_a_fight_is_a_hashable_value_stored_as_tuples():
    fight = Fight(["aria"], 1, 0, [2], [1])
    assert fight == Fight(("aria",), 1, 0, (2,), (1,)) and fight.order == ("aria",)
    assert hash(fight) == hash(Fight(("aria",), 1, 0, (2,), (1,)))
    assert Fight.from_json({k: v for k, v in fight.to_json().items() if k != "surprised"}) == fight


def test_r33_a_fight_knows_whose_turn_it_is_and_what_each_one_has_left():
    assert ONE.current == "brann"
    assert (ONE.left("aria"), ONE.left("brann")) == ((1, 0), (2, 1))
    with pytest.raises(NotInFight):
        ONE.left("gobelin")


@pytest.mark.parametrize(
    "changes",
    [
        {"order": (), "actions_left": (), "reflexes_left": (), "surprised": ()},
        {"order": ("aria", "aria")},
        {"surprised": ("gobelin",)},
        {"actions_left": (1,)},
        {"reflexes_left": (1, 1, 1)},
        {"actions_left": (-1, 2)},
        {"reflexes_left": (0, -1)},
        {"round": 0},
        {"turn": 2},
        {"turn": -1},
    ],
)
def test_r33_a_fight_that_breaks_the_rules_is_refused(changes):
    with pytest.raises(InvalidFight) as error:
        dataclasses.replace(ONE, **changes)
    assert error.value.code == "invalid_fight" and error.value.message_en


def test_r25_surpris_from_a_fights_start_says_how_it_ends():
    fr, en = describe_condition(Condition(ConditionKind.SURPRIS, CAUSE_FIGHT))
    assert fr.startswith("Surpris (début du combat) : aucun réflexe ; une seule action ; ")
    assert "fin de la première manche" in fr
    assert en.startswith("Surprised (start of the fight): ") and "first round" in en


# ---- Playing a fight --------------------------------------------------------------------


def test_r33_a_fight_starts_in_the_gms_order_at_round_1_with_each_ones_budget():
    outcome = start(party(), ("gobelin", "aria", "brann"))
    fight = outcome.state.fight
    assert fight == Fight(("gobelin", "aria", "brann"), 1, 0, (2, 2, 2), (1, 1, 1))
    assert outcome.explanation_lines("fr") == (
        "R33 · Début du combat : Gobelin, Aria, Brann",
        "R33 · Manche 1",
        "R33 · Gobelin : 2 actions, 1 réflexe",
        "R33 · Aria : 2 actions, 1 réflexe",
        "R33 · Brann : 2 actions, 1 réflexe",
        "R33 · Au tour de : Gobelin",
    )
    assert outcome.explanation_lines("en")[0] == "R33 · The fight begins: Gobelin, Aria, Brann"
    assert outcome.explanation_lines("en")[-1] == "R33 · Gobelin's turn"
    (change,) = outcome.changes
    assert (change.character_key, change.field, change.before, change.after) == (
        None,
        "fight",
        None,
        fight,
    )
    assert change.rule_id == "R33" and change.at == EVENING and outcome.rules == ("R33",)
    assert outcome.lines[-1].character_key == "gobelin"


def test_r33_no_initiative_is_rolled_and_the_order_stays_the_gms_round_after_round():
    state = start(party(), ("brann", "gobelin", "aria")).state
    dice = no_dice()  # any roll would raise: the script holds no value
    seen = []
    for _ in range(9):
        outcome = turn(state, rng=dice)
        assert outcome.rolls == () and outcome.checks == ()
        state = outcome.state
        seen.append((state.fight.round, state.fight.current))
    assert state.fight.order == ("brann", "gobelin", "aria")
    assert seen == [
        (1, "gobelin"),
        (1, "aria"),
        (2, "brann"),
        (2, "gobelin"),
        (2, "aria"),
        (3, "brann"),
        (3, "gobelin"),
        (3, "aria"),
        (4, "brann"),
    ]


def test_r33_turns_and_rounds_are_logged_in_natural_french_and_english():
    state = start(party()).state
    outcome = turn(state)
    assert outcome.explanation_lines("fr") == ("R33 · Au tour de : Brann",)
    assert outcome.explanation_lines("en") == ("R33 · Brann's turn",)
    assert outcome.changes[0].after.turn == 1
    outcome = turn(turn(outcome.state).state)
    assert outcome.explanation_lines("fr") == (
        "R33 · Fin de la manche 1",
        "R33 · Manche 2",
        "R33 · Aria : 2 actions, 1 réflexe",
        "R33 · Brann : 2 actions, 1 réflexe",
        "R33 · Gobelin : 2 actions, 1 réflexe",
        "R33 · Au tour de : Aria",
    )
    assert outcome.explanation_lines("en")[:2] == ("R33 · End of round 1", "R33 · Round 2")
    # Rounds take no game time by default (R33).
    assert outcome.state.clock == EVENING


def test_r33_spending_is_logged_and_refused_once_none_is_left():
    state = start(party()).state
    first = checked(state, spend(state, "aria", "action"))
    assert first.explanation_lines("fr") == ("R33 · Aria dépense une action (1 restante)",)
    assert first.explanation_lines("en") == ("R33 · Aria spends an action (1 left)",)
    (change,) = first.changes
    assert (change.field, change.rule_id, change.before, change.after) == (
        "fight",
        "R33",
        state.fight,
        dataclasses.replace(state.fight, actions_left=(1, 2, 2)),
    )
    second = checked(first.state, spend(first.state, "aria", "action"))
    assert second.explanation_lines("fr") == ("R33 · Aria dépense une action (0 restante)",)
    with pytest.raises(NothingLeftToSpend) as error:
        spend(second.state, "aria", "action")
    assert error.value.message_fr == "Aria n’a plus d’action cette manche (manche 1)."
    assert error.value.message_en == "Aria has no action left this round (round 1)."
    reflex = checked(second.state, spend(second.state, "aria", "reflex"))
    assert reflex.explanation_lines("fr") == ("R33 · Aria dépense un réflexe (0 restant)",)
    assert reflex.explanation_lines("en") == ("R33 · Aria spends a reflex (0 left)",)
    with pytest.raises(NothingLeftToSpend) as error:
        spend(reflex.state, "aria", "reflex")
    assert error.value.message_fr == "Aria n’a plus de réflexe cette manche (manche 1)."
    assert budgets(reflex.state)["aria"] == (0, 0) and budgets(reflex.state)["brann"] == (2, 1)


def test_r33_a_budget_of_three_says_so_in_the_plural():
    state = start(campaign(hero("aria", actions=3, reflexes=2)), ("aria",)).state
    outcome = spend(state, "aria", "action")
    assert outcome.explanation_fr == "R33 · Aria dépense une action (2 restantes)"
    assert start(campaign(hero("aria", actions=3, reflexes=2)), ("aria",)).lines[2].en == (
        "Aria: 3 actions, 2 reflexes"
    )


def test_r33_the_budget_comes_back_at_the_start_of_each_round():
    state = start(party()).state
    for key in ("aria", "brann"):
        state = spend(state, key, "action").state
    state = spend(state, "aria", "reflex").state
    assert budgets(state) == {"aria": (1, 0), "brann": (1, 1), "gobelin": (2, 1)}
    assert budgets(new_round(state).state) == {"aria": (2, 1), "brann": (2, 1), "gobelin": (2, 1)}


def test_r22_gene_gives_one_action_less_each_round():
    state = start(party(brann=(ConditionKind.GENE,))).state
    assert budgets(state)["brann"] == (1, 1)
    assert budgets(new_round(state).state)["brann"] == (1, 1)


def test_r25_surpris_leaves_one_action_and_no_reflex():
    state = start(party(brann=(ConditionKind.SURPRIS,))).state
    assert budgets(state)["brann"] == (1, 0)
    with pytest.raises(NothingLeftToSpend):
        spend(state, "brann", "reflex")


def test_r24_paralyse_leaves_no_action_and_no_reflex():
    state = start(party(brann=(ConditionKind.PARALYSE,))).state
    assert budgets(state)["brann"] == (0, 0)
    with pytest.raises(NothingLeftToSpend):
        spend(state, "brann", "action")


def test_r20_ebranle_leaves_the_actions_but_no_reflex():
    state = start(party(brann=(ConditionKind.EBRANLE,))).state
    assert budgets(state)["brann"] == (2, 0)


def test_r33_r22_a_condition_given_during_a_round_changes_the_budget_at_once():
    state = start(party()).state
    state = checked(state, add_condition(state, "gobelin", ConditionKind.GENE)).state
    assert budgets(state)["gobelin"] == (1, 1)  # at once, not from the next round
    assert budgets(new_round(state).state)["gobelin"] == (1, 1)


def test_r33_budgets_never_go_below_zero():
    gene = Condition(ConditionKind.GENE)
    state = campaign(
        hero("aria", actions=0, conditions=(gene,)),
        hero("brann", actions=1, reflexes=0, conditions=(gene,)),
        hero("gobelin", actions=1, conditions=(gene, Condition(ConditionKind.SURPRIS))),
    )
    outcome = start(state)
    assert budgets(outcome.state) == {"aria": (0, 1), "brann": (0, 0), "gobelin": (0, 0)}
    assert outcome.lines[3].fr == "Brann : 0 action, 0 réflexe"
    assert outcome.lines[3].en == "Brann: 0 actions, 0 reflexes"
    assert budgets(new_round(outcome.state).state) == budgets(outcome.state)


def test_r25_surpris_given_at_the_start_ends_at_the_end_of_round_1():
    outcome = start(party(), surprised=("gobelin", "aria"))
    fight = outcome.state.fight
    assert fight.surprised == ("aria", "gobelin")  # in the fight's order
    surprised = Condition(ConditionKind.SURPRIS, CAUSE_FIGHT)
    assert outcome.character("gobelin").conditions == (surprised,)
    assert budgets(outcome.state) == {"aria": (1, 0), "brann": (2, 1), "gobelin": (1, 0)}
    assert outcome.explanation_lines("fr")[1:3] == (
        "R25 · Aria — devient Surpris·e (début du combat)",
        "R25 · Gobelin — devient Surpris·e (début du combat)",
    )
    assert [c.rule_id for c in outcome.changes] == ["R25", "R25", "R33"]
    # Still Surpris through round 1's turns.
    state = turn(turn(outcome.state).state).state
    assert state.character("gobelin").has(ConditionKind.SURPRIS)
    second = turn(state)
    assert not second.character("gobelin").has(ConditionKind.SURPRIS)
    assert not second.character("aria").has(ConditionKind.SURPRIS)
    assert budgets(second.state) == {"aria": (2, 1), "brann": (2, 1), "gobelin": (2, 1)}
    assert second.explanation_lines("fr")[:3] == (
        "R33 · Fin de la manche 1",
        "R25 · Aria — n’est plus Surpris·e",
        "R25 · Gobelin — n’est plus Surpris·e",
    )
    assert [c.rule_id for c in second.changes] == ["R25", "R25", "R33"]


def test_r25_surpris_stays_when_the_campaign_leaves_it_to_the_gm():
    by_hand = Ruleset(surprise_ends_after_first_round=False)
    state = start(party(), surprised=("gobelin",), ruleset=by_hand).state
    for _ in range(2):
        state = new_round(state, by_hand).state
        assert state.character("gobelin").has(ConditionKind.SURPRIS, CAUSE_FIGHT)
        assert budgets(state)["gobelin"] == (1, 0)
    ended = checked(state, end_fight(state, ruleset=by_hand))
    assert ended.character("gobelin").has(ConditionKind.SURPRIS, CAUSE_FIGHT)


def test_r25_a_surpris_already_there_is_not_given_twice_and_stays_the_gms():
    state = party(gobelin=(ConditionKind.SURPRIS,))
    outcome = start(state, surprised=("gobelin",))
    assert outcome.character("gobelin").conditions == (Condition(ConditionKind.SURPRIS, CAUSE_GM),)
    assert [c.field for c in outcome.changes] == ["fight"]
    later = new_round(outcome.state)
    assert later.character("gobelin").has(ConditionKind.SURPRIS, CAUSE_GM)
    assert budgets(later.state)["gobelin"] == (1, 0)


def test_r25_surpris_from_the_start_ends_when_the_fight_ends_during_round_1():
    state = start(party(), surprised=("aria",)).state
    outcome = checked(state, end_fight(state))
    assert outcome.state.fight is None
    assert outcome.character("aria").conditions == ()
    assert outcome.explanation_lines("fr") == (
        "R33 · Fin du combat",
        "R25 · Aria — n’est plus Surpris·e",
    )
    assert outcome.explanation_lines("en")[0] == "R33 · The fight ends"
    assert [(c.field, c.rule_id) for c in outcome.changes] == [
        ("conditions", "R25"),
        ("fight", "R33"),
    ]
    with pytest.raises(NoFight):
        end_fight(outcome.state)


def test_r33_a_round_takes_the_campaigns_round_length_on_the_clock():
    six = Ruleset(round_seconds=6)
    state = start(party(), ruleset=six).state
    state = turn(turn(state, six).state, six).state
    assert state.clock == EVENING  # turns within a round take no time of their own
    outcome = turn(state, six)
    assert outcome.state.clock == EVENING + timedelta(seconds=6)
    assert outcome.explanation_lines("fr")[:2] == (
        "R33 · Fin de la manche 1",
        "R33 · La manche dure 6 s : l’horloge avance du jour 8888 à 20:00:00 "
        "au jour 8888 à 20:00:06",
    )
    assert outcome.explanation_lines("en")[1] == (
        "R33 · The round lasts 6 s: the clock moves from day 8888, 20:00:00 to day 8888, 20:00:06"
    )
    assert [(c.field, c.rule_id) for c in outcome.changes] == [("clock", "R32"), ("fight", "R33")]


def test_r33_what_falls_due_during_a_round_happens_a_coma_hour():
    # In a coma since 19:00:06: the hour falls at 20:00:06, the end of the first 6 s round.
    dying = hero("brann", pv=-1, vital=Vital.COMA, next_coma_hour=EVENING + timedelta(seconds=6))
    six = Ruleset(round_seconds=6)
    state = start(campaign(hero("aria"), dying), ("aria", "brann"), ruleset=six).state
    assert budgets(state)["brann"] == (0, 0)
    outcome = turn(turn(state, six).state, six)
    assert outcome.character("brann").pv == -2
    assert outcome.character("brann").next_coma_hour == EVENING + timedelta(hours=1, seconds=6)
    assert "R11" in outcome.rules
    assert "R11 · Brann — une heure de coma : −1 PV" in outcome.explanation_lines("fr")
    # The same fight with rounds of no length: no hour passes, nothing is lost.
    still = new_round(start(campaign(hero("aria"), dying), ("aria", "brann")).state)
    assert still.character("brann").pv == -1 and "R11" not in still.rules


def test_r33_a_character_falling_into_a_coma_during_a_round_has_no_budget_next_round():
    # Borrowed time (R10) runs out 3 s into the first 6 s round.
    aria = hero(
        "aria",
        pv=0,
        vital=Vital.BORROWED_TIME,
        coma_due=EVENING + timedelta(seconds=3),
        conditions=(Condition(ConditionKind.EXTENUE, "deaths_door"),),
    )
    six = Ruleset(round_seconds=6)
    state = start(campaign(aria, hero("brann")), ("aria", "brann"), ruleset=six).state
    assert budgets(state)["aria"] == (2, 1)  # on borrowed time, Aria still acts (R10)
    outcome = turn(turn(state, six).state, six)
    assert outcome.character("aria").vital is Vital.COMA
    assert outcome.state.fight.order == ("aria", "brann")  # the GM decides who leaves
    assert budgets(outcome.state)["aria"] == (0, 0)
    assert outcome.explanation_lines("fr")[-1] == "R33 · Au tour de : Aria (dans le coma)"
    assert outcome.explanation_lines("en")[-1] == "R33 · Aria's turn (in a coma)"
    with pytest.raises(NotConscious):
        spend(outcome.state, "aria", "action")


def test_r33_an_unconscious_or_dead_combatant_stays_in_the_order_with_nothing_to_spend():
    state = start(party()).state
    assert left_this_round(state, "brann") == (2, 1)
    # Brann dies during the round (by any rule); the fight's counts wait for the next round.
    dead = dataclasses.replace(state.character("brann"), vital=Vital.DEAD, pv=-9)
    state = state.with_character(dead)
    assert state.fight.left("brann") == (2, 1)
    assert left_this_round(state, "brann") == (0, 0)
    with pytest.raises(CharacterDead):
        spend(state, "brann", "reflex")
    later = new_round(state).state
    assert later.fight.order == ("aria", "brann", "gobelin")
    assert budgets(later)["brann"] == (0, 0)
    assert turn(later).explanation_fr == "R33 · Au tour de : Brann (mort·e)"


def test_r33_an_unconscious_character_may_start_in_the_fight_a_dead_one_may_not():
    coma = hero("brann", pv=-2, vital=Vital.COMA, next_coma_hour=EVENING + timedelta(hours=1))
    state = start(campaign(hero("aria"), coma), ("aria", "brann")).state
    assert budgets(state)["brann"] == (0, 0)
    dead = campaign(hero("aria"), hero("brann", vital=Vital.DEAD))
    with pytest.raises(CharacterDead):
        start_fight(dead, ("aria", "brann"))


@pytest.mark.parametrize(
    ("keys", "surprised", "error"),
    [
        ((), (), InvalidFight),
        (("aria", "brann", "aria"), (), InvalidFight),
        (("aria", "zorg"), (), UnknownCharacter),
        (("aria", "brann"), ("gobelin",), InvalidFight),
    ],
)
def test_r33_a_fight_needs_known_characters_each_once(keys, surprised, error):
    with pytest.raises(error):
        start_fight(party(), keys, surprised=surprised)


def test_r33_one_fight_at_a_time():
    state = start(party()).state
    with pytest.raises(FightAlreadyRunning) as error:
        start_fight(state, ("aria",))
    assert error.value.code == "fight_already_running"


def test_r33_surprised_listed_twice_counts_once():
    fight = start(party(), surprised=("aria", "aria")).state.fight
    assert fight.surprised == ("aria",)


def test_r33_no_turn_spending_or_order_without_a_fight():
    state = party()
    with pytest.raises(NoFight):
        next_turn(state, rng=no_dice())
    with pytest.raises(NoFight):
        spend(state, "aria", "action")
    with pytest.raises(NoFight):
        set_order(state, ("aria",))
    with pytest.raises(NoFight):
        left_this_round(state, "aria")


def test_r33_spending_needs_an_action_or_a_reflex_of_someone_in_the_fight():
    state = start(party(), ("aria", "brann")).state
    with pytest.raises(InvalidSpend) as error:
        spend(state, "aria", "sort")
    assert error.value.message_fr == "On dépense une action ou un réflexe, pas « sort »."
    with pytest.raises(NotInFight) as error:
        spend(state, "gobelin", "action")
    assert error.value.message_en == "Gobelin is not in the fight."
    with pytest.raises(UnknownCharacter):
        spend(state, "zorg", "action")


def test_r33_reordering_keeps_the_turn_and_what_each_one_has_left():
    state = start(party()).state
    state = turn(spend(state, "brann", "action").state).state  # Brann's turn, 1 action left
    outcome = checked(state, set_order(state, ("gobelin", "brann", "aria")))
    fight = outcome.state.fight
    assert fight.order == ("gobelin", "brann", "aria") and fight.current == "brann"
    assert budgets(outcome.state) == {"gobelin": (2, 1), "brann": (1, 1), "aria": (2, 1)}
    assert fight.round == 1
    assert outcome.explanation_lines("fr") == ("R33 · Ordre du combat : Gobelin, Brann, Aria",)
    assert outcome.explanation_lines("en") == ("R33 · Fight order: Gobelin, Brann, Aria",)
    # R33: Gobelin, moved above, has not had his turn and will; Aria had hers and keeps it had.
    after = turn(outcome.state).state
    assert after.fight.current == "gobelin" and after.fight.round == 1
    assert turn(after).state.fight.round == 2


def test_r33_a_combatant_joining_gets_its_budget_one_leaving_loses_its_place():
    state = start(party(gobelin=(ConditionKind.GENE,)), ("aria", "brann")).state
    outcome = checked(state, set_order(state, ("aria", "gobelin")))
    assert budgets(outcome.state) == {"aria": (2, 1), "gobelin": (1, 1)}
    assert outcome.state.fight.current == "aria"
    assert outcome.explanation_lines("fr") == (
        "R33 · Ordre du combat : Aria, Gobelin",
        "R33 · Brann quitte le combat",
        "R33 · Gobelin rejoint le combat (1 action, 1 réflexe)",
    )
    assert outcome.explanation_lines("en")[1:] == (
        "R33 · Brann leaves the fight",
        "R33 · Gobelin joins the fight (1 action, 1 reflex)",
    )
    assert new_round(outcome.state).state.fight.order == ("aria", "gobelin")


def test_r33_when_the_current_combatant_leaves_the_turn_goes_to_whoever_takes_its_place():
    state = turn(start(party()).state).state  # Brann's turn
    outcome = checked(state, set_order(state, ("aria", "gobelin")))
    assert outcome.state.fight.current == "gobelin"
    assert outcome.explanation_lines("fr")[-1] == "R33 · Au tour de : Gobelin"
    # Leaving from the last place: the turn goes to the one now last.
    state = turn(turn(start(party()).state).state).state  # Gobelin's turn, third of three
    outcome = checked(state, set_order(state, ("brann", "aria")))
    assert outcome.state.fight.current == "aria"
    assert outcome.explanation_lines("fr")[-1] == "R33 · Au tour de : Aria"


def test_r25_a_surprised_combatant_leaving_loses_the_fights_surpris():
    state = start(party(), surprised=("brann", "gobelin")).state
    outcome = checked(state, set_order(state, ("aria", "gobelin")))
    assert not outcome.character("brann").has(ConditionKind.SURPRIS)
    assert outcome.character("gobelin").has(ConditionKind.SURPRIS, CAUSE_FIGHT)
    assert outcome.state.fight.surprised == ("gobelin",)
    assert "R25 · Brann — n’est plus Surpris·e" in outcome.explanation_lines("fr")
    # Coming back does not make Brann surprised again.
    back = set_order(outcome.state, ("aria", "gobelin", "brann")).state
    assert not back.character("brann").has(ConditionKind.SURPRIS)
    assert budgets(back)["brann"] == (2, 1)


def test_r33_the_order_refuses_a_dead_newcomer_an_empty_or_a_repeated_order():
    state = start(party(), ("aria", "brann")).state
    state = state.with_character(dataclasses.replace(state.character("gobelin"), vital=Vital.DEAD))
    with pytest.raises(CharacterDead):
        set_order(state, ("aria", "brann", "gobelin"))
    with pytest.raises(InvalidFight):
        set_order(state, ())
    with pytest.raises(InvalidFight):
        set_order(state, ("aria", "aria"))
    # A dead combatant already in the fight may stay: the GM decides.
    state = state.with_character(dataclasses.replace(state.character("brann"), vital=Vital.DEAD))
    assert set_order(state, ("brann", "aria")).state.fight.order == ("brann", "aria")


def test_r33_ending_the_fight_clears_it():
    state = new_round(start(party()).state).state
    outcome = checked(state, end_fight(state))
    assert outcome.state.fight is None
    assert outcome.explanation_lines("fr") == ("R33 · Fin du combat",)
    (change,) = outcome.changes
    assert (change.field, change.before, change.after) == ("fight", state.fight, None)
    # A new fight may start once it is over.
    assert start(outcome.state).state.fight.round == 1


def test_r33_the_turn_names_the_character_after_a_colon_whatever_it_starts_with():
    # "Tour de Le Vicomte", "Tour de Élise": no "de" to elide or contract before the name.
    names = campaign(
        hero("a", name="Élise"), hero("b", name="Le Vicomte"), hero("c", name="Ysolde"), hero("d")
    )
    state = start(names, ("d", "a", "b", "c")).state
    lines = []
    for _ in range(3):
        outcome = turn(state)
        lines.append(outcome.lines[-1].fr)
        state = outcome.state
    assert lines == ["Au tour de : Élise", "Au tour de : Le Vicomte", "Au tour de : Ysolde"]
