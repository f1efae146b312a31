import random
from dataclasses import replace
from fractions import Fraction

import pytest

from rules.engine import (
    CharacterDead,
    Condition,
    ConditionKind,
    Illness,
    Modifier,
    NotConscious,
    Ruleset,
    ScriptedDice,
    Sequel,
    Severity,
    UnknownStat,
    Vital,
    check,
    success_probability,
)
from tests.rules.util import campaign, hero


def one_check(character, stat="VAI", dice=(10,), **options):
    outcome = check(campaign(character), character.key, stat, rng=ScriptedDice(dice), **options)
    (result,) = outcome.checks
    return outcome, result


def test_r5_d20_plus_stat_plus_modifiers_against_the_default_difficulty():
    outcome, result = one_check(hero(), dice=(8,))
    assert (result.natural, result.stat_value, result.total, result.difficulty) == (8, 2, 10, 10)
    assert result.success is True
    assert outcome.rules == ("R5", "R9")


def test_r5_one_below_the_difficulty_fails():
    _, result = one_check(hero(), dice=(7,))
    assert result.total == 9 and result.success is False


def test_r5_gm_difficulty_and_modifiers_are_listed_with_their_source():
    gm = Modifier("pluie", -2, None, "rain")
    _, result = one_check(hero(), stat="ADR", dice=(12,), difficulty=12, modifiers=[gm])
    assert result.modifiers == (gm,)
    assert result.total == 12 + 1 - 2 and result.success is False
    assert result.text_en == "ADR: 12 (d20) + 1 (ADR) − 2 (rain) = 11 < 12 → failure [typed-in die]"


def test_r5_explanation_in_french_and_english():
    character = hero(sequels=(Sequel("ADR", "brûlure"),))
    outcome, result = one_check(character, dice=(14,), skill="Survie")
    assert result.text_fr == (
        "Survie (VAI) : 14 (d20) + 2 (VAI) − 1 (séquelle) = 15 ≥ 10 → réussite [dé saisi]"
    )
    assert result.text_en == (
        "Survival (VAI): 14 (d20) + 2 (VAI) − 1 (sequel) = 15 ≥ 10 → success [typed-in die]"
    )
    assert outcome.explanation_fr == f"R5 · Aldo — {result.text_fr}"
    assert outcome.explanation_en == f"R5 · Aldo — {result.text_en}"


def test_r5_natural_twenty_and_one_mean_nothing_by_default():
    _, high = one_check(hero(), dice=(20,), difficulty=30)
    _, low = one_check(hero(), dice=(1,), difficulty=2)
    assert (high.success, high.extreme, low.success, low.extreme) == (False, None, True, None)


def test_r5_option_natural_twenty_always_succeeds_and_natural_one_always_fails():
    ruleset = Ruleset(natural_extremes=True)
    _, high = one_check(hero(), dice=(20,), difficulty=30, ruleset=ruleset)
    _, low = one_check(hero(), dice=(1,), difficulty=2, ruleset=ruleset)
    _, middle = one_check(hero(), dice=(10,), ruleset=ruleset)
    assert (high.success, high.extreme, low.success, low.extreme) == (
        True,
        "natural_20",
        False,
        "natural_1",
    )
    assert middle.extreme is None and middle.success is True
    assert "→ réussite (20 naturel, R5)" in high.text_fr
    assert "→ failure (natural 1, R5)" in low.text_en


@pytest.mark.parametrize("kind", [ConditionKind.EXTENUE, ConditionKind.IMMOBILISE])
def test_r6_odd_natural_d20_counts_zero_while_extenue_or_immobilise(kind):
    outcome, result = one_check(hero(conditions=(Condition(kind),)), dice=(13,))
    assert (result.natural, result.die_value, result.die_rule) == (13, 0, "R6")
    assert result.total == 2 and result.success is False
    assert "0 (d20 : 13 impair → 0, R6)" in result.text_fr
    assert "0 (d20: 13 odd → 0, R6)" in result.text_en
    assert "R6" in outcome.rules


def test_r6_even_natural_d20_is_kept_while_extenue():
    _, result = one_check(hero(conditions=(Condition(ConditionKind.EXTENUE),)), dice=(14,))
    assert (result.die_value, result.die_rule, result.total) == (14, None, 16)


def test_r6_odd_die_counts_normally_without_the_conditions():
    _, result = one_check(hero(conditions=(Condition(ConditionKind.GENE),)), dice=(13,))
    assert result.die_value == 13


def test_r7_each_sequel_gives_minus_one_to_survie_tests():
    character = hero(sequels=(Sequel("ADR"), Sequel("PUI")))
    outcome, result = one_check(character, dice=(10,), skill="Survie")
    assert [m.value for m in result.modifiers] == [-1, -1]
    assert {m.rule_id for m in result.modifiers} == {"R7"}
    assert result.total == 10 + 2 - 2
    assert "R7" in outcome.rules


