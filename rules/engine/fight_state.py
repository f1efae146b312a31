"""The running fight (R33) as a frozen value of `CampaignState.fight`.

Its own module so that `state` can hold it while `fight`, which plays it, builds on `state`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import InvalidFight, NotInFight


@dataclass(frozen=True, slots=True)
class Fight:
    """Where a fight stands: the GM's order of character keys, the round (from 1), whose turn
    it is (an index into `order`), each combatant's actions and reflexes left this round (in
    the order's order), who was surprised at its start (R25, ended after round 1), and who
    has had their turn this round (`done`: a reorder keeps it, so it never takes a turn away
    nor gives a second one, R33).

    Lists are stored as tuples, so a Fight is hashable and compares by value.
    """

    order: tuple[str, ...]
    round: int
    turn: int
    actions_left: tuple[int, ...]
    reflexes_left: tuple[int, ...]
    surprised: tuple[str, ...] = ()
    done: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("order", "actions_left", "reflexes_left", "surprised", "done"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        problem = self._problem()
        if problem:
            raise InvalidFight(*problem)

    def _problem(self) -> tuple[str, str] | None:
        size = len(self.order)
        if not size:
            return "Un combat a au moins un personnage.", "A fight has at least one character."
        if len(set(self.order)) != size:
            return (
                "Un personnage apparaît deux fois dans l’ordre du combat.",
                "A character appears twice in the fight's order.",
            )
        if not set(self.surprised) <= set(self.order):
            return (
                "Un personnage surpris n’est pas dans le combat.",
                "A surprised character is not in the fight.",
            )
        if not set(self.done) <= set(self.order) - {self.order[self.turn % size]}:
            return (
                "Seuls les autres personnages du combat ont pu avoir leur tour.",
                "Only the fight's other characters can have had their turn.",
            )
        if len(self.actions_left) != size or len(self.reflexes_left) != size:
            return (
                "Il faut des actions et des réflexes restants pour chaque personnage du combat.",
                "Every character in the fight needs actions and reflexes left.",
            )
        if min(self.actions_left + self.reflexes_left) < 0:
            return (
                "Les actions et réflexes restants ne sont jamais négatifs (R33).",
                "Actions and reflexes left are never negative (R33).",
            )
        if self.round < 1 or not 0 <= self.turn < size:
            return (
                f"Manche {self.round}, tour {self.turn} : hors limites ({size} personnages).",
                f"Round {self.round}, turn {self.turn}: out of range ({size} characters).",
            )
        return None

    @property
    def current(self) -> str:
        """The key of the character whose turn it is."""
        return self.order[self.turn]

    @property
    def waiting(self) -> tuple[str, ...]:
        """Who has yet to have their turn this round after the current one, in the order."""
        return tuple(key for key in self.order if key != self.current and key not in self.done)

    def left(self, key: str) -> tuple[int, int]:
        """(actions, reflexes) `key` has left this round, as stored."""
        if key not in self.order:
            raise NotInFight(
                f"« {key} » n’est pas dans le combat.", f"'{key}' is not in the fight."
            )
        index = self.order.index(key)
        return self.actions_left[index], self.reflexes_left[index]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (str, int, lists): the same dict a generic dataclass dump gives."""
        return {
            "order": list(self.order),
            "round": self.round,
            "turn": self.turn,
            "actions_left": list(self.actions_left),
            "reflexes_left": list(self.reflexes_left),
            "surprised": list(self.surprised),
            "done": list(self.done),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Fight:
        """The inverse of `to_json`; a stored fight that breaks the rules raises InvalidFight."""
        return cls(
            order=tuple(str(key) for key in data["order"]),
            round=int(data["round"]),
            turn=int(data["turn"]),
            actions_left=tuple(int(n) for n in data["actions_left"]),
            reflexes_left=tuple(int(n) for n in data["reflexes_left"]),
            surprised=tuple(str(key) for key in data.get("surprised", ())),
            # A fight stored before turns were tracked by name: those before the turn had it.
            done=tuple(str(key) for key in data.get("done", data["order"][: int(data["turn"])])),
        )
