import pytest

from rules.engine import (
    CAUSE_DEATHS_DOOR,
    CAUSE_FLUX,
    CAUSE_SLEEP,
    CharacterDead,
    Condition,
    ConditionKind,
    ConditionNotPresent,
    NotConscious,
    ScriptedDice,
    Vital,
    add_condition,
    attempt_free,
    describe_condition,
    effective,
    remove_condition,
)
from tests.rules.util import campaign, hero


def with_conditions(*kinds, **changes):
    return hero(conditions=tuple(Condition(k) for k in kinds), **changes)


def test_r4_default_counts_two_actions_one_reflex():
    numbers = effective(hero(pa=2))
    assert (numbers.actions, numbers.reflexes, numbers.pa) == (2, 1, 2)
    assert numbers.can_move and numbers.can_travel_far and not numbers.odd_d20_zero


def test_r4_the_gm_edits_the_defaults_per_character():
    assert effective(hero(actions=3, reflexes=2)).actions == 3


def test_r20_ebranle_no_reflexes_minus_three_pa():
    numbers = effective(with_conditions(ConditionKind.EBRANLE, pa=5))
    assert (numbers.actions, numbers.reflexes, numbers.pa) == (2, 0, 2)


def test_r20_ebranle_pa_never_below_zero():
    assert effective(with_conditions(ConditionKind.EBRANLE, pa=2)).pa == 0


def test_r21_extenue_odd_d20_and_no_long_travel():
    numbers = effective(with_conditions(ConditionKind.EXTENUE))
    assert numbers.odd_d20_zero and not numbers.can_travel_far and numbers.can_move
    assert numbers.actions == 2


def test_r22_gene_minus_one_action():
    assert effective(with_conditions(ConditionKind.GENE)).actions == 1


def test_r22_gene_never_below_zero_actions():
    assert effective(with_conditions(ConditionKind.GENE, actions=0)).actions == 0


def test_r23_immobilise_no_movement_and_odd_d20():
    numbers = effective(with_conditions(ConditionKind.IMMOBILISE))
    assert not numbers.can_move and numbers.odd_d20_zero and numbers.can_travel_far is True


def test_r23_immobilise_frees_itself_with_a_suitable_test():
    state = campaign(with_conditions(ConditionKind.IMMOBILISE))
    failed = attempt_free(state, "a", "PUI", rng=ScriptedDice([9]), skill="Athlétisme")
    assert failed.character("a").has(ConditionKind.IMMOBILISE)
    # Immobilisé makes an odd die count 0: 9 -> 0. An even 10 frees.
    assert failed.checks[0].die_value == 0
    freed = attempt_free(state, "a", "PUI", rng=ScriptedDice([10]))
    assert freed.character("a").conditions == ()
    assert freed.rules[0] == "R23"


def test_r23_freeing_needs_the_condition_and_consciousness():
    with pytest.raises(ConditionNotPresent):
        attempt_free(campaign(hero()), "a", "PUI", rng=ScriptedDice([10]))
    with pytest.raises(NotConscious):
        attempt_free(
            campaign(with_conditions(ConditionKind.IMMOBILISE, vital=Vital.COMA, pv=-1)),
            "a",
            "PUI",
            rng=ScriptedDice([10]),
        )


def test_r24_paralyse_no_action_no_reflex():
    numbers = effective(with_conditions(ConditionKind.PARALYSE, actions=3))
    assert (numbers.actions, numbers.reflexes) == (0, 0)


def test_r25_surpris_no_reflexes_one_action():
    numbers = effective(with_conditions(ConditionKind.SURPRIS, actions=3))
    assert (numbers.actions, numbers.reflexes) == (1, 0)


