"""Falling ill (R28): the one service that may ask its roll of the player before anything
happens (R34, through play/requests.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from play import requests as roll_requests
from play.models import RequestKind
from play.services.asking import rolls_go_to_player
from play.services.character import fall_ill_roll
from play.services.runner import Result, run_roll


def character_fall_ill(
    *,
    character_id: int,
    actor,
    severity: int,
    name: str = "",
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
    ask_players: bool | None = None,
) -> Result:
    """Falling ill (R28): a Constitution (VAI) test, then the illness's days. R34: when the
    player rolls it (`ask_players`, None for the campaign's setting; not when dice are typed
    in), the illness waits for the answer: a request to the player, nothing else yet."""
    if not dice and rolls_go_to_player(character_id, ask_players):
        return roll_requests.roll_request_create(
            character_id=character_id,
            actor=actor,
            kind=RequestKind.FALL_ILL,
            severity=severity,
            name=name,
            visibility=visibility,
        )
    roll = fall_ill_roll(character_id, severity=severity, name=name)
    return run_roll(roll, actor=actor, dice=dice, visibility=visibility)
