"""Frozen state: the campaign settings (`Ruleset`), characters and the campaign around them.

States are values: every operation returns a new `CampaignState` inside an `Outcome` and never
changes the one it was given. Effective stats are derived (base stats minus sequels' losses,
R14), never stored twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import IntEnum, StrEnum

from .errors import InvalidState, UnknownCharacter, UnknownStat
from .fight_state import Fight

DEFAULT_STATS = ("ADR", "PUI", "INS", "PRE", "VAI", "SAV", "ESP")

# R14: D6 result -> the statistic that loses one point.
SEQUEL_TABLE = {1: "ADR", 2: "PUI", 3: "INS", 4: "PRE", 5: "VAI", 6: "SAV"}


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Every "Choice" of docs/rules.md as a campaign setting, with its default there."""

    stats: tuple[str, ...] = DEFAULT_STATS  # R2
    default_difficulty: int = 10  # R5
    natural_extremes: bool = False  # R5: when on, natural 20 always succeeds, natural 1 fails
    coma_delay: timedelta = timedelta(minutes=10)  # R10
    automatic_wake_tries: bool = True  # R13: the clock makes the hourly tries by itself
    damage_ends_stabilisation: bool = True  # R11/R12: hurt again, a stabilised one is in a coma
    proper_night_hours: float = 6  # R17, R31
    poor_night_is_proper: bool = False  # R31: does a full but poor night end sleep deprivation?
    hour_rests_per_half_day: int = 1  # R18
    morning_hour: int = 6  # R30, R32; half-days start at this hour and twelve hours later
    surprise_ends_after_first_round: bool = True  # R33: Surpris given at the start; else by hand
    round_seconds: int = 0  # R33: how far a round moves the game clock


DEFAULT_RULESET = Ruleset()


class Vital(StrEnum):
    """Where a character stands between life and death (R10–R16)."""

    UP = "up"
    BORROWED_TIME = "borrowed_time"  # R10: PV <= 0, test passed, acting until the coma comes
    COMA = "coma"  # R11
    STABILISED = "stabilised"  # R12, R15
    DEAD = "dead"  # R16


class ConditionKind(StrEnum):
    """The six conditions of R20–R25."""

    EBRANLE = "ebranle"
    EXTENUE = "extenue"
    GENE = "gene"
    IMMOBILISE = "immobilise"
    PARALYSE = "paralyse"
    SURPRIS = "surpris"


# Causes with an end rule of their own (R26); any other text is a GM-set condition.
CAUSE_FLUX = "flux"  # ends when Flux > 0
CAUSE_DEATHS_DOOR = "deaths_door"  # ends when PV > 0 or at the coma
CAUSE_SLEEP = "sleep"  # ends at a proper night
CAUSE_GM = "gm"  # ends when the GM removes it
CAUSE_FIGHT = "fight"  # Surpris given at a fight's start: ends after round 1 (R33 setting)


class Severity(IntEnum):
    """R28 severity; the value is the malus to all tests."""

    MILD = 1  # légèrement malade
    ILL = 2  # malade
    SEVERE = 3  # gravement malade
    CRITICAL = 4  # très gravement malade


class Surface(StrEnum):
    """R27 ground under a fall."""

    NORMAL = "normal"
    ROUGH = "rough"  # +1 storey
    SOFT = "soft"  # -1 storey (soft ground or water)


class Soften(StrEnum):
    """R27 ways to soften a fall."""

    NONE = "none"
    SPELL = "spell"
    ADR_TEST = "adr_test"


@dataclass(frozen=True, slots=True)
class Condition:
    kind: ConditionKind
    cause: str = CAUSE_GM


@dataclass(frozen=True, slots=True)
class Sequel:
    """R14: a permanent trauma; `stat` loses one point and Survie tests take −1 (R7)."""

    stat: str
    cause: str = ""
    d6: int = 0
    at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Illness:
    """R28: severity and the days left; 0 days left means it passes by the next morning (R30)."""

    severity: Severity
    days_left: int
    name: str = ""


