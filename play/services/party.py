"""The whole party: the clock, the scene, rests (R10–R13, R17–R19, R30–R32)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from campaign.models import Campaign
from characters import state as rows_state
from play.services.runner import Result, Table, locked_rows, on_party
from rules import engine

# ---------------------------------------------------------------------------------------------
# The whole party: the clock, the scene, rests (R10–R13, R17–R19, R30–R32)


def clock_advance(
    *,
    campaign_id: int,
    actor,
    minutes: float | None = None,
    to_morning: bool = False,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
    ask_players: bool | None = None,
) -> Result:
    """R32: by `minutes`, or to the next morning, with everything due on the way. R34: it
    stops at the first R11/R13 roll due for a player character when their players roll
    (`ask_players`, None for the campaign's setting), and waits while one is awaited."""

    def operation(t: Table) -> engine.Outcome:
        if to_morning:
            return engine.advance_to_morning(t.state, rng=t.rng, ruleset=t.ruleset, defer=t.defer)
        return engine.advance_clock(
            t.state, rng=t.rng, minutes=minutes, ruleset=t.ruleset, defer=t.defer
        )

    return on_party(
        campaign_id,
        "clock",
        operation,
        actor=actor,
        dice=dice,
        visibility=visibility,
        ask_players=ask_players,
        holds_clock=True,
    )


def scene_end(*, campaign_id: int, actor, visibility: str | None = None) -> Result:
    return on_party(
        campaign_id,
        "end_scene",
        lambda t: engine.end_scene(t.state, ruleset=t.ruleset),
        actor=actor,
        visibility=visibility,
        holds_clock=True,
    )


def party_night_rest(
    *,
    campaign_id: int,
    actor,
    hours: float,
    poor_quality: bool = False,
    sleeper_ids: Iterable[int] | None = None,
    clinic_ids: Iterable[int] = (),
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
    ask_players: bool | None = None,
) -> Result:
    """A night (R17, R19, R28, R31); `sleeper_ids` None or empty: every conscious character.
    R34: a short night's Volonté may be asked of the players (`ask_players`)."""
    keys = [str(pk) for pk in sleeper_ids or ()] or None
    clinic_keys = [str(pk) for pk in clinic_ids]
    return on_party(
        campaign_id,
        "night",
        lambda t: engine.night_rest(
            t.state,
            hours=float(hours),
            rng=t.rng,
            keys=keys,
            poor_quality=poor_quality,
            clinic_keys=clinic_keys,
            ruleset=t.ruleset,
            defer=t.defer,
        ),
        actor=actor,
        dice=dice,
        visibility=visibility,
        ask_players=ask_players,
        holds_clock=True,
    )


def party_hour_rest(
    *,
    campaign_id: int,
    actor,
    gm_override: bool = False,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
    ask_players: bool | None = None,
) -> Result:
    """R18 step 1: the group's 1D4, within the half-day limit unless the GM overrides it.
    R34: a player's roll due in that hour stops the clock there (`ask_players`, None for the
    campaign's setting); the 1D4 comes once it is answered."""
    return on_party(
        campaign_id,
        "hour_rest",
        lambda t: engine.hour_rest(
            t.state, rng=t.rng, gm_override=gm_override, ruleset=t.ruleset, defer=t.defer
        ),
        actor=actor,
        dice=dice,
        visibility=visibility,
        ask_players=ask_players,
        holds_clock=True,
    )


def hour_rest_share(
    *,
    campaign_id: int,
    actor,
    splits: Mapping[int, tuple[int, int]],
    visibility: str | None = None,
) -> Result:
    """R18 step 2: {character id: (PV, Flux)}, each adding up to the group's roll."""
    by_key = {str(pk): tuple(split) for pk, split in splits.items()}
    return on_party(
        campaign_id,
        "share_hour_rest",
        lambda t: engine.share_hour_rest(t.state, splits=by_key, ruleset=t.ruleset),
        actor=actor,
        visibility=visibility,
    )


# ---------------------------------------------------------------------------------------------
# Before the clock moves: what it would roll (R32 with R11, R13, R31), exact odds


def _forecast_clock(state, ruleset, *, minutes=None, to_morning=False, keys=None):
    return engine.forecast_clock(
        state, minutes=minutes, to_morning=to_morning, ruleset=ruleset, keys=keys
    )


def _forecast_night(state, ruleset, *, hours, poor_quality=False, sleeper_ids=(), clinic_ids=()):
    return engine.forecast_night(
        state,
        hours=float(hours),
        keys=[str(pk) for pk in sleeper_ids or ()] or None,
        poor_quality=poor_quality,
        clinic_keys=[str(pk) for pk in clinic_ids],
        ruleset=ruleset,
    )


def _forecast_hour_rest(state, ruleset, *, gm_override=False):
    return engine.forecast_hour_rest(state, gm_override=gm_override, ruleset=ruleset)


# The actions that move the clock, with the same arguments as their services.
FORECASTS = {
    "clock": _forecast_clock,
    "night": _forecast_night,
    "hour_rest": _forecast_hour_rest,
}


def clock_risks(*, campaign: Campaign, **arguments) -> tuple[engine.Forecast, ...]:
    """`clock_forecast` of the clock alone, for the characters who may die on the way (R11):
    the party bar's quick buttons, drawn often, weigh no one else."""
    rows = locked_rows(campaign, lock=False)
    state = rows_state.campaign_state(campaign, rows.values())
    keys = [c.key for c in state.characters if engine.may_die_on_the_clock(c)]
    if not keys:
        return ()
    return _forecast_clock(state, rows_state.ruleset_for(campaign), keys=keys, **arguments)


def clock_forecast(*, campaign: Campaign, action: str, **arguments) -> tuple[engine.Forecast, ...]:
    """What `action` (the clock, a night, an hour's rest, with its service's arguments: the
    form's `arguments()`) would roll for each character, and the exact chance of the worst
    (`engine.forecast`). A read: nothing is locked or written; the engine's refusal
    (`RuleError`) goes up as the service would raise it."""
    rows = locked_rows(campaign, lock=False)
    state = rows_state.campaign_state(campaign, rows.values())
    return FORECASTS[action](state, rows_state.ruleset_for(campaign), **arguments)
