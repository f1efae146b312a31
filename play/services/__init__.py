"""Every game action as one typed service, all through one path (DESIGN.md, "How a change flows").

A service is named `<thing>_<verb>`, takes keyword-only arguments and returns a `Result`. Each
hands an engine operation to the one runner (`runner.run`), which writes the new state and its
audit entries in one transaction. The modules are by thing: runner (the table, the run, a
`Roll` and its odds), asking (R34's requests), entries (the audit drafts), character,
group (one action on several characters), illness, party (clock, scene, rests), fight,
sheet, undo, settings (campaign settings and membership), catalogue (the services by name).
This package re-exports the public API.

`dice` is what a person typed in from physical dice (R9), or None for a server roll.
`visibility` is who sees the entries ("everyone" or "gm"), None for the campaign's default.
"""

from play.services.asking import (
    REQUEST_FIELD,
    REQUEST_LABELS,
    ClockWaits,
    request_draft,
    request_due_rolls,
)
from play.services.catalogue import CAMPAIGN_SERVICES, ROLLS, SERVICES, action_odds
from play.services.character import (
    REQUEST_ROLLS,
    character_check,
    character_damage,
    character_fall,
    character_heal,
    character_revive,
    character_stabilise,
    character_wake,
    coma_end,
    condition_add,
    condition_add_roll,
    condition_remove,
    damage_roll,
    flux_restore,
    flux_spend,
    flux_spend_roll,
    remedy_take,
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
from play.services.free_roll import free_roll
from play.services.group import GROUP_ROLLS, BadSelection, group_action
from play.services.illness import character_fall_ill
from play.services.party import (
    FORECASTS,
    clock_advance,
    clock_forecast,
    clock_risks,
    hour_rest_share,
    party_hour_rest,
    party_night_rest,
    scene_end,
)
from play.services.runner import (
    Drafts,
    Operation,
    Result,
    Roll,
    Table,
    TypedThenServer,
    UnusedTypedDice,
    dice_source,
    gm_modifiers,
    locked_rows,
    roll_odds,
    roll_try,
    run_roll,
    stale_requests_lapse,
)
from play.services.settings import (
    SETTING_PREFIX,
    campaign_settings_update,
    membership_end,
    membership_role_set,
)
from play.services.sheet import SHEET_RULES, character_create, character_update
from play.services.undo import NothingToUndo, NotUndoable, UndoConflict, UndoProblem, entry_undo

__all__ = [
    "CAMPAIGN_SERVICES",
    "FORECASTS",
    "GROUP_ROLLS",
    "REQUEST_FIELD",
    "REQUEST_LABELS",
    "REQUEST_ROLLS",
    "ROLLS",
    "SERVICES",
    "SETTING_PREFIX",
    "SHEET_RULES",
    "BadSelection",
    "ClockWaits",
    "Drafts",
    "NotUndoable",
    "NothingToUndo",
    "Operation",
    "Result",
    "Roll",
    "Table",
    "TypedThenServer",
    "UndoConflict",
    "UndoProblem",
    "UnusedTypedDice",
    "action_odds",
    "campaign_settings_update",
    "character_check",
    "character_create",
    "character_damage",
    "character_fall",
    "character_fall_ill",
    "character_heal",
    "character_revive",
    "character_stabilise",
    "character_update",
    "character_wake",
    "clock_advance",
    "clock_forecast",
    "clock_risks",
    "coma_end",
    "condition_add",
    "condition_add_roll",
    "condition_remove",
    "damage_roll",
    "dice_source",
    "entry_undo",
    "fight_end",
    "fight_join",
    "fight_leave",
    "fight_next_turn",
    "fight_set_order",
    "fight_spend",
    "fight_start",
    "flux_restore",
    "flux_spend",
    "flux_spend_roll",
    "free_roll",
    "gm_modifiers",
    "group_action",
    "hour_rest_share",
    "locked_rows",
    "membership_end",
    "membership_role_set",
    "party_hour_rest",
    "party_night_rest",
    "remedy_take",
    "request_draft",
    "request_due_rolls",
    "roll_odds",
    "roll_try",
    "run_roll",
    "scene_end",
    "stale_requests_lapse",
]
