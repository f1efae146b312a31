"""Chroniqueur's rules engine: every rule of docs/rules.md (R1–R33) as pure Python.

No Django, no database, no global randomness, no clock reads: each operation takes a frozen
`CampaignState`, a character `key`, its inputs, a dice source `rng` (a `random.Random`, e.g.
`random.SystemRandom()`, or `ScriptedDice` for typed-in dice, R9) and a `Ruleset`, and returns
an `Outcome` (new state, rolls, checks, changes, rule ids, FR/EN explanation). Errors are
`RuleError` subclasses with `code`, `message_fr` and `message_en`; the input is never changed.
Options are keyword-only.

State and settings
    Ruleset, DEFAULT_RULESET, CampaignState, CharacterState, Vital, Condition, ConditionKind,
    Sequel, Illness, Severity, Surface, Soften, SEQUEL_TABLE, CAUSE_* constants
Dice
    parse_dice(text) -> DiceExpr; roll(expr, rng) -> Roll; ScriptedDice(values, typed_in=True)
    Free rolls (R9): parse_free_roll(text, stats) -> FreeExpr (« 2d6+3 », « 1d20+ADR »; a
    clear InvalidDiceExpression otherwise); roll_free(expr, rng, *, character, ruleset) ->
    FreeRoll(expr, values, total, typed_in; .dice, .text)
Tests (R5–R9)
    check(campaign, key, stat, *, rng, skill, difficulty, modifiers, ruleset) -> Outcome
    success_probability(character, stat, *, skill, difficulty, modifiers, ruleset) -> Fraction
    plan_check(character, stat, *, skill, difficulty, modifiers, rule_id, ruleset) -> CheckPlan;
    roll_odds(plan) -> Fraction (exact, over the D20's faces); first_test_odds(run) -> Odds |
    None: the odds of the first test an action's own operation `run(rng)` rolls (R10, R12,
    R13, R27, R28 and R5 alike), found by running it with an OddsProbe as its dice source
    Modifier(label, value, rule_id, label_en), CheckResult; skills SURVIE, MEDECINE, AGILITE,
    CONSTITUTION, VOLONTE
Health (R1, R3, R10–R16, R26)
    take_damage(campaign, key, amount, *, rng, ignores_pa, cause), heal(campaign, key, amount),
    spend_flux / restore_flux(campaign, key, amount), end_scene(campaign),
    attempt_stabilise(campaign, key, *, rng, healer_key | healer_esp, modifiers, difficulty),
    attempt_wake(campaign, key, *, rng, sequel_cause, difficulty, modifiers),
    gm_end_coma(campaign, key, *, pv), gm_revive(campaign, key, *, pv)
Conditions (R20–R26)
    effective(character) -> Effective, describe_condition(condition) -> (fr, en),
    add_condition / remove_condition(campaign, key, kind, *, cause),
    attempt_free(campaign, key, stat, *, rng, skill, difficulty, modifiers)
Rest (R17–R19, R31)
    night_rest(campaign, *, hours, rng, keys, poor_quality, clinic_keys), clinic_night(...),
    partial_night(...), hour_rest(campaign, *, rng, gm_override),
    share_hour_rest(campaign, *, splits={key: (pv, flux)})
Complications (R27–R30)
    fall(campaign, key, *, rng, storeys | in_motion, surface, soften, difficulty, modifiers),
    fall_height(...), fall_ill(campaign, key, *, severity, rng, name),
    take_remedy(campaign, key, *, rng)
Time (R32)
    advance_clock(campaign, *, rng, minutes | to), advance_to_morning(campaign, *, rng),
    next_morning(moment, ruleset)
Fights (R33; no initiative roll: the order is the GM's)
    start_fight(campaign, keys, *, surprised), next_turn(campaign, *, rng),
    spend(campaign, key, what="action" | "reflex"), left_this_round(campaign, key),
    set_order(campaign, keys), join_fight(campaign, key, *, place), leave_fight(campaign,
    key), end_fight(campaign); the running fight is
    CampaignState.fight: Fight(order, round, turn, actions_left, reflexes_left, surprised),
    JSON through fight.to_json() / Fight.from_json(data); Ruleset.round_seconds,
    Ruleset.surprise_ends_after_first_round; CAUSE_FIGHT (the Surpris given at the start)
What a state allows (the same checks the operations make)
    availability(character, *, now) -> Availability(allowed, refused: Refusal(operation, code,
    rule_id, message_fr, message_en)); OPERATIONS, the names of the operations on one
    character; RuleError.rule_id names the rule behind a refusal
Rolls asked of players (R34)
    take_damage / advance_clock / advance_to_morning / night_rest / hour_rest / next_turn
    (..., defer=keys): the rules rolls of those characters are not rolled but listed in
    Outcome.due (DueRoll); the clock stops at the first one, and an action that moved it
    (a night, an hour rest, a round with a length) waits with it (DueRoll.then);
    deaths_door_test (R10), resume_clock (R11, R13: the roll, then the clock goes on, then
    the action ends, resume.ENDINGS), sleep_test (R31) roll them later; NotDue when no
    longer called for; moves_clock(campaign): whether the next turn moves the clock
The sheet set by hand (R1, R10, R15, R26)
    set_resource(campaign, key, "pv" | "flux", target, *, rng): PV or Flux moved to `target`
    through damage ignoring PA, healing, Flux spent or restored; bring_down(campaign, key,
    field, target): R1, a value above its lowered maximum; by_hand(campaign, changes, lines):
    the GM's own changes replayed; Steps(campaign): outcomes in a row (then, by_hand, keep)
    joined by .outcome(); each(campaign, keys, step): step(state, key) for each character in
    turn, joined as one outcome (a refusal names the character and refuses all)
Forecasts (R32 before the clock moves: what it would roll, exact odds, nothing sampled)
    forecast_clock(campaign, *, minutes | to_morning), forecast_night(campaign, *, hours, keys,
    poor_quality, clinic_keys), forecast_hour_rest(campaign, *, gm_override) -> tuple of
    Forecast(key, label, tests=((rule id, at most), …), death, wake, exhausted: Fraction;
    .fr / .en); forecast(campaign, operation) for any operation; percent_text(Fraction)
Outcomes
    Outcome, Change, Line, replay(state, changes) -> CampaignState
"""

