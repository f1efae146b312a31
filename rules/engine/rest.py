"""Rest (R17–R19) and sleep deprivation (R31)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from datetime import timedelta

from .checks import VOLONTE, require_alive, roll_check
from .clock import run_clock
from .conditions import drop_conditions, put_condition
from .dice import D4, DiceSource
from .errors import (
    HourRestLimitReached,
    HourRestPending,
    InvalidAmount,
    InvalidHourRestSplit,
    NoPendingHourRest,
    NotConscious,
    NotDue,
)
from .health import HOUR, capped, set_flux, set_pv
from .outcome import Draft, Outcome
from .state import (
    CAUSE_SLEEP,
    DEFAULT_RULESET,
    CampaignState,
    Condition,
    ConditionKind,
    Ruleset,
    Severity,
    Vital,
)
from .text import count_en, count_fr, hours_text, moment_words, number_fr
from .words import agree

FULL_NIGHT_GAIN = 4  # R17
SHORT_NIGHT_GAIN = 2  # R17
# R28: what a night can give at most, per illness severity.
NIGHT_CAP = {
    Severity.MILD: FULL_NIGHT_GAIN,
    Severity.ILL: 2,
    Severity.SEVERE: 1,
    Severity.CRITICAL: 0,
}


def night_rest(
    campaign: CampaignState,
    *,
    hours: float,
    rng: random.Random | DiceSource,
    keys: Iterable[str] | None = None,
    poor_quality: bool = False,
    clinic_keys: Iterable[str] = (),
    ruleset: Ruleset = DEFAULT_RULESET,
    defer: Iterable[str] = (),
) -> Outcome:
    """A night of `hours` for `keys` (default: every conscious character above 0 PV).
    R34: the rules rolls of `defer`'s characters are left to their players (`Outcome.due`):
    one due in the night's hours stops the clock there, and the night ends (`end_night`)
    once it is answered; a short night's Volonté is asked at its end.

    The clock advances by the night's length first (R17), applying what falls due (R32);
    then each sleeper recovers 4/4, or 2/2 for a short or poor night (R17), capped by the
    illness they went to bed with (R28), plus 1D4 PV in a clinic (R19, on top of the cap).
    A night shorter than `proper_night_hours` asks a Volonté (VAI) test (R31); a proper night
    ends sleep deprivation and Exténué from lack of sleep.
    """
    if hours <= 0:
        raise InvalidAmount("Une nuit dure plus de 0 heure.", "A night lasts more than 0 hours.")
    clinic = tuple(clinic_keys)
    base = (
        tuple(keys)
        if keys is not None
        else tuple(c.key for c in campaign.characters if c.vital is Vital.UP)
    )
    sleepers = tuple(dict.fromkeys((*base, *clinic)))
    for key in sleepers:
        character = campaign.character(key)
        require_alive(character)
        if character.vital is not Vital.UP:
            raise NotConscious(
                agree(
                    f"{character.label} ne peut pas se reposer : il faut être éveillé·e (PV > 0).",
                    character.gender,
                ),
                f"{character.label} cannot rest: they must be awake (PV > 0).",
            )
    draft = Draft(campaign, rng, ruleset)
    draft.defer = frozenset(defer)
    quality_fr, quality_en = (" (sommeil médiocre)", " (poor sleep)") if poor_quality else ("", "")
    length_fr, length_en = hours_text(hours)
    draft.say("R17", f"nuit de {length_fr}{quality_fr}", f"{length_en} night{quality_en}")
    # What the night does once its hours have passed; kept as data, for R34: a player's roll
    # due in the night stops the clock there, and the night ends once it is answered.
    night = {
        "action": "night",
        "hours": hours,
        "sleepers": list(sleepers),
        "clinic": list(clinic),
        "poor_quality": poor_quality,
        "bedtime": {
            key: None
            if campaign.character(key).illness is None
            else int(campaign.character(key).illness.severity)
            for key in sleepers
        },
    }
    if run_clock(draft, campaign.clock + timedelta(hours=hours), then=night):
        end_night(draft, night)
    else:
        draft.say(
            "R34",
            "nuit suspendue : elle reprendra une fois le jet lancé, et rendra PV et Flux à son "
            "terme",
            "night paused: it goes on once the roll is made, and gives PV and Flux at its end",
        )
    return draft.outcome()


def end_night(draft: Draft, night: dict) -> None:
    """The end of a night `night_rest` described: each sleeper's recovery (R17), capped by the
    illness they went to bed with (R28), the clinic's 1D4 (R19), then the Volonté test of a
    short night (R31, left to the player for `draft.defer`) or the end of sleep deprivation.
    A sleeper who no longer rests (the GM brought them down while the clock waited, R34)
    gets nothing from it."""
    ruleset = draft.ruleset
    hours, poor_quality = night["hours"], night["poor_quality"]
    clinic = night["clinic"]
    full = hours >= ruleset.proper_night_hours
    proper = full and (not poor_quality or ruleset.poor_night_is_proper)
    gain = FULL_NIGHT_GAIN if full and not poor_quality else SHORT_NIGHT_GAIN
    for key in night["sleepers"]:
        if draft.char(key).vital is not Vital.UP:
            draft.say(
                "R17",
                "n’est plus en état de se reposer : la nuit ne lui rend rien",
                "can no longer rest: the night gives them nothing",
                key,
            )
            continue
        severity = night["bedtime"][key]
        night_gain = gain if severity is None else min(gain, NIGHT_CAP[Severity(severity)])
        rule = "R17" if severity is None else "R28"
        extra = 0
        if key in clinic:
            clinic_roll = draft.roll(D4, key=key, rule_id="R19", purpose="clinic")
            draft.roll_line(clinic_roll, "Clinique : PV en plus", "Clinic: extra PV")
            extra = clinic_roll.total
        character = draft.char(key)
        pv = capped(character.pv, night_gain + extra, character.pv_max)
        flux = capped(character.flux, night_gain, character.flux_max)
        plus = f" + {extra}" if extra else ""
        draft.say(
            rule,
            f"la nuit rend {night_gain} PV{plus} et {night_gain} Flux : "
            f"PV {number_fr(character.pv)} → {number_fr(pv)}, Flux {character.flux} → {flux}",
            f"the night gives {night_gain} PV{plus} and {night_gain} Flux: "
            f"PV {character.pv} → {pv}, Flux {character.flux} → {flux}",
            key,
        )
        set_pv(draft, key, pv, rule)
        set_flux(draft, key, flux, rule)
        if not full:
            if not draft.leave_to_player(
                "sleep", "R31", key, "Volonté (VAI) après une nuit écourtée", "Willpower (VAI)"
            ):
                _sleep_test(draft, key)
        elif proper:
            draft.set(key, "sleep_deprived", False, "R31")
            drop_conditions(draft, key, ConditionKind.EXTENUE, CAUSE_SLEEP, "R31")


def _sleep_test(draft: Draft, key: str) -> None:
    """R31: after a partial night, Volonté (VAI): success −2 to all tests, failure Exténué."""
    if roll_check(draft, key, "VAI", skill=VOLONTE, difficulty=None, rule_id="R31").success:
        draft.set(key, "sleep_deprived", True, "R31")
        draft.say(
            "R31",
            "privé·e de sommeil : −2 à tous les tests jusqu’à une vraie nuit",
            "sleep-deprived: −2 to all tests until a proper night",
            key,
        )
    else:
        put_condition(draft, key, Condition(ConditionKind.EXTENUE, CAUSE_SLEEP), "R31")


def sleep_test(
    campaign: CampaignState,
    key: str,
    *,
    rng: random.Random | DiceSource,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """R31's Volonté left to the player after a partial night (R34), rolled now."""
    character = campaign.character(key)
    if character.vital is not Vital.UP:
        raise NotDue(
            f"{character.label} n’est plus en état de faire le test de Volonté (R31).",
            f"{character.label} can no longer make the Willpower test (R31).",
            rule_id="R31",
        )
    draft = Draft(campaign, rng, ruleset)
    _sleep_test(draft, key)
    return draft.outcome()


