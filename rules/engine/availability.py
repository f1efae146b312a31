"""Which operations a character's state allows, and why the others are refused.

Each operation on one character has a `require_<operation>` check here: the engine operation
calls it before anything else it checks of the state, and `availability` calls every one of
them. A card that offers an operation and the engine that refuses it can therefore never
disagree: both ask the same function. What these checks look at is the character's state
(alive, conscious, in a coma, stabilised, ill, with conditions, Flux left) and, for a waking
try, the game clock (R13: one try per game hour); the inputs of an operation (an amount, a
fall's height) are checked by the operation itself.

Every refusal names its rule id (`RuleError.rule_id`), shown with its reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from .checks import require_alive, require_check
from .errors import (
    ConditionNotPresent,
    NotDead,
    NotEnoughFlux,
    NotIll,
    NotInComa,
    NotStabilised,
    RuleError,
    WakeAlreadyTried,
)
from .state import CharacterState, Vital
from .words import agree

WAKE_INTERVAL = timedelta(hours=1)  # R13: at most one waking try per game hour

# The operations on one character, in the order a card offers them.
DAMAGE = "damage"
HEAL = "heal"
SPEND_FLUX = "spend_flux"
RESTORE_FLUX = "restore_flux"
CHECK = "check"
ADD_CONDITION = "add_condition"
REMOVE_CONDITION = "remove_condition"
FALL = "fall"
FALL_ILL = "fall_ill"
REMEDY = "remedy"
STABILISE = "stabilise"
WAKE = "wake"
END_COMA = "end_coma"
REVIVE = "revive"


def require_damage(character: CharacterState) -> None:
    """R3 (and R27's falls): the dead take no more damage (R16)."""
    require_alive(character)


def require_heal(character: CharacterState) -> None:
    """R1, R15: anyone alive, in a coma too (PV above 0 count as stabilised)."""
    require_alive(character)


def require_spend_flux(character: CharacterState) -> None:
    """R1: Flux never goes below 0, so there must be some left to spend."""
    require_alive(character)
    if character.flux <= 0:
        raise NotEnoughFlux(
            f"{character.label} n’a plus de Flux à dépenser.",
            f"{character.label} has no Flux left to spend.",
            rule_id="R1",
        )


def require_restore_flux(character: CharacterState) -> None:
    """R1: anyone alive."""
    require_alive(character)


def require_add_condition(character: CharacterState) -> None:
    """R20–R25: anyone alive."""
    require_alive(character)


def require_remove_condition(character: CharacterState) -> None:
    """R26: the GM removes a condition the character has (a dead one keeps its own, R16)."""
    require_alive(character)
    if not character.conditions:
        raise ConditionNotPresent(
            f"{character.label} n’a aucun état à retirer.",
            f"{character.label} has no condition to remove.",
            rule_id="R26",
        )


def require_fall(character: CharacterState) -> None:
    """R27: anyone alive."""
    require_alive(character)


def require_fall_ill(character: CharacterState) -> None:
    """R28: anyone alive."""
    require_alive(character)


def require_remedy(character: CharacterState) -> None:
    """R29: a remedy shortens an illness the character has."""
    require_alive(character)
    if character.illness is None:
        raise NotIll(
            f"{character.label} n’est pas malade.", f"{character.label} is not ill.", rule_id="R29"
        )


def require_stabilise(character: CharacterState) -> None:
    """R12: only a character in a coma is stabilised (not one stabilised already)."""
    require_alive(character)
    if character.vital is Vital.STABILISED:
        raise NotInComa(
            agree(f"{character.label} est déjà stabilisé·e.", character.gender),
            f"{character.label} is already stabilised.",
            rule_id="R12",
        )
    if character.vital is not Vital.COMA:
        raise NotInComa(
            f"{character.label} n’est pas dans le coma : rien à stabiliser.",
            f"{character.label} is not in a coma: nothing to stabilise.",
            rule_id="R12",
        )


def require_wake(character: CharacterState, now: datetime) -> None:
    """R13: a stabilised character tries to wake, at most once per game hour."""
    require_alive(character)
    if character.vital is not Vital.STABILISED:
        raise NotStabilised(
            agree(
                f"{character.label} n’est pas stabilisé·e : pas de test de réveil.",
                character.gender,
            ),
            f"{character.label} is not stabilised: no waking test.",
            rule_id="R13",
        )
    last = character.last_wake_try
    if last is not None and now < last + WAKE_INTERVAL:
        raise WakeAlreadyTried(
            f"{character.label} a déjà tenté de se réveiller à {last:%H:%M} : "
            "un essai par heure de jeu.",
            f"{character.label} already tried to wake at {last:%H:%M}: one try per game hour.",
            rule_id="R13",
        )


def require_end_coma(character: CharacterState) -> None:
    """R15: the GM ends a coma (stabilised or not) by hand."""
    require_alive(character)
    if character.vital not in (Vital.COMA, Vital.STABILISED):
        raise NotInComa(
            f"{character.label} n’est pas dans le coma.",
            f"{character.label} is not in a coma.",
            rule_id="R15",
        )


def require_revive(character: CharacterState) -> None:
    """R16: only the dead are brought back."""
    if character.vital is not Vital.DEAD:
        raise NotDead(
            agree(f"{character.label} n’est pas mort·e.", character.gender),
            f"{character.label} is not dead.",
            rule_id="R16",
        )


REQUIREMENTS: dict[str, Callable[[CharacterState, datetime], None]] = {
    DAMAGE: lambda c, now: require_damage(c),
    HEAL: lambda c, now: require_heal(c),
    SPEND_FLUX: lambda c, now: require_spend_flux(c),
    RESTORE_FLUX: lambda c, now: require_restore_flux(c),
    CHECK: lambda c, now: require_check(c),
    ADD_CONDITION: lambda c, now: require_add_condition(c),
    REMOVE_CONDITION: lambda c, now: require_remove_condition(c),
    FALL: lambda c, now: require_fall(c),
    FALL_ILL: lambda c, now: require_fall_ill(c),
    REMEDY: lambda c, now: require_remedy(c),
    STABILISE: lambda c, now: require_stabilise(c),
    WAKE: require_wake,
    END_COMA: lambda c, now: require_end_coma(c),
    REVIVE: lambda c, now: require_revive(c),
}
OPERATIONS = tuple(REQUIREMENTS)


@dataclass(frozen=True, slots=True)
class Refusal:
    """An operation the state refuses: the engine's error, its rule id and its reason."""

    operation: str
    code: str
    rule_id: str
    message_fr: str
    message_en: str


@dataclass(frozen=True, slots=True)
class Availability:
    """What a character's state allows (`allowed`, in OPERATIONS' order) and what it refuses."""

    allowed: tuple[str, ...]
    refused: tuple[Refusal, ...]

    def allows(self, operation: str) -> bool:
        return operation in self.allowed

    def refusal(self, operation: str) -> Refusal | None:
        return next((r for r in self.refused if r.operation == operation), None)


def availability(character: CharacterState, *, now: datetime) -> Availability:
    """Every operation of OPERATIONS, allowed or refused (with why) for `character` at `now`
    (the game clock)."""
    allowed: list[str] = []
    refused: list[Refusal] = []
    for operation, requirement in REQUIREMENTS.items():
        try:
            requirement(character, now)
        except RuleError as error:
            refused.append(
                Refusal(operation, error.code, error.rule_id, error.message_fr, error.message_en)
            )
        else:
            allowed.append(operation)
    return Availability(tuple(allowed), tuple(refused))
