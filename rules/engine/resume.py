"""R34: the clock that stopped at a player's rules roll goes on once it is answered.

The roll (R11's coma hour, whose PV loss was applied when the clock stopped; R13's waking
try) is played as the clock would have played it, then the clock goes on to where it was
going (and may stop again), then the action that moved it ends as it would have without the
stop: a night's recovery, an hour rest's 1D4, a fight's new round (`DueRoll.then`, kept with
the request as data, `lapse.ENDINGS`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import datetime

from .clock import _HANDLERS, run_clock
from .dice import DiceSource
from .health import coma_test
from .lapse import ENDINGS, require_due
from .outcome import Outcome, Transaction
from .state import DEFAULT_RULESET, CampaignState, Ruleset
from .text import moment_text

# The roll each stop leaves: R11's hour already lost its PV (R34), so only its test is left.
_ROLLS = {"coma_hour": coma_test, "wake": _HANDLERS["wake"]}

__all__ = ["ENDINGS", "resume_clock"]


def resume_clock(
    campaign: CampaignState,
    key: str,
    kind: str,
    *,
    rng: random.Random | DiceSource,
    to: datetime,
    ruleset: Ruleset = DEFAULT_RULESET,
    defer: Iterable[str] = (),
    then: dict | None = None,
) -> Outcome:
    """R34: the roll the clock stopped at (`kind`, for `key`, at the clock's time), played as
    the clock would have played it, then the clock goes on to `to` (and may stop again, with
    the same `then`), then `then`, the end of the action that moved it, if any. NotDue when
    the rules no longer call for it (`lapse.lapse_reason`: it lapses instead)."""
    roll = _ROLLS[kind]
    require_due(campaign, key, kind, campaign.clock, ruleset)
    tx = Transaction(campaign, rng, ruleset)
    roll(tx, key)
    tx.defer = frozenset(defer)
    target = max(to, campaign.clock)
    target_fr, target_en = moment_text(target)
    tx.say(
        "R34",
        f"l’horloge reprend jusqu’au {target_fr}",
        f"the clock goes on to {target_en}",
    )
    if run_clock(tx, target, then) and then:
        ENDINGS[then["action"]](tx, then)
    return tx.outcome()