def test_r7_sequels_do_not_touch_other_vai_tests():
    character = hero(sequels=(Sequel("ADR"),))
    _, result = one_check(character, dice=(10,), skill="Volonté")
    assert result.modifiers == () and result.total == 12


def test_r8_illness_gives_its_malus_to_all_tests():
    character = hero(illness=Illness(Severity.SEVERE, 2))
    outcome, result = one_check(character, stat="ADR", dice=(10,))
    assert result.modifiers == (Modifier("maladie", -3, "R8", "illness"),)
    assert result.total == 10 + 1 - 3
    assert "R8" in outcome.rules


def test_r8_sleep_deprivation_gives_minus_two_to_all_tests():
    _, result = one_check(hero(sleep_deprived=True), stat="ESP", dice=(10,))
    assert [(m.value, m.rule_id) for m in result.modifiers] == [(-2, "R8")]
    assert result.total == 11


def test_r8_maluses_add_up():
    character = hero(
        sleep_deprived=True, illness=Illness(Severity.MILD, 1), sequels=(Sequel("SAV"),)
    )
    _, result = one_check(character, dice=(10,), skill="Survie", modifiers=[Modifier("x", 1)])
    assert [m.value for m in result.modifiers] == [-1, -1, -2, 1]
    assert result.total == 10 + 2 - 3


def test_r9_a_typed_in_die_goes_through_the_same_code_as_a_server_roll():
    typed = check(campaign(hero()), "a", "VAI", rng=ScriptedDice([11]))
    server = check(campaign(hero()), "a", "VAI", rng=ScriptedDice([11], typed_in=False))
    assert typed.checks[0].typed_in is True and server.checks[0].typed_in is False
    assert replace(typed.checks[0], roll=server.checks[0].roll) == server.checks[0]
    assert "R9" in typed.rules and "R9" not in server.rules


def test_r9_a_server_roll_uses_the_random_source():
    outcome = check(campaign(hero()), "a", "VAI", rng=random.Random(4))
    assert outcome.checks[0].typed_in is False
    assert outcome.checks[0].natural == random.Random(4).randrange(20) + 1


def test_check_does_not_list_its_d20_among_plain_rolls():
    outcome, _ = one_check(hero())
    assert outcome.rolls == ()


def test_r14_effective_stat_is_base_minus_sequels():
    character = hero(sequels=(Sequel("VAI"), Sequel("VAI"), Sequel("ADR")))
    assert character.stat("VAI") == 0 and character.base_stat("VAI") == 2
    _, result = one_check(character, dice=(10,))
    assert result.stat_value == 0


def test_check_refuses_an_unknown_stat():
    with pytest.raises(UnknownStat, match="FOR"):
        one_check(hero(), stat="FOR")


def test_check_refuses_a_stat_outside_the_campaign_list():
    with pytest.raises(UnknownStat):
        one_check(hero(), stat="ESP", ruleset=Ruleset(stats=("ADR", "VAI")))


def test_check_refuses_dead_and_unconscious_characters():
    with pytest.raises(CharacterDead):
        one_check(hero(vital=Vital.DEAD))
    with pytest.raises(NotConscious):
        one_check(hero(vital=Vital.COMA, pv=-1))


def test_check_is_allowed_on_borrowed_time():
    _, result = one_check(hero(vital=Vital.BORROWED_TIME, pv=0))
    assert result.success is True


def test_success_probability_of_a_plain_check():
    # d20 + 2 >= 10 succeeds on 8..20: 13 faces.
    assert success_probability(hero(), "VAI") == Fraction(13, 20)


def test_success_probability_with_r6_r7_r8_and_modifiers():
    character = hero(
        conditions=(Condition(ConditionKind.EXTENUE),),
        sequels=(Sequel("ADR"),),
        illness=Illness(Severity.MILD, 1),
    )
    # d20 + 2 - 1 (sequel) - 1 (illness) + 1 (GM) >= 12 needs 11+, even faces only: 12..20 -> 5.
    probability = success_probability(
        character, "VAI", skill="Survie", difficulty=12, modifiers=[Modifier("aide", 1)]
    )
    assert probability == Fraction(5, 20)


def test_success_probability_with_the_natural_extremes_option():
    ruleset = Ruleset(natural_extremes=True)
    assert success_probability(hero(), "VAI", difficulty=40, ruleset=ruleset) == Fraction(1, 20)
    assert success_probability(hero(), "VAI", difficulty=-5, ruleset=ruleset) == Fraction(19, 20)
    assert success_probability(hero(), "VAI", difficulty=-5) == 1
