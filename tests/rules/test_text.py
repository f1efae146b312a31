"""French that reads naturally and one English term: hours without ".0" and with a
French decimal comma, real plurals instead of "(s)", the ground of a fall in words, and "PA"
in English sentences as on the cards."""

import pytest

from rules.engine import ScriptedDice, Surface, fall, night_rest, take_damage
from rules.engine.text import count_en, count_fr, hours_text
from tests.rules.util import campaign, hero

NO_DICE = ScriptedDice([])


@pytest.mark.parametrize(
    ("hours", "expected"),
    [
        (8.0, ("8 h", "8 h")),
        (7.5, ("7,5 h", "7.5 h")),
        (10, ("10 h", "10 h")),
        (0.5, ("0,5 h", "0.5 h")),
    ],
)
def test_hours_read_without_a_trailing_zero_and_with_a_french_decimal_comma(hours, expected):
    assert hours_text(hours) == expected


@pytest.mark.parametrize(
    ("n", "fr", "en"),
    [(0, "0 étage", "0 storeys"), (1, "1 étage", "1 storey"), (2, "2 étages", "2 storeys")],
)
def test_counts_take_the_plural_of_each_language(n, fr, en):
    assert count_fr(n, "étage", "étages") == fr
    assert count_en(n, "storey", "storeys") == en


def test_a_night_of_8_hours_reads_8_h():
    outcome = night_rest(campaign(hero(pv=5)), hours=8.0, rng=NO_DICE)
    assert "nuit de 8 h" in outcome.explanation_fr
    assert "8 h night" in outcome.explanation_en


def test_a_night_of_7_and_a_half_hours_reads_7_5_h_in_french():
    outcome = night_rest(campaign(hero(pv=5)), hours=7.5, rng=NO_DICE)
    assert "nuit de 7,5 h" in outcome.explanation_fr
    assert "7.5 h night" in outcome.explanation_en


def test_a_fall_names_its_ground_and_counts_storeys_in_words():
    big = hero(pv=60, pv_max=60)
    outcome = fall(campaign(big), "a", storeys=3, surface=Surface.ROUGH, rng=ScriptedDice([2]))
    assert (
        "chute de 3 étages, sol accidenté ou en pente : compte pour 4 étages"
        in outcome.explanation_fr
    )
    assert "fall of 3 storeys, rough or steep ground: counts as 4 storeys" in outcome.explanation_en
    outcome = fall(campaign(big), "a", storeys=1, surface=Surface.SOFT, rng=NO_DICE)
    assert "chute de 1 étage, sol meuble ou eau : compte pour 0 étage" in outcome.explanation_fr
    assert "(s)" not in outcome.explanation_fr + outcome.explanation_en


def test_english_sentences_say_pa_as_the_cards_do():
    outcome = take_damage(campaign(hero(pa=2)), "a", 5, rng=NO_DICE)
    assert "5 damage − 2 PA = 3" in outcome.explanation_en
    assert " AP" not in outcome.explanation_en


def test_one_point_of_damage_is_singular_in_french():
    outcome = take_damage(campaign(hero()), "a", 1, rng=NO_DICE)
    assert "1 dégât − 0 PA = 1" in outcome.explanation_fr


def test_damage_that_ignores_pa_reads_for_one_point_as_for_many():
    outcome = take_damage(campaign(hero()), "a", 1, rng=NO_DICE, ignores_pa=True)
    assert "1 dégât (PA ignorés) ; PV 10 → 9" in outcome.explanation_fr
