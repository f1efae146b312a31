"""The game clock (R32): moving it applies, in order, everything that falls due on the way."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime, timedelta

from .checks import first_test_odds
from .dice import DiceSource
from .errors import InvalidClockMove
from .health import (
    HOUR,
    beyond_threshold,
    coma_hour,
    coma_hour_loss,
    coma_hour_test,
    fall_into_coma,
    wake_anchor,
    wake_try,
)
from .outcome import Draft, DueRoll, Outcome
from .state import DEFAULT_RULESET, CampaignState, CharacterState, Ruleset, Vital
from .text import SEVERITY_TEXT, count_en, count_fr, moment_text, moment_words

DAY = timedelta(days=1)


def _daily(start: datetime, end: datetime, hour: int) -> list[datetime]:
    """Every `hour`:00 with start < t <= end."""
    moment = start.replace(hour=hour, minute=0, second=0, microsecond=0)
    if moment <= start:
        moment += DAY
    times = []
    while moment <= end:
        times.append(moment)
        moment += DAY
    return times


def next_morning(moment: datetime, ruleset: Ruleset = DEFAULT_RULESET) -> datetime:
    """The first morning (R30, `Ruleset.morning_hour`) strictly after `moment`."""
    return _daily(moment, moment + DAY, ruleset.morning_hour)[0]


def half_day_starts(ruleset: Ruleset = DEFAULT_RULESET) -> tuple[int, int]:
    """R18: half-days start at the morning hour and twelve hours later."""
    return ruleset.morning_hour, (ruleset.morning_hour + 12) % 24


def character_due(character: CharacterState, ruleset: Ruleset) -> tuple[datetime, str] | None:
    """The one timer a character can have running, as (when, kind), or None."""
    vital = character.vital
    if vital is Vital.BORROWED_TIME and character.coma_due:
        return character.coma_due, "coma_due"
    if vital is Vital.COMA and character.next_coma_hour:
        return character.next_coma_hour, "coma_hour"
    anchor = wake_anchor(character)
    if vital is Vital.STABILISED and ruleset.automatic_wake_tries and anchor:
        return anchor + HOUR, "wake"
    return None


def _half_day(draft: Draft, key: str | None) -> None:
    draft.set_campaign("hour_rests_used", 0, "R18")


def _morning(draft: Draft, key: str | None) -> None:
    for character in draft.state.characters:
        illness = character.illness
        if illness is None or character.vital is Vital.DEAD:
            continue
        fr, en = SEVERITY_TEXT[illness.severity]
        if illness.days_left <= 0:
            draft.set(character.key, "illness", None, "R30")
            draft.say("R30", f"n’est plus {fr}", f"is no longer {en}", character.key)
        else:
            left = illness.days_left - 1
            draft.set(character.key, "illness", replace(illness, days_left=left), "R30")
            if left:
                said = (
                    f"{fr} : encore {count_fr(left, 'jour', 'jours')} après ce matin",
                    f"{en}: {count_en(left, 'more day', 'more days')} after this morning",
                )
            else:  # the illness still holds today: it ends the next morning, not "0 day"
                said = (
                    f"{fr} : dernier jour, la maladie prend fin demain matin",
                    f"{en}: last day, the illness ends tomorrow morning",
                )
            draft.say("R30", *said, character.key)


def _coma_due(draft: Draft, key: str | None) -> None:
    draft.say("R10", "le sursis est écoulé", "borrowed time has run out", key)
    fall_into_coma(draft, str(key), "R10")


def _coma_hour(draft: Draft, key: str | None) -> None:
    coma_hour(draft, str(key))


def _wake(draft: Draft, key: str | None) -> None:
    wake_try(draft, str(key), cause="", difficulty=None, modifiers=())


# R32: what falls due at one moment applies in this order: the campaign's events (the morning
# before anything a character rolls, so an illness ending that morning gives no malus), then
# every character's R10, then every R11, then every R13, characters in state order within each.
HANDLERS: dict[str, Callable[[Draft, str | None], None]] = {
    "half_day": _half_day,
    "morning": _morning,
    "coma_due": _coma_due,
    "coma_hour": _coma_hour,
    "wake": _wake,
}
_ORDER = {kind: rank for rank, kind in enumerate(HANDLERS)}


def _coma_hour_test(draft: Draft, key: str | None) -> None:
    coma_hour_test(draft, str(key))


# R34: the clock's rolls a player may be asked for, by timer, and the roll itself: R11's
# hourly Survie (the hour's PV loss is applied before the clock stops, so only the test waits)
# and R13's waking try.
ASKED_ROLLS: dict[str, Callable[[Draft, str | None], None]] = {
    "coma_hour": _coma_hour_test,
    "wake": _wake,
}


def asked_roll_due(character: CharacterState, kind: str, at: datetime, ruleset: Ruleset) -> bool:
    """R34: whether the roll the clock stopped at, at `at`, is still what the rules call for:
    R11's test while the character is still in a coma past the threshold with that hour's PV
    already lost; R13's try while the stabilised character's try still falls due then."""
    if kind == "coma_hour":
        return beyond_threshold(character, ruleset) and character.next_coma_hour == at + HOUR
    return kind == "wake" and character_due(character, ruleset) == (at, "wake")


def _would_roll(draft: Draft, kind: str, key: str, when: datetime) -> str | None:
    """The rule id of the test `kind` would roll for `key` at `when`, or None (an hour of
    coma short of R11's threshold rolls nothing): the roll itself, weighed, not played."""

    def run(rng) -> None:
        probe = Draft(draft.state, rng, draft.ruleset)
        probe.now = when
        ASKED_ROLLS[kind](probe, key)

    odds = first_test_odds(run)
    return odds.plan.rule_id if odds is not None else None


def _stop(
    draft: Draft, kind: str, rule_id: str, key: str, target: datetime, then: dict | None
) -> None:
    """R34: the clock stops where a player's rules roll falls due; it goes on once answered."""
    draft.due.append(DueRoll(kind, rule_id, key, draft.now, target, then))
    now_fr, now_en = moment_words(draft.now)
    draft.say(
        "R34",
        f"l’horloge s’arrête au {now_fr} : jet ({rule_id}) demandé au joueur ou à la joueuse",
        f"the clock stops at {now_en}: roll ({rule_id}) asked of the player",
        key,
    )
    draft.rule(rule_id)
    draft.set_campaign("clock", draft.now, "R32")


def _hold_wake_tries(draft: Draft) -> None:
    """R13/R32: time that passed with the automatic tries off owes no try, even once they are
    back on; they count from where the clock is now."""
    for character in draft.state.characters:
        anchor = wake_anchor(character)
        if character.vital is Vital.STABILISED and anchor and anchor < draft.now:
            draft.set(character.key, "wake_tries_from", draft.now, "R13")
            draft.say(
                "R13",
                "essais de réveil automatiques désactivés : le temps écoulé ne donnera "
                "aucun essai, même s’ils sont réactivés",
                "automatic waking tries are off: the time that passed gives no try, "
                "even if they are turned back on",
                character.key,
            )


def run_clock(draft: Draft, target: datetime, then: dict | None = None) -> bool:
    """Move `draft` to `target`, applying every due event in time order; False when it stopped
    short (R34: a rules roll due for a character of `draft.defer`, noted in `draft.due` with
    `then`, what the caller still does once the clock gets there).

    Campaign events (half-day, morning) are those after the start and up to the target, so a
    moment the clock reaches exactly is passed; a character's overdue timer (before the start)
    is applied at its own time, so the log tells when it fell due. Same-moment order: HANDLERS.
    """
    start = draft.now
    campaign_events = [
        (t, kind)
        for kind, hours in (
            ("half_day", half_day_starts(draft.ruleset)),
            ("morning", (draft.ruleset.morning_hour,)),
        )
        for hour in hours
        for t in _daily(start, target, hour)
    ]
    fixed = sorted((t, _ORDER[kind], 0, kind) for t, kind in campaign_events)
    index = 0
    while True:
        best: tuple[datetime, int, int, str, str | None] | None = None
        if index < len(fixed):
            best = (*fixed[index], None)
        for position, character in enumerate(draft.state.characters):
            due = character_due(character, draft.ruleset)
            if due is None or due[0] > target:
                continue
            candidate = (due[0], _ORDER[due[1]], position, due[1], character.key)
            if best is None or candidate[:3] < best[:3]:
                best = candidate
        if best is None:
            break
        when, _, _, kind, key = best
        index += key is None
        draft.now = when
        if key in draft.defer and kind in ASKED_ROLLS:
            if kind == "coma_hour":
                coma_hour_loss(draft, key)
            rule_id = _would_roll(draft, kind, key, when)
            if rule_id is not None:
                _stop(draft, kind, rule_id, key, target, then)
                return False
            ASKED_ROLLS[kind](draft, key)  # rolls nothing: R11 short of its threshold
            continue
        HANDLERS[kind](draft, key)
    draft.now = target
    if not draft.ruleset.automatic_wake_tries:
        _hold_wake_tries(draft)
    draft.set_campaign("clock", target, "R32")
    return True


def advance_clock(
    campaign: CampaignState,
    *,
    rng: random.Random | DiceSource,
    minutes: float | None = None,
    to: datetime | None = None,
    ruleset: Ruleset = DEFAULT_RULESET,
    defer: Iterable[str] = (),
) -> Outcome:
    """R32: advance by `minutes` or to the time `to`, applying everything due on the way:
    borrowed time running out (R10), coma hours (R11), automatic waking tries (R13),
    the half-day reset of hour rests (R18) and each morning's illness countdown (R30).
    With the automatic tries off, the time passed is recorded as owing none (R13).
    R34: the clock stops at the first R11 or R13 roll due for a character of `defer`
    (`Outcome.due` says which); `resume_clock` rolls it and goes on."""
    if (minutes is None) == (to is None):
        raise InvalidClockMove(
            "Indiquez soit une durée, soit une heure d’arrivée.",
            "Give either a duration or a target time.",
        )
    target = campaign.clock + timedelta(minutes=minutes) if to is None else to
    (start_fr, start_en), (target_fr, target_en) = moment_text(campaign.clock), moment_text(target)
    if target < campaign.clock:
        raise InvalidClockMove(
            f"L’horloge ne recule pas ({start_fr} → {target_fr}).",
            f"The clock does not go back ({start_en} → {target_en}).",
        )
    draft = Draft(campaign, rng, ruleset)
    draft.defer = frozenset(defer)
    (start_fr, _), (target_fr, _) = moment_words(campaign.clock), moment_words(target)
    draft.say(
        "R32",
        f"l’horloge avance du {start_fr} au {target_fr}",
        f"the clock moves from {start_en} to {target_en}",
    )
    run_clock(draft, target)
    return draft.outcome()


def advance_to_morning(
    campaign: CampaignState,
    *,
    rng: random.Random | DiceSource,
    ruleset: Ruleset = DEFAULT_RULESET,
    defer: Iterable[str] = (),
) -> Outcome:
    """R32 "to the next morning"."""
    return advance_clock(
        campaign, rng=rng, to=next_morning(campaign.clock, ruleset), ruleset=ruleset, defer=defer
    )
