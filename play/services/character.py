"""One character: health, Flux, tests, conditions (R1, R3, R5–R16, R20–R29), and the rolls
(`Roll`) their services play and R34's requests answer.
"""

from __future__ import annotations

from collections.abc import Iterable

from play.models import RequestKind
from play.services.runner import Result, Roll, gm_modifiers, on_character, run_roll
from rules import engine

# ---------------------------------------------------------------------------------------------
# One character: health, Flux, tests, conditions (R1, R3, R5–R16, R20–R29)


def character_damage(
    *,
    character_id: int,
    actor,
    amount: int,
    ignores_pa: bool = False,
    cause: str = "",
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
    proposed_by: str = "",
    ask_players: bool | None = None,
) -> Result:
    """Damage minus PA (R3); at 0 PV or less a Survie test (R10), which may roll, or be
    asked of the player (R34: `ask_players`, None for the campaign's setting).
    `proposed_by`: the player whose proposal the actor approves (play/proposals.py)."""
    roll = damage_roll(character_id, amount=amount, ignores_pa=ignores_pa, cause=cause)
    return run_roll(
        roll,
        actor=actor,
        dice=dice,
        visibility=visibility,
        proposed_by=proposed_by,
        ask_players=ask_players,
    )


def damage_roll(character_id: int, *, amount: int, ignores_pa=False, cause="") -> Roll:
    key = str(character_id)
    return Roll(
        "damage",
        lambda t: engine.take_damage(
            t.state,
            key,
            amount,
            rng=t.rng,
            ignores_pa=ignores_pa,
            cause=cause,
            ruleset=t.ruleset,
            defer=t.defer,
        ),
        [character_id],
    )


def _amount_roll(action: str, engine_function):
    """heal, spend_flux and restore_flux differ only in the engine function and action name."""

    def roll(character_id: int, *, amount: int) -> Roll:
        key = str(character_id)
        return Roll(
            action,
            lambda t: engine_function(t.state, key, amount, ruleset=t.ruleset),
            [character_id],
        )

    return roll


heal_roll = _amount_roll("heal", engine.heal)
flux_spend_roll = _amount_roll("spend_flux", engine.spend_flux)
flux_restore_roll = _amount_roll("restore_flux", engine.restore_flux)


def _amount_service(name: str, make_roll):
    def service(
        *,
        character_id: int,
        actor,
        amount: int,
        visibility: str | None = None,
        proposed_by: str = "",
    ) -> Result:
        return run_roll(
            make_roll(character_id, amount=amount),
            actor=actor,
            visibility=visibility,
            proposed_by=proposed_by,
        )

    service.__name__ = service.__qualname__ = name
    return service


character_heal = _amount_service("character_heal", heal_roll)
flux_spend = _amount_service("flux_spend", flux_spend_roll)
flux_restore = _amount_service("flux_restore", flux_restore_roll)


