"""The services by name: those the contract tests hold (SERVICES), the rolls `action_odds`
weighs (ROLLS).
"""

from __future__ import annotations

from campaign.models import Campaign
from play.services.character import (
    character_check,
    character_damage,
    character_fall,
    character_heal,
    character_revive,
    character_stabilise,
    character_wake,
    check_roll,
    coma_end,
    condition_add,
    condition_remove,
    damage_roll,
    fall_ill_roll,
    fall_roll,
    flux_restore,
    flux_spend,
    remedy_take,
    stabilise_roll,
    wake_roll,
)
from play.services.fight import (
    fight_end,
    fight_join,
    fight_leave,
    fight_next_turn,
    fight_set_order,
    fight_spend,
    fight_start,
)
from play.services.group import group_action
from play.services.illness import character_fall_ill
from play.services.party import (
    clock_advance,
    hour_rest_share,
    party_hour_rest,
    party_night_rest,
    scene_end,
)
from play.services.runner import roll_odds
from play.services.settings import campaign_settings_update, membership_end, membership_role_set
from play.services.sheet import character_create, character_update
from play.services.undo import entry_undo

# The actions that may roll a test, by name, as `action_odds` weighs them.
ROLLS = {
    "check": check_roll,
    "damage": damage_roll,
    "fall": fall_roll,
    "fall_ill": fall_ill_roll,
    "stabilise": stabilise_roll,
    "wake": wake_roll,
}

# Every public service, for the tests that hold them to their contract.
SERVICES = (
    character_damage,
    character_heal,
    flux_spend,
    flux_restore,
    character_check,
    condition_add,
    condition_remove,
    character_fall,
    character_fall_ill,
    remedy_take,
    character_stabilise,
    character_wake,
    coma_end,
    character_revive,
    group_action,
    clock_advance,
    scene_end,
    party_night_rest,
    party_hour_rest,
    hour_rest_share,
    fight_start,
    fight_next_turn,
    fight_spend,
    fight_set_order,
    fight_join,
    fight_leave,
    fight_end,
    character_create,
    character_update,
    entry_undo,
)


# Writes outside the engine's state (no Outcome of its own): their tests are
# tests/play/test_campaign_writes.py; SERVICES' contract tests are for the engine's.
CAMPAIGN_SERVICES = (campaign_settings_update, membership_end, membership_role_set)


def action_odds(*, campaign: Campaign, character_id: int, action: str, **arguments):
    """The exact odds (`engine.Odds`) of the test that `action` would roll first on the
    character, with the same arguments as its service (the form's `arguments()`), or None when
    it would roll none (damage that leaves PV above 0, a fall softened by a spell…).

    A read: nothing is locked or written. The engine's refusal (`RuleError`: a dead
    character, no coma to stabilise…) goes up as the service would raise it.
    """
    return roll_odds(ROLLS[action](character_id, **arguments), campaign)
