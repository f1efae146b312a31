"""Builders for engine tests: a standard character and campaign, with numbers easy to follow."""

from dataclasses import replace
from datetime import datetime

from rules.engine import (
    DEFAULT_RULESET,
    CampaignState,
    CharacterState,
    Condition,
    ScriptedDice,
    next_turn,
    replay,
    start_fight,
)

EVENING = datetime(2024, 5, 1, 20, 0)  # next morning 2024-05-02 06:00, half-day 06:00/18:00

STATS = {"ADR": 1, "PUI": 0, "INS": 0, "PRE": 0, "VAI": 2, "SAV": 0, "ESP": 3}


def hero(key: str = "a", **changes) -> CharacterState:
    """Aldo: 10/10 PV, 6/6 Flux, VAI 2, ADR 1, ESP 3, no PA."""
    base = CharacterState(
        key=key,
        name="Aldo" if key == "a" else key.capitalize(),
        pv=10,
        pv_max=10,
        flux=6,
        flux_max=6,
        stats=STATS,
    )
    return replace(base, **changes)


def campaign(*characters: CharacterState, clock: datetime = EVENING, **changes) -> CampaignState:
    return CampaignState(clock=clock, characters=characters or (hero(),), **changes)


def party(**conditions):
    """Aria, Brann, Gobelin (2 actions, 1 reflex each); `conditions` = {key: (kind, …)}."""
    return campaign(
        *(
            hero(key, conditions=tuple(Condition(kind) for kind in conditions.get(key, ())))
            for key in ("aria", "brann", "gobelin")
        )
    )


def checked(state, outcome):
    """The outcome, once its changes are proved to replay to its state."""
    assert replay(state, outcome.changes) == outcome.state
    return outcome


def start(state, keys=("aria", "brann", "gobelin"), **options):
    return checked(state, start_fight(state, keys, **options))


def turn(state, ruleset=DEFAULT_RULESET, rng=None):
    return checked(state, next_turn(state, rng=rng or no_dice(), ruleset=ruleset))


def new_round(state, ruleset=DEFAULT_RULESET, rng=None):
    """Turns until the next round starts; the last outcome."""
    rng = rng or no_dice()
    number = state.fight.round
    while True:
        outcome = turn(state, ruleset, rng)
        state = outcome.state
        if state.fight.round > number:
            return outcome


def budgets(state):
    fight = state.fight
    return dict(
        zip(fight.order, zip(fight.actions_left, fight.reflexes_left, strict=True), strict=True)
    )


def no_dice():
    """A dice source that fails if it is ever asked for a die: the fight rolls nothing."""
    return ScriptedDice([])