def character_check(
    *,
    character_id: int,
    actor,
    stat: str,
    skill: str | None = None,
    difficulty: int | None = None,
    modifier: int = 0,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    """A test (R5–R8): D20 + stat + modifiers against the difficulty (the campaign's when
    None); `modifier` is the GM's own."""
    roll = check_roll(
        character_id, stat=stat, skill=skill, difficulty=difficulty, modifier=modifier
    )
    return run_roll(roll, actor=actor, dice=dice, visibility=visibility)


def check_roll(character_id: int, *, stat: str, skill=None, difficulty=None, modifier=0) -> Roll:
    key = str(character_id)
    return Roll(
        "check",
        lambda t: engine.check(
            t.state,
            key,
            stat,
            rng=t.rng,
            skill=skill or None,
            difficulty=difficulty,
            modifiers=gm_modifiers(modifier),
            ruleset=t.ruleset,
        ),
        [character_id],
    )


def condition_add(
    *,
    character_id: int,
    actor,
    kind: str,
    visibility: str | None = None,
    proposed_by: str = "",
) -> Result:
    return run_roll(
        condition_add_roll(character_id, kind=kind),
        actor=actor,
        visibility=visibility,
        proposed_by=proposed_by,
    )


def condition_add_roll(character_id: int, *, kind: str) -> Roll:
    key, condition = str(character_id), engine.ConditionKind(kind)
    return Roll(
        "add_condition",
        lambda t: engine.add_condition(t.state, key, condition, ruleset=t.ruleset),
        [character_id],
    )


def condition_remove(
    *, character_id: int, actor, kind: str, visibility: str | None = None
) -> Result:
    key, condition = str(character_id), engine.ConditionKind(kind)
    return on_character(
        character_id,
        "remove_condition",
        lambda t: engine.remove_condition(t.state, key, condition, ruleset=t.ruleset),
        actor=actor,
        visibility=visibility,
    )


def character_fall(
    *,
    character_id: int,
    actor,
    storeys: int = 0,
    in_motion: bool = False,
    surface: str = engine.Surface.NORMAL,
    soften: str = engine.Soften.NONE,
    cause: str = "",
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    """A fall (R27); an empty `cause` keeps the engine's own ("chute")."""
    roll = fall_roll(
        character_id,
        storeys=storeys,
        in_motion=in_motion,
        surface=surface,
        soften=soften,
        cause=cause,
    )
    return run_roll(roll, actor=actor, dice=dice, visibility=visibility)


def fall_roll(
    character_id: int,
    *,
    storeys=0,
    in_motion=False,
    surface=engine.Surface.NORMAL,
    soften=engine.Soften.NONE,
    cause="",
) -> Roll:
    key = str(character_id)
    extra = {"cause": cause} if cause else {}
    return Roll(
        "fall",
        lambda t: engine.fall(
            t.state,
            key,
            storeys=storeys,
            in_motion=in_motion,
            surface=engine.Surface(surface),
            soften=engine.Soften(soften),
            rng=t.rng,
            ruleset=t.ruleset,
            **extra,
        ),
        [character_id],
    )


def fall_ill_roll(character_id: int, *, severity: int, name="") -> Roll:
    key = str(character_id)
    return Roll(
        "fall_ill",
        lambda t: engine.fall_ill(
            t.state,
            key,
            severity=engine.Severity(severity),
            name=name,
            rng=t.rng,
            ruleset=t.ruleset,
        ),
        [character_id],
    )


def remedy_take(
    *,
    character_id: int,
    actor,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    key = str(character_id)
    return on_character(
        character_id,
        "remedy",
        lambda t: engine.take_remedy(t.state, key, rng=t.rng, ruleset=t.ruleset),
        actor=actor,
        dice=dice,
        visibility=visibility,
    )


def character_stabilise(
    *,
    character_id: int,
    actor,
    healer_id: int | None = None,
    healer_esp: int | None = None,
    difficulty: int | None = None,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    """R12: a healer of the campaign (`healer_id`, locked too) or someone outside it
    (`healer_esp`) tries to stabilise the character."""
    roll = stabilise_roll(
        character_id, healer_id=healer_id, healer_esp=healer_esp, difficulty=difficulty
    )
    return run_roll(roll, actor=actor, dice=dice, visibility=visibility)


def stabilise_roll(character_id: int, *, healer_id=None, healer_esp=None, difficulty=None) -> Roll:
    key = str(character_id)
    healer_key = str(healer_id) if healer_id is not None else None
    return Roll(
        "stabilise",
        lambda t: engine.attempt_stabilise(
            t.state,
            key,
            rng=t.rng,
            healer_key=healer_key,
            healer_esp=healer_esp,
            difficulty=difficulty,
            ruleset=t.ruleset,
        ),
        [character_id, *([healer_id] if healer_id is not None else [])],
    )


def character_wake(
    *,
    character_id: int,
    actor,
    sequel_cause: str = "",
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    """A waking try by hand (R13); success gives a sequel (R14)."""
    roll = wake_roll(character_id, sequel_cause=sequel_cause)
    return run_roll(roll, actor=actor, dice=dice, visibility=visibility)


def wake_roll(character_id: int, *, sequel_cause="") -> Roll:
    key = str(character_id)
    return Roll(
        "wake",
        lambda t: engine.attempt_wake(
            t.state, key, rng=t.rng, sequel_cause=sequel_cause, ruleset=t.ruleset
        ),
        [character_id],
    )


def coma_end(*, character_id: int, actor, visibility: str | None = None) -> Result:
    key = str(character_id)
    return on_character(
        character_id,
        "end_coma",
        lambda t: engine.gm_end_coma(t.state, key, ruleset=t.ruleset),
        actor=actor,
        visibility=visibility,
    )


def character_revive(*, character_id: int, actor, pv: int, visibility: str | None = None) -> Result:
    key = str(character_id)
    return on_character(
        character_id,
        "revive",
        lambda t: engine.gm_revive(t.state, key, pv=pv, ruleset=t.ruleset),
        actor=actor,
        visibility=visibility,
    )


def deaths_door_roll(character_id: int) -> Roll:
    """R10's Survie left to the player (R34), rolled now."""
    key = str(character_id)
    return Roll(
        "deaths_door",
        lambda t: engine.deaths_door_test(t.state, key, rng=t.rng, ruleset=t.ruleset),
        [character_id],
    )


def sleep_roll(character_id: int) -> Roll:
    """R31's Volonté left to the player (R34), rolled now."""
    key = str(character_id)
    return Roll(
        "sleep",
        lambda t: engine.sleep_test(t.state, key, rng=t.rng, ruleset=t.ruleset),
        [character_id],
    )


def clock_resume_roll(character_id: int, *, kind: str, to, then: dict | None = None) -> Roll:
    """R34: the R11 or R13 roll the clock stopped at, then the clock goes on to `to`, then the
    end of the action that moved it (`then`: a night, an hour rest, a new round): every
    character is loaded, as for the clock."""
    key = str(character_id)
    return Roll(
        "clock",
        lambda t: engine.resume_clock(
            t.state, key, kind, rng=t.rng, to=to, ruleset=t.ruleset, defer=t.defer, then=then
        ),
        None,
    )


def asked_roll(
    character_id: int,
    *,
    kind: str = RequestKind.CHECK,
    stat: str | None = None,
    skill: str | None = None,
    difficulty: int | None = None,
    modifier: int = 0,
    severity: int | None = None,
    name: str = "",
    sequel_cause: str = "",
) -> Roll:
    """The roll a request the GM makes by hand asks for (R34, play/requests.py): a test (R5),
    a waking try (R13), Constitution on falling ill (R28) or R10's Survie when due."""
    if kind == RequestKind.WAKE:
        return wake_roll(character_id, sequel_cause=sequel_cause)
    if kind == RequestKind.FALL_ILL:
        return fall_ill_roll(character_id, severity=int(severity or 1), name=name)
    if kind == RequestKind.DEATHS_DOOR:
        return deaths_door_roll(character_id)
    return check_roll(
        character_id, stat=stat or "", skill=skill, difficulty=difficulty, modifier=modifier
    )


# R34: the rolls a player may be asked for that no GM action of its own plays.
REQUEST_ROLLS = {
    "ask": asked_roll,
    "deaths_door": deaths_door_roll,
    "sleep": sleep_roll,
    "clock_resume": clock_resume_roll,
}
