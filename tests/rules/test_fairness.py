"""The chi-square verdict on a D20 (the dice's statistics): proven on rolled data."""

import random

import pytest

from rules.engine.fairness import (
    MINIMUM_ROLLS,
    Verdict,
    chi_square,
    chi_square_sf,
    face_counts,
    fairness,
)


def fair_rolls(n: int, seed: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randint(1, 20) for _ in range(n)]


def loaded_on_20(n: int, seed: int) -> list[int]:
    """A die whose 20 is twice as likely as each other face (2/21 against 1/21)."""
    rng = random.Random(seed)
    return [rng.choices(range(1, 21), weights=[1] * 19 + [2])[0] for _ in range(n)]


@pytest.mark.parametrize(
    "x, df, p",
    [
        # Textbook critical values: the survival function lands on their level.
        (3.841, 1, 0.05),
        (5.991, 2, 0.05),
        (9.488, 4, 0.05),
        (30.144, 19, 0.05),
        (36.191, 19, 0.01),
        (43.820, 19, 0.001),
    ],
)
def test_the_survival_function_gives_the_tables_levels(x, df, p):
    assert chi_square_sf(x, df) == pytest.approx(p, rel=2e-3)


def test_the_survival_function_at_and_below_0_is_1():
    assert chi_square_sf(0, 19) == 1.0
    assert chi_square_sf(-1, 2) == 1.0


def test_the_survival_function_of_19_degrees_at_its_mean_is_about_half():
    # The median of chi-square(19) is about 18.34: P(X ≥ 19) a little under one half.
    assert 0.44 < chi_square_sf(19, 19) < 0.47


def test_2000_fair_rolls_are_called_fair():
    verdicts = [fairness(face_counts(fair_rolls(2000, seed))).verdict for seed in range(5)]
    assert verdicts == [Verdict.FAIR] * 5


def test_2000_rolls_of_a_die_loaded_on_20_are_called_suspicious():
    for seed in range(5):
        found = fairness(face_counts(loaded_on_20(2000, seed)))
        assert found.verdict is Verdict.SUSPICIOUS
        assert found.p_value < 0.001
        assert found.counts[19] > found.expected * 1.5


def test_fewer_rolls_than_the_minimum_give_no_verdict():
    assert MINIMUM_ROLLS == 100  # 5 expected on each of the 20 faces
    few = fairness(face_counts(loaded_on_20(MINIMUM_ROLLS - 1, 1)))
    assert (few.verdict, few.p_value, few.statistic) == (Verdict.NONE, None, None)
    # Even 99 twenties say nothing: the test is not valid yet.
    assert fairness([0] * 19 + [99]).verdict is Verdict.NONE
    assert fairness(face_counts(fair_rolls(MINIMUM_ROLLS, 3))).verdict is not Verdict.NONE


def test_an_unusual_gap_is_to_watch():
    # 100 rolls, 5 per face but faces 1 to 4 at 17, 0, 0 and 3: chi-square 198 / 5 = 39.6.
    counts = [5] * 20
    counts[:4] = 17, 0, 0, 3
    assert sum(counts) == 100
    found = fairness(counts)
    assert found.statistic == pytest.approx(chi_square(counts))
    assert 0.001 <= found.p_value < 0.01
    assert found.verdict is Verdict.WATCH


def test_face_counts_ignore_what_is_not_a_d20_face():
    assert face_counts([1, 20, 20, 0, 21]) == (1,) + (0,) * 18 + (2,)


def test_a_d20_has_20_faces():
    with pytest.raises(ValueError):
        fairness([1] * 6)
