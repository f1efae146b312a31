"""Builders for engine tests: a standard character and campaign, with numbers easy to follow."""

from dataclasses import replace
from datetime import datetime

from rules.engine import CampaignState, CharacterState

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
