"""R34: the clock that stopped at a player's rules roll goes on once it is answered.

The roll (R11's coma hour, R13's waking try) is played as the clock would have played it, then
the clock goes on to where it was going (and may stop again), then the action that moved it
ends as it would have without the stop: a night's recovery, an hour rest's 1D4, a fight's new
round (`DueRoll.then`, kept with the request as data).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from datetime import datetime

from .clock import _ASKED, _HANDLERS, character_due, run_clock
from .dice import DiceSource
from .errors import NotDue
from .fight import new_round
from .outcome import Outcome, Transaction
from .rest import end_hour_rest, end_night
from .state import DEFAULT_RULESET, CampaignState, Ruleset
from .text import moment_text

# What an action that moved the clock does at its end, by `then["action"]`.
ENDINGS: dict[str, Callable[[Transaction, dict], None]] = {
    "night": end_night,
    "hour_rest": end_hour_rest,
    "new_round": new_round,
}


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
    the same `then`), then `then`, the end of the action that moved it, if any."""
    character = campaign.character(key)
    due = character_due(character, ruleset)
    now_fr, now_en = moment_text(campaign.clock)
    if kind not in _ASKED or due != (campaign.clock, kind):
        raise NotDue(
            f"{character.label} n’a plus de jet dû au {now_fr} (R34).",
            f"{character.label} has no roll due at {now_en} any more (R34).",
            rule_id="R34",
        )
    tx = Transaction(campaign, rng, ruleset)
    _HANDLERS[kind](tx, key)
    if not tx.checks:
        raise NotDue(
            f"{character.label} n’a plus de test à lancer au {now_fr} (R34).",
            f"{character.label} has no test to roll at {now_en} any more (R34).",
            rule_id="R34",
        )
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