def test_r26_several_conditions_combine():
    numbers = effective(
        with_conditions(ConditionKind.GENE, ConditionKind.SURPRIS, ConditionKind.EBRANLE, pa=1)
    )
    assert (numbers.actions, numbers.reflexes, numbers.pa) == (1, 0, 0)
    both = effective(with_conditions(ConditionKind.GENE, ConditionKind.SURPRIS, actions=1))
    assert both.actions == 0


def test_r26_unconscious_characters_cannot_act_or_move():
    numbers = effective(hero(vital=Vital.COMA, pv=-1))
    assert (numbers.actions, numbers.reflexes, numbers.can_move, numbers.conscious) == (
        0,
        0,
        False,
        False,
    )


def test_r26_every_condition_records_its_cause_and_how_it_ends():
    fr, en = describe_condition(Condition(ConditionKind.EXTENUE, CAUSE_FLUX))
    assert fr == (
        "Exténué (Flux à 0) : un D20 impair vaut 0 ; pas de long voyage avant un repos ; "
        "prend fin quand le Flux repasse au-dessus de 0."
    )
    assert en.startswith("Exhausted (Flux at 0): an odd D20 counts as 0")
    assert (
        "at the coma" in describe_condition(Condition(ConditionKind.EXTENUE, CAUSE_DEATHS_DOOR))[1]
    )
    assert "proper night" in describe_condition(Condition(ConditionKind.EXTENUE, CAUSE_SLEEP))[1]
    assert "GM removes" in describe_condition(Condition(ConditionKind.GENE, "filet"))[1]


@pytest.mark.parametrize(
    ("kind", "rule"),
    [
        (ConditionKind.EBRANLE, "R20"),
        (ConditionKind.EXTENUE, "R21"),
        (ConditionKind.GENE, "R22"),
        (ConditionKind.IMMOBILISE, "R23"),
        (ConditionKind.PARALYSE, "R24"),
        (ConditionKind.SURPRIS, "R25"),
    ],
)
def test_r20_to_r25_adding_a_condition_names_its_rule(kind, rule):
    outcome = add_condition(campaign(hero()), "a", kind, cause="filet")
    assert outcome.character("a").conditions == (Condition(kind, "filet"),)
    assert outcome.rules == (rule,)


def test_r26_the_same_condition_and_cause_twice_is_one():
    state = add_condition(campaign(hero()), "a", ConditionKind.GENE).state
    assert add_condition(state, "a", ConditionKind.GENE).changes == ()


def test_r26_the_gm_removes_a_condition_logged():
    character = hero(
        conditions=(Condition(ConditionKind.EXTENUE, CAUSE_FLUX), Condition(ConditionKind.GENE))
    )
    outcome = remove_condition(campaign(character), "a", ConditionKind.EXTENUE)
    assert outcome.character("a").conditions == (Condition(ConditionKind.GENE),)
    assert outcome.changes[0].by_gm and outcome.rules == ("R26",)


def test_r26_removing_by_cause_keeps_the_other_causes():
    character = hero(
        conditions=(
            Condition(ConditionKind.EXTENUE, CAUSE_FLUX),
            Condition(ConditionKind.EXTENUE, CAUSE_SLEEP),
        )
    )
    outcome = remove_condition(campaign(character), "a", ConditionKind.EXTENUE, cause=CAUSE_SLEEP)
    assert outcome.character("a").conditions == (Condition(ConditionKind.EXTENUE, CAUSE_FLUX),)


def test_r26_removing_an_absent_condition_is_refused():
    gene = hero(conditions=(Condition(ConditionKind.GENE),))
    with pytest.raises(ConditionNotPresent, match="Paralysé"):
        remove_condition(campaign(gene), "a", ConditionKind.PARALYSE)
    with pytest.raises(ConditionNotPresent, match="aucun état"):
        remove_condition(campaign(hero()), "a", ConditionKind.PARALYSE)


def test_no_condition_on_the_dead():
    with pytest.raises(CharacterDead):
        add_condition(campaign(hero(vital=Vital.DEAD)), "a", ConditionKind.GENE)
