"""What every operation returns (`Outcome`), the changes it is made of, and `replay`.

Operations build their result through `Draft`, which records a `Change` for every field
it sets, so an Outcome's changes always replay to its new state (tested as a property).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from .dice import DiceExpr, DiceSource, Roll, roll
from .errors import ReplayMismatch
from .results import Change, CheckResult, Line
from .state import CampaignState, CharacterState, Ruleset
from .text import roll_text
from .words import agree


@dataclass(frozen=True, slots=True)
class DueRoll:
    """R34: a rules roll that fell due for a character whose player rolls it: not rolled.

    `kind` names the roll: "deaths_door" (R10's Survie at 0 PV), "coma_hour" (R11's hour,
    its PV and its Survie), "wake" (R13's hourly try), "sleep" (R31's Volonté). The clock's
    rolls ("coma_hour", "wake") stop it at `at`; `target` is where it was going, and `then`
    what the action that moved it still does once it gets there (a night's recovery, an hour
    rest's 1D4, a fight's new round: `rules.engine.resume`), as JSON-ready data.
    """

    kind: str
    rule_id: str
    key: str
    at: datetime
    target: datetime | None = None
    then: dict | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """The new state and everything that led to it, in the order it happened.

    `rolls` are plain dice rolls (damage, durations, the sequel D6, the group's 1D4…);
    `checks` are D20 tests, each holding its own die roll. `events` holds the same rolls,
    checks and changes interleaved in the order they happened (a damage change, then the
    Survie test it caused, then the coma), for a log that reads like the table did.
    """

    state: CampaignState
    rolls: tuple[Roll, ...] = ()
    checks: tuple[CheckResult, ...] = ()
    changes: tuple[Change, ...] = ()
    rules: tuple[str, ...] = ()
    lines: tuple[Line, ...] = ()
    events: tuple[Roll | CheckResult | Change, ...] = ()
    # R34: the rules rolls left to their players instead of being rolled (`Draft.defer`).
    due: tuple[DueRoll, ...] = ()

    def character(self, key: str) -> CharacterState:
        return self.state.character(key)

    def explanation_lines(self, lang: str) -> tuple[str, ...]:
        """Each line as "R10 · …", in `lang` ("fr" or "en")."""
        return tuple(f"{line.rule_id} · {getattr(line, lang)}" for line in self.lines)

    @property
    def explanation_fr(self) -> str:
        return "\n".join(self.explanation_lines("fr"))

    @property
    def explanation_en(self) -> str:
        return "\n".join(self.explanation_lines("en"))


def replay(state: CampaignState, changes: tuple[Change, ...] | list[Change]) -> CampaignState:
    """Apply `changes` in order to `state`; each change's `before` must match what it replaces."""
    for change in changes:
        if change.character_key is None:
            target: Any = state
        else:
            target = state.character(change.character_key)
        current = getattr(target, change.field)
        if current != change.before:
            raise ReplayMismatch(
                f"Historique incohérent : {change.field} vaut {current!r}, "
                f"attendu {change.before!r}.",
                f"Inconsistent history: {change.field} is {current!r}, expected {change.before!r}.",
            )
        updated = replace(target, **{change.field: change.after})
        state = updated if change.character_key is None else state.with_character(updated)
    return state


class Draft:
    """One Outcome being written, step by step, as the operation computes it (nothing to do
    with a database transaction); `now` is the game time of what is being recorded."""

    def __init__(
        self, state: CampaignState, rng: random.Random | DiceSource | None, ruleset: Ruleset
    ) -> None:
        self.state = state
        self.rng = rng
        self.ruleset = ruleset
        self.now = state.clock
        self.rolls: list[Roll] = []
        self.checks: list[CheckResult] = []
        self.changes: list[Change] = []
        self.rules: list[str] = []
        self.lines: list[Line] = []
        self.events: list[Roll | CheckResult | Change] = []
        # R34: the characters whose rules rolls go to their players, and those left to them.
        self.defer: frozenset[str] = frozenset()
        self.due: list[DueRoll] = []

    def char(self, key: str) -> CharacterState:
        return self.state.character(key)

    def rule(self, rule_id: str) -> None:
        if rule_id not in self.rules:
            self.rules.append(rule_id)

    def say(self, rule_id: str, fr: str, en: str, key: str | None = None) -> None:
        self.rule(rule_id)
        if key is not None:
            # A sentence about a character agrees with their grammatical gender (« mort·e »
            # reads « morte » for a character who is « elle »).
            character = self.char(key)
            fr = f"{character.label} — {agree(fr, character.gender)}"
            en = f"{character.label} — {en}"
        self.lines.append(Line(fr, en, rule_id, key, self.now))

    def set(self, key: str, field: str, value: Any, rule_id: str, *, by_gm: bool = False) -> None:
        character = self.char(key)
        before = getattr(character, field)
        if before == value:
            return
        self.state = self.state.with_character(replace(character, **{field: value}))
        self._change(Change(key, field, before, value, rule_id, self.now, by_gm))

    def set_campaign(self, field: str, value: Any, rule_id: str, *, by_gm: bool = False) -> None:
        before = getattr(self.state, field)
        if before == value:
            return
        self.state = replace(self.state, **{field: value})
        self._change(Change(None, field, before, value, rule_id, self.now, by_gm))

    def _change(self, change: Change) -> None:
        self.changes.append(change)
        self.events.append(change)
        self.rule(change.rule_id)

    def record_check(self, result: CheckResult) -> None:
        self.checks.append(result)
        self.events.append(result)

    def roll(
        self, expr: DiceExpr, *, key: str | None, rule_id: str, purpose: str, record: bool = True
    ) -> Roll:
        rolled = roll(expr, self.rng)  # type: ignore[arg-type]  # every rolling operation sets it
        result = replace(rolled, character_key=key, at=self.now, rule_id=rule_id, purpose=purpose)
        if record:
            self.rolls.append(result)
            self.events.append(result)
        return result

    def leave_to_player(self, kind: str, rule_id: str, key: str, fr: str, en: str) -> bool:
        """R34: whether `key`'s rules roll goes to their player; if so it is noted as due."""
        if key not in self.defer:
            return False
        self.due.append(DueRoll(kind, rule_id, key, self.now))
        self.say("R34", f"{fr} : jet demandé au joueur", f"{en}: roll asked of the player", key)
        self.rule(rule_id)
        return True

    def roll_line(self, result: Roll, fr: str, en: str) -> None:
        text = roll_text(result)
        typed_fr, typed_en = (" [dés saisis]", " [typed-in dice]") if result.typed_in else ("", "")
        self.say(
            str(result.rule_id),
            f"{fr} : {text}{typed_fr}",
            f"{en}: {text}{typed_en}",
            result.character_key,
        )

    def outcome(self) -> Outcome:
        return Outcome(
            self.state,
            tuple(self.rolls),
            tuple(self.checks),
            tuple(self.changes),
            tuple(self.rules),
            tuple(self.lines),
            tuple(self.events),
            tuple(self.due),
        )