@dataclass(frozen=True, slots=True)
class CharacterState:
    """One character. `key` is the caller's stable id (a DB primary key as text, say).

    `stats` may be given as a mapping; it is stored as a tuple of (name, base value) pairs.
    Timers: `coma_due` (R10 borrowed time), `next_coma_hour` (R11), `stabilised_at`,
    `last_wake_try` and `wake_tries_from` (R13: the clock's automatic tries count from the latest
    of the three). `down_cause` is what brought PV to 0, used as a sequel's cause.
    """

    key: str
    pv: int
    pv_max: int
    flux: int
    flux_max: int
    stats: tuple[tuple[str, int], ...] | Mapping[str, int] = ()
    name: str = ""
    # The grammatical gender sentences about the character agree with (rules.engine.words):
    # "il", "elle", or "iel", the inclusive form, when nobody said.
    gender: str = "iel"
    pa: int = 0
    actions: int = 2  # R4
    reflexes: int = 1  # R4
    vital: Vital = Vital.UP
    coma_due: datetime | None = None
    next_coma_hour: datetime | None = None
    stabilised_at: datetime | None = None
    last_wake_try: datetime | None = None
    # R13/R32: where the clock left off while automatic tries were off, so that turning them
    # back on counts from there instead of replaying the hours that passed.
    wake_tries_from: datetime | None = None
    down_cause: str = ""
    conditions: tuple[Condition, ...] = ()
    sequels: tuple[Sequel, ...] = ()
    illness: Illness | None = None
    sleep_deprived: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.stats, Mapping):
            object.__setattr__(self, "stats", tuple(self.stats.items()))
        if self.flux < 0 or self.pv_max < 0 or self.flux_max < 0 or self.pa < 0:
            raise InvalidState(
                f"{self.key} : Flux, maxima et PA ne peuvent pas être négatifs (R1).",
                f"{self.key}: Flux, maxima and PA cannot be negative (R1).",
            )

    @property
    def label(self) -> str:
        return self.name or self.key

    def base_stat(self, stat: str, ruleset: Ruleset = DEFAULT_RULESET) -> int:
        for name, value in self.stats:
            if name == stat and stat in ruleset.stats:
                return value
        raise UnknownStat(
            f"Statistique inconnue pour {self.label} : « {stat} » (connues : "
            f"{', '.join(ruleset.stats)}).",
            f"Unknown statistic for {self.label}: '{stat}' (known: {', '.join(ruleset.stats)}).",
        )

    def stat(self, stat: str, ruleset: Ruleset = DEFAULT_RULESET) -> int:
        """Effective value: the base value minus one per sequel on that stat (R14)."""
        return self.base_stat(stat, ruleset) - sum(1 for s in self.sequels if s.stat == stat)

    def has(self, kind: ConditionKind, cause: str | None = None) -> bool:
        return any(c.kind is kind and cause in (None, c.cause) for c in self.conditions)


@dataclass(frozen=True, slots=True)
class CampaignState:
    """The game clock, the scene, the hour-rest bookkeeping (R18) and the characters.

    A service may build one with only the characters an action concerns; `advance_clock`
    should get every character whose timers must run.
    `fight` is the running fight (R33) or None; the fight operations need its combatants.
    """

    clock: datetime
    characters: tuple[CharacterState, ...] = field(default=())
    scene: int = 1
    hour_rests_used: int = 0
    pending_hour_rest: int | None = None
    fight: Fight | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "characters", tuple(self.characters))
        keys = [c.key for c in self.characters]
        if len(set(keys)) != len(keys):
            raise InvalidState(
                "Deux personnages ont la même clé.", "Two characters share the same key."
            )

    def character(self, key: str) -> CharacterState:
        for character in self.characters:
            if character.key == key:
                return character
        raise UnknownCharacter(
            f"Aucun personnage « {key} » dans cette campagne.",
            f"No character '{key}' in this campaign.",
        )

    def with_character(self, character: CharacterState) -> CampaignState:
        self.character(character.key)
        characters = tuple(character if c.key == character.key else c for c in self.characters)
        return replace(self, characters=characters)