from .availability import OPERATIONS, Availability, Refusal, availability
from .checks import (
    AGILITE,
    CONSTITUTION,
    MEDECINE,
    SURVIE,
    VOLONTE,
    OddsProbe,
    check,
    first_test_odds,
    plan_check,
    roll_odds,
    success_probability,
)
from .clock import advance_clock, advance_to_morning, next_morning
from .complications import fall, fall_height, fall_ill, take_remedy
from .conditions import Effective, add_condition, attempt_free, effective, remove_condition
from .dice import DiceExpr, DiceSource, Roll, ScriptedDice, parse_dice, roll
from .dice_expr import FreeExpr, FreeRoll, parse_free_roll, roll_free
from .errors import (
    AlreadyInFight,
    CannotSoften,
    CharacterDead,
    ConditionNotPresent,
    DiceScriptExhausted,
    DieValueOutOfRange,
    FightAlreadyRunning,
    HourRestLimitReached,
    HourRestPending,
    InvalidAmount,
    InvalidClockMove,
    InvalidDiceExpression,
    InvalidFall,
    InvalidFight,
    InvalidHealer,
    InvalidHourRestSplit,
    InvalidSpend,
    InvalidState,
    NoFight,
    NoPendingHourRest,
    NotConscious,
    NotDead,
    NotDue,
    NotEnoughFlux,
    NothingLeftToSpend,
    NotIll,
    NotInComa,
    NotInFight,
    NotStabilised,
    ReplayMismatch,
    RuleError,
    StillDue,
    UnknownCharacter,
    UnknownStat,
    WakeAlreadyTried,
)
from .fight import (
    end_fight,
    join_fight,
    leave_fight,
    left_this_round,
    moves_clock,
    next_turn,
    set_order,
    spend,
    start_fight,
)
from .fight_state import Fight
from .forecast import (
    Forecast,
    forecast,
    forecast_clock,
    forecast_hour_rest,
    forecast_night,
    may_die_on_the_clock,
    percent_text,
)
from .health import (
    attempt_stabilise,
    attempt_wake,
    deaths_door_test,
    end_scene,
    gm_end_coma,
    gm_revive,
    heal,
    restore_flux,
    spend_flux,
    take_damage,
)
from .outcome import DueRoll, Outcome, replay
from .rest import (
    clinic_night,
    hour_rest,
    night_rest,
    partial_night,
    share_hour_rest,
    sleep_test,
)
from .results import Change, CheckPlan, CheckResult, Line, Modifier, Odds
from .resume import lapse_roll, resume_clock, rules_roll_due
from .sheet import Steps, bring_down, by_hand, each, set_resource
from .state import (
    CAUSE_DEATHS_DOOR,
    CAUSE_FIGHT,
    CAUSE_FLUX,
    CAUSE_GM,
    CAUSE_SLEEP,
    DEFAULT_RULESET,
    DEFAULT_STATS,
    SEQUEL_TABLE,
    CampaignState,
    CharacterState,
    Condition,
    ConditionKind,
    Illness,
    Ruleset,
    Sequel,
    Severity,
    Soften,
    Surface,
    Vital,
)
from .text import describe_condition

