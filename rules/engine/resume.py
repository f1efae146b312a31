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

from .clock import ASKED_ROLLS, asked_roll_due, run_clock
from .dice import DiceSource
from .errors import NotDue, StillDue
from .fight import new_round
from .outcome import Draft, Outcome
from .rest import end_hour_rest, end_night
from .state import DEFAULT_RULESET, CampaignState, Ruleset, Vital
from .text import moment_words

# What an action that moved the clock does at its end, by `then["action"]`.
ENDINGS: dict[str, Callable[[Draft, dict], None]] = {
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
    now_fr, now_en = moment_words(campaign.clock)
    if kind not in ASKED_ROLLS or not asked_roll_due(character, kind, campaign.clock, ruleset):
        raise NotDue(
            f"{character.label} n’a plus de jet dû au {now_fr} (R34).",
            f"{character.label} has no roll due at {now_en} any more (R34).",
            rule_id="R34",
        )
    draft = Draft(campaign, rng, ruleset)
    ASKED_ROLLS[kind](draft, key)  # while due, each of them rolls its test (R11, R13)
    _go_on(draft, to, then, defer)
    return draft.outcome()


def _go_on(draft: Draft, to: datetime, then: dict | None, defer: Iterable[str]) -> None:
    """The clock goes on from where it stopped to `to` (it may stop again), then `then`."""
    draft.defer = frozenset(defer)
    target = max(to, draft.state.clock)
    target_fr, target_en = moment_words(target)
    draft.say(
        "R34",
        f"l’horloge reprend jusqu’au {target_fr}",
        f"the clock goes on to {target_en}",
    )
    if run_clock(draft, target, then) and then:
        ENDINGS[then["action"]](draft, then)


def rules_roll_due(
    campaign: CampaignState, key: str, kind: str, ruleset: Ruleset = DEFAULT_RULESET
) -> bool:
    """R34: whether the rules roll a player was asked for (`DueRoll.kind`) is still called for
    at the campaign's clock: R10's Survie while the character is up at 0 PV or less, R31's
    Volonté while up, the clock's R11 and R13 rolls while their situation lasts."""
    character = campaign.character(key)
    if kind == "deaths_door":
        return character.vital is Vital.UP and character.pv <= 0
    if kind == "sleep":
        return character.vital is Vital.UP
    return kind in ASKED_ROLLS and asked_roll_due(character, kind, campaign.clock, ruleset)


def lapse_roll(
    campaign: CampaignState,
    key: str,
    kind: str,
    *,
    rng: random.Random | DiceSource,
    to: datetime | None = None,
    ruleset: Ruleset = DEFAULT_RULESET,
    defer: Iterable[str] = (),
    then: dict | None = None,
) -> Outcome:
    """R34: a rules roll the rules no longer call for lapses (nobody rolls it); a clock that
    stopped at it (`to`: where it was going) goes on from where it stopped, then `then`."""
    if rules_roll_due(campaign, key, kind, ruleset):
        character = campaign.character(key)
        raise StillDue(
            f"{character.label} doit encore lancer ce jet : il ne devient pas caduc (R34).",
            f"{character.label} must still roll this: it does not lapse (R34).",
            rule_id="R34",
        )
    draft = Draft(campaign, rng, ruleset)
    draft.say(
        "R34",
        "le jet demandé n’est plus dû : la demande devient caduque",
        "the roll asked for is no longer due: the request lapses",
        key,
    )
    draft.rule("R34")
    if to is not None:
        _go_on(draft, to, then, defer)
    return draft.outcome()
