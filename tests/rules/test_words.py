"""French agreement with a character's grammatical gender (rules/engine/words.py): « mort »,
« morte », « mort·e »; the engine's sentences about a named character agree (R10–R16, R26)."""

from datetime import timedelta

import pytest

from rules.engine import (
    Condition,
    ConditionKind,
    RuleError,
    ScriptedDice,
    Vital,
    add_condition,
    attempt_stabilise,
    remove_condition,
    spend_flux,
    take_damage,
)
from rules.engine.text import condition_name, vital_text
from rules.engine.words import ELLE, IEL, IL, agree, inclusive
from tests.rules.util import campaign, hero


@pytest.mark.parametrize(
    ("gender", "said"),
    [
        (IL, "mort ; stabilisé, inconscient"),
        (ELLE, "morte ; stabilisée, inconsciente"),
        (IEL, "mort·e ; stabilisé·e, inconscient·e"),
        ("", "mort·e ; stabilisé·e, inconscient·e"),  # nobody said: the inclusive form
    ],
)
def test_agree_picks_the_form_of_each_marked_word(gender, said):
    assert agree("mort·e ; stabilisé·e, inconscient·e", gender) == said


def test_agree_leaves_words_without_the_final_mark():
    # « joueur·euse » is not a final « ·e »: only words ending in the mark change.
    assert agree("un·e joueur·euse malade", ELLE) == "une joueur·euse malade"
    assert agree("malade", IL) == "malade"


def test_a_condition_name_takes_the_mark_to_agree():
    assert [agree(inclusive(word), ELLE) for word in ("Gêné", "Surpris", "Exténué")] == [
        "Gênée",
        "Surprise",
        "Exténuée",
    ]
    assert agree(inclusive("Gêné"), IL) == "Gêné"
    assert agree(inclusive("Gêné"), IEL) == "Gêné·e"


@pytest.mark.parametrize(
    ("gender", "expected"),
    [(None, "Paralysé"), (IL, "Paralysé"), (ELLE, "Paralysée"), (IEL, "Paralysé·e")],
)
def test_r23_a_condition_s_name_agrees_with_a_character_s_gender(gender, expected):
    # Without a character (a list of the rules' conditions) the rules' own word.
    assert condition_name(ConditionKind.PARALYSE, gender) == (expected, "Paralysed")


@pytest.mark.parametrize(
    ("gender", "dead", "stabilised"),
    [
        (IL, "mort", "stabilisé, inconscient"),
        (ELLE, "morte", "stabilisée, inconsciente"),
        (IEL, "mort·e", "stabilisé·e, inconscient·e"),
    ],
)
def test_r16_r12_a_named_characters_vital_state_agrees(gender, dead, stabilised):
    assert vital_text(Vital.DEAD, gender)[0] == dead
    assert vital_text(Vital.STABILISED, gender)[0] == stabilised
    assert vital_text(Vital.DEAD, gender)[1] == "dead"


@pytest.mark.parametrize(
    ("gender", "said"),
    [
        (IL, "blessé de nouveau : n’est plus stabilisé"),
        (ELLE, "blessée de nouveau : n’est plus stabilisée"),
        (IEL, "blessé·e de nouveau : n’est plus stabilisé·e"),
    ],
)
def test_r12_a_sentence_about_a_named_character_agrees(gender, said):
    # R12: a stabilised character hurt again is no longer stabilised; the engine's sentence
    # about Aldo (Draft.say with his key) agrees with his gender.
    state = campaign(hero(pv=-2, vital=Vital.STABILISED, gender=gender))
    outcome = take_damage(state, "a", 1, rng=ScriptedDice([]))
    assert f"Aldo — {said}" in outcome.explanation_fr, outcome.explanation_fr


@pytest.mark.parametrize(
    ("gender", "said"),
    [(IL, "déjà stabilisé."), (ELLE, "déjà stabilisée."), (IEL, "déjà stabilisé·e.")],
)
def test_r12_a_refusal_about_a_named_character_agrees(gender, said):
    state = campaign(hero(pv=-2, vital=Vital.STABILISED, gender=gender))
    with pytest.raises(RuleError) as refused:
        attempt_stabilise(state, "a", rng=ScriptedDice([15]), healer_esp=2)
    assert refused.value.message_fr.endswith(said), refused.value.message_fr


@pytest.mark.parametrize(("gender", "word"), [(IL, "Gêné"), (ELLE, "Gênée"), (IEL, "Gêné·e")])
def test_r26_removing_a_condition_the_character_lacks_agrees(gender, word):
    with pytest.raises(RuleError) as refused:
        shaken = (Condition(ConditionKind.EBRANLE),)
        remove_condition(campaign(hero(gender=gender, conditions=shaken)), "a", ConditionKind.GENE)
    assert refused.value.message_fr == f"Aldo n’est pas {word}."


@pytest.mark.parametrize(
    ("gender", "gains", "loses"),
    [
        (IL, "devient Gêné", "n’est plus Surpris"),
        (ELLE, "devient Gênée", "n’est plus Surprise"),
        (IEL, "devient Gêné·e", "n’est plus Surpris·e"),
    ],
)
def test_r20_r25_a_condition_gained_or_lost_agrees_with_the_character(gender, gains, loses):
    surprised = (Condition(ConditionKind.SURPRIS),)
    state = campaign(hero(gender=gender, conditions=surprised))
    gained = add_condition(state, "a", ConditionKind.GENE)
    assert f"Aldo — {gains} (" in gained.explanation_fr, gained.explanation_fr
    lost = remove_condition(state, "a", ConditionKind.SURPRIS)
    assert f"Aldo — {loses}" in lost.explanation_fr, lost.explanation_fr
    assert "Aldo — is no longer Surprised" in lost.explanation_en


@pytest.mark.parametrize(("gender", "word"), [(IL, "Exténué"), (ELLE, "Exténuée")])
def test_r26_flux_at_zero_says_exhausted_in_the_character_s_gender(gender, word):
    spent = spend_flux(campaign(hero(gender=gender)), "a", 6)
    assert f"Aldo — devient {word} (" in spent.explanation_fr, spent.explanation_fr


def test_r10_the_clock_says_when_the_coma_is_due_in_a_sentence():
    from rules.engine.text import moment_words, on_moment
    from tests.rules.util import EVENING

    later = EVENING + timedelta(minutes=10)
    assert on_moment(later) == ("le jour 8888 à 20:10", "on day 8888 at 20:10")
    assert moment_words(later)[0] == "jour 8888 à 20:10"


def test_r5_r11_a_player_reads_sentences_without_the_rules_ids():
    """The rules' ids are the GM's references: a player's sentence reads without them, in
    each place a text cites them (the head of a line, a bracket of ids, an id closing a
    bracket that says more); the rest of the sentence is kept as it is."""
    from rules.engine.text import without_rule_ids

    assert without_rule_ids("R11 · Survie (VAI) : 14 ≥ 10") == "Survie (VAI) : 14 ≥ 10"
    assert without_rule_ids("R17–R19, R31 · la nuit passe") == "la nuit passe"
    assert without_rule_ids("Privé de sommeil : −2 (R31)") == "Privé de sommeil : −2"
    assert without_rule_ids("réussite (20 naturel, R5)") == "réussite (20 naturel)"
    assert without_rule_ids("Gêné (R25, R33) et Surpris") == "Gêné et Surpris"
    assert without_rule_ids("jour 1 à 08:10") == "jour 1 à 08:10"
