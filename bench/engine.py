"""Benchmark of the rules engine: `python bench/engine.py` from the project root.

Prints the time per check, per damage application and per 24-hour clock advance of a
comatose character past the R11 threshold (so each hour makes a Survie test), then, on the
last line, the ratio of a check to a bare `random.randrange(20)` measured in the same run.
"""

from __future__ import annotations

import random
import statistics
import sys
import timeit
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.engine import (  # importable thanks to the path set just above
    CampaignState,
    CharacterState,
    Ruleset,
    Vital,
    advance_clock,
    check,
    take_damage,
)

REPEATS = 7
CLOCK = datetime(2024, 5, 1, 20, 0)
STATS = {"ADR": 1, "PUI": 0, "INS": 0, "PRE": 0, "VAI": 2, "SAV": 0, "ESP": 3}
# Every Survie test passes, so the comatose character lives through all 24 hourly tests.
SURVIVOR = Ruleset(default_difficulty=-100)


def measure(label: str, statement, number: int) -> float:
    times = [t / number for t in timeit.repeat(statement, repeat=REPEATS, number=number)]
    best, median = min(times), statistics.median(times)
    print(f"{label:<44} best {best * 1e6:10.2f} µs   median {median * 1e6:10.2f} µs")
    return best


def main() -> None:
    rng = random.Random(1)
    hero = CharacterState(key="a", pv=10, pv_max=10, flux=6, flux_max=6, stats=STATS, pa=1)
    state = CampaignState(clock=CLOCK, characters=(hero,))
    comatose = CharacterState(
        key="c",
        pv=-3,
        pv_max=10,
        flux=6,
        flux_max=6,
        stats=STATS,
        vital=Vital.COMA,
        next_coma_hour=CLOCK + timedelta(hours=1),
    )
    coma_state = CampaignState(clock=CLOCK, characters=(comatose,))
    day = advance_clock(coma_state, minutes=24 * 60, rng=rng, ruleset=SURVIVOR)
    assert len(day.checks) == 24 and day.character("c").vital is Vital.COMA

    bare = measure("random.randrange(20)", lambda: rng.randrange(20), 200_000)
    one_check = measure(
        "check (Survie, VAI)", lambda: check(state, "a", "VAI", rng=rng, skill="Survie"), 20_000
    )
    measure(
        "take_damage (3, with PA, stays above 0)",
        lambda: take_damage(state, "a", 3, rng=rng),
        20_000,
    )
    measure(
        "advance_clock 24 h, coma with 24 death tests",
        lambda: advance_clock(coma_state, minutes=24 * 60, rng=rng, ruleset=SURVIVOR),
        300,
    )
    print(f"check / randrange(20) ratio (best times): {one_check / bare:.0f}x")


if __name__ == "__main__":
    main()