def partial_night(
    campaign: CampaignState,
    *,
    hours: float,
    rng: random.Random | DiceSource,
    keys: Iterable[str] | None = None,
    poor_quality: bool = False,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """A night shorter than a proper one (R31); otherwise exactly `night_rest`."""
    if hours >= ruleset.proper_night_hours:
        raise InvalidAmount(
            f"Une nuit partielle dure moins de {hours_text(ruleset.proper_night_hours)[0]}.",
            f"A partial night lasts less than {hours_text(ruleset.proper_night_hours)[1]}.",
        )
    return night_rest(
        campaign, hours=hours, rng=rng, keys=keys, poor_quality=poor_quality, ruleset=ruleset
    )


def clinic_night(
    campaign: CampaignState,
    *,
    keys: Iterable[str],
    hours: float,
    rng: random.Random | DiceSource,
    poor_quality: bool = False,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """A night in a clinic for `keys` (R19): the night's rest plus 1D4 PV each."""
    keys = tuple(keys)
    return night_rest(
        campaign,
        hours=hours,
        rng=rng,
        keys=keys,
        clinic_keys=keys,
        poor_quality=poor_quality,
        ruleset=ruleset,
    )


def hour_rest(
    campaign: CampaignState,
    *,
    rng: random.Random | DiceSource,
    gm_override: bool = False,
    ruleset: Ruleset = DEFAULT_RULESET,
    defer: Iterable[str] = (),
) -> Outcome:
    """R18 step 1: the group rests an hour, then rolls its 1D4 (kept as `pending_hour_rest`
    until it is shared). R34: a roll due in that hour for a character of `defer` stops the
    clock there; the 1D4 comes once it is answered (`end_hour_rest`).

    The clock moves one hour, applying everything due in it (R32): borrowed time running out,
    coma hours, waking tries… The 1D4 is rolled at the end of that hour, after those rolls.
    The limit per half-day is `Ruleset.hour_rests_per_half_day`, counted in the half-day the
    rest starts in; `gm_override` lets the GM go past it, and the change is marked `by_gm`.
    """
    if campaign.pending_hour_rest is not None:
        raise HourRestPending(
            f"Le repos précédent ({campaign.pending_hour_rest}) n’a pas encore été réparti.",
            f"The previous rest ({campaign.pending_hour_rest}) has not been shared yet.",
        )
    over = campaign.hour_rests_used >= ruleset.hour_rests_per_half_day
    if over and not gm_override:
        raise HourRestLimitReached(
            f"Déjà {campaign.hour_rests_used} repos d’une heure cette demi-journée "
            f"(limite {ruleset.hour_rests_per_half_day}) ; le MJ peut passer outre.",
            f"Already {count_en(campaign.hour_rests_used, 'hour rest', 'hour rests')} "
            "this half-day "
            f"(limit {ruleset.hour_rests_per_half_day}); the GM may override.",
        )
    draft = Draft(campaign, rng, ruleset)
    if over:
        draft.say(
            "R18", "le MJ accorde un repos au-delà de la limite", "the GM allows an extra rest"
        )
    # Counted before the hour passes: a rest begun at 17:30 is the afternoon's one, and the
    # 18:00 reset on the way leaves the evening's count at 0.
    draft.set_campaign("hour_rests_used", campaign.hour_rests_used + 1, "R18", by_gm=over)
    # The clock moves here, at the roll, not at the share: the roll is when the group rests,
    # and the share is only how each spends the points, whenever the players settle it.
    end = campaign.clock + HOUR
    end_fr, end_en = moment_words(end)
    draft.say(
        "R18",
        f"le groupe se repose une heure, jusqu’au {end_fr}",
        f"the group rests for an hour, until {end_en}",
    )
    draft.defer = frozenset(defer)
    if run_clock(draft, end, then=HOUR_REST_END):
        end_hour_rest(draft, HOUR_REST_END)
    else:
        draft.say(
            "R34",
            "repos suspendu : le 1D4 du groupe viendra une fois le jet lancé",
            "the rest pauses: the group's 1D4 comes once the roll is made",
        )
    return draft.outcome()


# R34: what an hour rest still does once its hour has passed (`end_hour_rest`).
HOUR_REST_END = {"action": "hour_rest"}


def end_hour_rest(draft: Draft, then: dict) -> None:
    """R18: the group's 1D4 at the end of its hour, after what fell due in it."""
    result = draft.roll(D4, key=None, rule_id="R18", purpose="hour_rest")
    draft.roll_line(result, "Repos d’une heure (groupe)", "Hour rest (group)")
    draft.set_campaign("pending_hour_rest", result.total, "R18")


def share_hour_rest(
    campaign: CampaignState,
    *,
    splits: Mapping[str, tuple[int, int]],
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """R18 step 2: each character's (PV, Flux) share of the roll; points past a max are lost."""
    points = campaign.pending_hour_rest
    if points is None:
        raise NoPendingHourRest(
            "Aucun repos d’une heure n’a été lancé.", "No hour rest has been rolled."
        )
    for key, (pv, flux) in splits.items():
        character = campaign.character(key)
        require_alive(character)
        if pv < 0 or flux < 0 or pv + flux != points:
            raise InvalidHourRestSplit(
                f"{character.label} : {pv} PV + {flux} Flux ≠ {points} (le jet du groupe).",
                f"{character.label}: {pv} PV + {flux} Flux ≠ {points} (the group's roll).",
            )
    draft = Draft(campaign, None, ruleset)
    for key, (pv, flux) in splits.items():
        character = draft.char(key)
        new_pv = capped(character.pv, pv, character.pv_max)
        new_flux = capped(character.flux, flux, character.flux_max)
        lost = pv + flux - (new_pv - character.pv) - (new_flux - character.flux)
        # The points lost beyond the maxima are said only when some were.
        lost_fr = f" ({count_fr(lost, 'point perdu', 'points perdus')} au-delà du max)"
        lost_en = f" ({lost} lost beyond the max)"
        draft.say(
            "R18",
            f"{pv} PV + {flux} Flux : PV {number_fr(character.pv)} → {number_fr(new_pv)}, "
            f"Flux {character.flux} → {new_flux}{lost_fr if lost else ''}",
            f"{pv} PV + {flux} Flux: PV {character.pv} → {new_pv}, "
            f"Flux {character.flux} → {new_flux}{lost_en if lost else ''}",
            key,
        )
        set_pv(draft, key, new_pv, "R18")
        set_flux(draft, key, new_flux, "R18")
    draft.set_campaign("pending_hour_rest", None, "R18")
    return draft.outcome()