__all__ = [
    "AGILITE",
    "CAUSE_DEATHS_DOOR",
    "CAUSE_FIGHT",
    "CAUSE_FLUX",
    "CAUSE_GM",
    "CAUSE_SLEEP",
    "CONSTITUTION",
    "DEFAULT_RULESET",
    "DEFAULT_STATS",
    "MEDECINE",
    "OPERATIONS",
    "SEQUEL_TABLE",
    "SURVIE",
    "VOLONTE",
    "AlreadyInFight",
    "Availability",
    "CampaignState",
    "CannotSoften",
    "Change",
    "CharacterDead",
    "CharacterState",
    "CheckPlan",
    "CheckResult",
    "Condition",
    "ConditionKind",
    "ConditionNotPresent",
    "DiceExpr",
    "DiceScriptExhausted",
    "DiceSource",
    "DieValueOutOfRange",
    "DueRoll",
    "Effective",
    "Fight",
    "FightAlreadyRunning",
    "Forecast",
    "FreeExpr",
    "FreeRoll",
    "HourRestLimitReached",
    "HourRestPending",
    "Illness",
    "InvalidAmount",
    "InvalidClockMove",
    "InvalidDiceExpression",
    "InvalidFall",
    "InvalidFight",
    "InvalidHealer",
    "InvalidHourRestSplit",
    "InvalidSpend",
    "InvalidState",
    "Line",
    "Modifier",
    "NoFight",
    "NoPendingHourRest",
    "NotConscious",
    "NotDead",
    "NotDue",
    "NotEnoughFlux",
    "NotIll",
    "NotInComa",
    "NotInFight",
    "NotStabilised",
    "NothingLeftToSpend",
    "Odds",
    "OddsProbe",
    "Outcome",
    "Refusal",
    "ReplayMismatch",
    "Roll",
    "RuleError",
    "Ruleset",
    "ScriptedDice",
    "Sequel",
    "Severity",
    "Soften",
    "Steps",
    "StillDue",
    "Surface",
    "UnknownCharacter",
    "UnknownStat",
    "Vital",
    "WakeAlreadyTried",
    "add_condition",
    "advance_clock",
    "advance_to_morning",
    "attempt_free",
    "attempt_stabilise",
    "attempt_wake",
    "availability",
    "bring_down",
    "by_hand",
    "check",
    "clinic_night",
    "deaths_door_test",
    "describe_condition",
    "each",
    "effective",
    "end_fight",
    "end_scene",
    "fall",
    "fall_height",
    "fall_ill",
    "first_test_odds",
    "forecast",
    "forecast_clock",
    "forecast_hour_rest",
    "forecast_night",
    "gm_end_coma",
    "gm_revive",
    "heal",
    "hour_rest",
    "join_fight",
    "lapse_roll",
    "leave_fight",
    "left_this_round",
    "may_die_on_the_clock",
    "moves_clock",
    "next_morning",
    "next_turn",
    "night_rest",
    "parse_dice",
    "parse_free_roll",
    "partial_night",
    "percent_text",
    "plan_check",
    "remove_condition",
    "replay",
    "restore_flux",
    "resume_clock",
    "roll",
    "roll_free",
    "roll_odds",
    "rules_roll_due",
    "set_order",
    "set_resource",
    "share_hour_rest",
    "sleep_test",
    "spend",
    "spend_flux",
    "start_fight",
    "success_probability",
    "take_damage",
    "take_remedy",
]
