"""Is a D20 fair? Pearson's chi-square goodness of fit over its 20 faces, with an exact p-value.

The p-value is the chi-square survival function, computed in closed form (no statistics
library): for k degrees of freedom, Q(x; k) = P(X ≥ x) is a finite sum of terms in e^(−x/2)
(k even), plus erfc(√(x/2)) (k odd). A D20 has 19 degrees of freedom.

No verdict below MINIMUM_ROLLS: the chi-square distribution describes Pearson's statistic only
when every face is expected often enough; the usual bar (Cochran) is an expected count of at
least 5 per face, 5 × 20 = 100 rolls. Below it the p-value would not mean what it says.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

FACES = 20
MIN_EXPECTED_PER_FACE = 5
MINIMUM_ROLLS = FACES * MIN_EXPECTED_PER_FACE  # 100

# Below SUSPICIOUS a fair die gives such a gap less than once in a thousand; between WATCH and
# SUSPICIOUS less than once in a hundred: unusual, but a table that looks at many dice will
# meet it by chance now and then.
SUSPICIOUS = 0.001
WATCH = 0.01


class Verdict(Enum):
    NONE = "none"  # too few rolls to say anything
    FAIR = "fair"  # nothing says it is not fair
    WATCH = "watch"  # an unusual gap: to watch
    SUSPICIOUS = "suspicious"  # a fair die would almost never do this


@dataclass(frozen=True, slots=True)
class Fairness:
    counts: tuple[int, ...]  # how many times each face 1…20 came
    rolls: int
    statistic: float | None  # Pearson's chi-square, None below MINIMUM_ROLLS
    p_value: float | None
    verdict: Verdict

    @property
    def expected(self) -> float:
        return self.rolls / FACES


def face_counts(faces: Iterable[int]) -> tuple[int, ...]:
    """How many times each face 1…20 appears among `faces` (other values are ignored)."""
    counts = [0] * FACES
    for face in faces:
        if 1 <= face <= FACES:
            counts[face - 1] += 1
    return tuple(counts)


def chi_square(counts: Sequence[int]) -> float:
    """Pearson's statistic against equal chances for every face."""
    total = sum(counts)
    expected = total / len(counts)
    return sum((count - expected) ** 2 for count in counts) / expected


def chi_square_sf(x: float, df: int) -> float:
    """P(X ≥ x) for X chi-square with `df` degrees of freedom (df ≥ 1), in closed form."""
    if x <= 0:
        return 1.0
    half = x / 2
    if df % 2 == 0:
        # Q = e^(−x/2) · Σ_{i<df/2} (x/2)^i / i!
        term = total = 1.0
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return min(1.0, math.exp(-half) * total)
    # Q = erfc(√(x/2)) + e^(−x/2) · Σ_{i=1}^{(df−1)/2} x^(i−1/2) / (1·3·…·(2i−1)) · √(2/π)
    root = math.sqrt(x)
    term = root * math.sqrt(2 / math.pi) * math.exp(-half)
    total = 0.0
    for i in range(1, (df + 1) // 2):
        total += term
        term *= x / (2 * i + 1)
    return min(1.0, math.erfc(math.sqrt(half)) + total)


def fairness(counts: Sequence[int]) -> Fairness:
    """The verdict on a D20 from how many times each face came."""
    counts = tuple(counts)
    if len(counts) != FACES:
        raise ValueError(f"a D20 has {FACES} faces, not {len(counts)}")
    rolls = sum(counts)
    if rolls < MINIMUM_ROLLS:
        return Fairness(counts, rolls, None, None, Verdict.NONE)
    statistic = chi_square(counts)
    p_value = chi_square_sf(statistic, FACES - 1)
    if p_value < SUSPICIOUS:
        verdict = Verdict.SUSPICIOUS
    elif p_value < WATCH:
        verdict = Verdict.WATCH
    else:
        verdict = Verdict.FAIR
    return Fairness(counts, rolls, statistic, p_value, verdict)
