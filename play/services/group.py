"""Several targets at once: one of a character's actions (damage, healing, Flux, a condition,
a fall, a test) on several characters, in one run of the runner, so one batch of the log,
undone as one (R3, R5, R10, R15, R20–R27, R34).

Each character gets their own rules: the same `Roll` a single target plays (play/services/
character.py) is played for each in turn (`engine.each`), on the state the previous one left.
R34: the rules rolls left to players (each their own character's Survie at 0 PV) become
requests in the same batch; each holds the clock, so they wait together, as the clock's do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from characters.models import Character
from play.services.character import (
    check_roll,
    condition_add_roll,
    damage_roll,
    fall_roll,
    flux_restore_roll,
    flux_spend_roll,
    heal_roll,
)
from play.services.runner import Result, Table, run
from rules import engine

# The actions several characters may take at once, by name: each makes one character's Roll.
GROUP_ROLLS = {
    "damage": damage_roll,
    "heal": heal_roll,
    "spend_flux": flux_spend_roll,
    "restore_flux": flux_restore_roll,
    "add_condition": condition_add_roll,
    "fall": fall_roll,
    "check": check_roll,
}


class BadSelection(engine.RuleError):
    """No character chosen, or one that is not among the campaign's: nothing is applied."""

    code = "bad_selection"


def selection(campaign_id: int, character_ids: Iterable[int | str]) -> list[int]:
    """The chosen characters' ids, in the dashboard's order (by id, as the runner locks them),
    each once; `BadSelection` when none is chosen or one is not the campaign's."""
    ids = []
    for value in character_ids:
        text = str(value).strip()
        if not text.isascii() or not text.isdigit() or len(text) > 12:
            raise BadSelection(
                "Un des personnages choisis n’existe pas : rechargez la page. "
                "Rien n’a été appliqué.",
                "One of the chosen characters does not exist: reload the page. "
                "Nothing was applied.",
            )
        ids.append(int(text))
    ids = sorted(set(ids))
    if not ids:
        raise BadSelection(
            "Sélectionnez au moins un personnage. Rien n’a été appliqué.",
            "Select at least one character. Nothing was applied.",
        )
    found = set(
        Character.objects.filter(campaign_id=campaign_id, pk__in=ids).values_list("pk", flat=True)
    )
    if found != set(ids):
        raise BadSelection(
            "Un des personnages choisis n’est pas dans cette campagne : rechargez la page. "
            "Rien n’a été appliqué.",
            "One of the chosen characters is not in this campaign: reload the page. "
            "Nothing was applied.",
        )
    return ids


def group_action(
    *,
    campaign_id: int,
    actor,
    character_ids: Iterable[int | str],
    action: str,
    visibility: str | None = None,
    ask_players: bool | None = None,
    dice: Iterable[int] | None = None,
    arguments: Mapping[str, Any] | None = None,
) -> Result:
    """`action` (a GROUP_ROLLS name, with its single service's `arguments`) on every chosen
    character, each with their own rules, in one batch. `ask_players` (R34, None for the
    campaign's setting): whether the players roll their own characters' rules rolls. Typed-in
    dice are for one target: a group's dice are the server's (R9), so `dice` is refused."""
    if dice:
        raise BadSelection(
            "Pour plusieurs personnages, c’est le serveur qui lance les dés : "
            "laissez les dés saisis vides.",
            "For several characters the server rolls the dice: leave the typed-in dice empty.",
        )
    make_roll = GROUP_ROLLS.get(action)
    if make_roll is None:
        raise BadSelection(
            "Cette action ne se fait pas sur plusieurs personnages à la fois.",
            "This action cannot be done on several characters at once.",
        )
    ids = selection(campaign_id, character_ids)
    rolls = {str(pk): make_roll(pk, **(arguments or {})) for pk in ids}

    def operation(t: Table) -> engine.Outcome:
        # Each character's own operation, on the state the previous one left.
        return engine.each(
            t.state, list(rolls), lambda state, key: rolls[key].operation(replace(t, state=state))
        )

    return run(
        campaign_id=campaign_id,
        actor=actor,
        action=action,
        operation=operation,
        character_ids=ids,
        visibility=visibility,
        ask_players=ask_players,
    )
