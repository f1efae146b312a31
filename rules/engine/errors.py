"""Every error the engine raises is a `RuleError`: a GM-readable message in French and English.

Catch `RuleError` in a service or a form to show `message_fr` / `message_en` to the user;
`code` is a stable identifier for logs and tests. The state passed in is never changed when
one of these is raised (states are frozen; the engine builds new ones).
"""


class RuleError(Exception):
    """Base of every engine error: `code`, `message_fr`, `message_en`, and `rule_id` when a
    rule refuses the state (rules/engine/availability.py shows it with the reason)."""

    code = "rule_error"

    def __init__(self, message_fr: str, message_en: str, *, rule_id: str = "") -> None:
        super().__init__(message_fr, message_en)
        self.message_fr = message_fr
        self.message_en = message_en
        self.rule_id = rule_id

    def __str__(self) -> str:
        return f"{self.message_fr} / {self.message_en}"


class InvalidDiceExpression(RuleError):
    """A dice expression that is not `NdS`, `NdS+B` or `NdS-B` (e.g. `1d20`, `1d10+5`)."""

    code = "invalid_dice_expression"


class DiceScriptExhausted(RuleError):
    """A scripted (typed-in) dice source was asked for more dice than it holds."""

    code = "dice_script_exhausted"
    sides = 0  # the die still wanted (D6: 6), so a form can ask for that die alone


class DieValueOutOfRange(RuleError):
    """A typed-in or scripted die value that the die cannot show (a 7 on a D6)."""

    code = "die_value_out_of_range"


class UnknownStat(RuleError):
    """A statistic that is not in the campaign's list or not on the character."""

    code = "unknown_stat"


class UnknownCharacter(RuleError):
    """A character key that is not in the campaign state."""

    code = "unknown_character"


class InvalidState(RuleError):
    """A state that breaks R1 (Flux below 0, a negative maximum) or repeats a character key."""

    code = "invalid_state"


class InvalidAmount(RuleError):
    """A negative damage, heal or Flux amount, a night of no length, a negative clock move."""

    code = "invalid_amount"


class NotEnoughFlux(RuleError):
    """Spending more Flux than the character has (Flux never goes below 0, R1)."""

    code = "not_enough_flux"


class CharacterDead(RuleError):
    """An action on a dead character where no rule allows one (R16: only the GM revives)."""

    code = "character_dead"


class NotDead(RuleError):
    """Reviving (R16) a character who is not dead."""

    code = "not_dead"


class NotDue(RuleError):
    """R34: a roll asked of a player that the character's state no longer calls for."""

    code = "not_due"


class StillDue(RuleError):
    """R34: lapsing a request whose roll the rules still call for."""

    code = "still_due"


class NotConscious(RuleError):
    """An action that needs a conscious character (a test, a night's rest, a healer)."""

    code = "not_conscious"


class NotInComa(RuleError):
    """Stabilising or ending the coma of a character who is not in a coma."""

    code = "not_in_coma"


class NotStabilised(RuleError):
    """A waking try (R13) by a character who is not stabilised."""

    code = "not_stabilised"


class WakeAlreadyTried(RuleError):
    """A second waking try within the same game hour (R13)."""

    code = "wake_already_tried"


class InvalidHealer(RuleError):
    """R12 needs someone else: exactly one of a healer character or a healer's ESP value."""

    code = "invalid_healer"


class InvalidFall(RuleError):
    """A fall of fewer than 1 storey, or both a height and "in motion"."""

    code = "invalid_fall"


class CannotSoften(RuleError):
    """Softening a fall of 6 storeys or more, which the R27 table says is impossible."""

    code = "cannot_soften"


class NotIll(RuleError):
    """A remedy (R29) for a character who is not ill."""

    code = "not_ill"


class ConditionNotPresent(RuleError):
    """Removing, or freeing oneself from, a condition the character does not have."""

    code = "condition_not_present"


class HourRestLimitReached(RuleError):
    """More hour rests in this half-day than the campaign allows (R18), without a GM override."""

    code = "hour_rest_limit_reached"


class HourRestPending(RuleError):
    """A new hour rest while the previous roll has not been shared yet (R18)."""

    code = "hour_rest_pending"


class NoPendingHourRest(RuleError):
    """Sharing an hour rest (R18) that has not been rolled."""

    code = "no_pending_hour_rest"


class InvalidHourRestSplit(RuleError):
    """A character's PV/Flux split that does not add up to the group's 1D4 (R18)."""

    code = "invalid_hour_rest_split"


class InvalidClockMove(RuleError):
    """Moving the game clock backwards, or giving both/neither a duration and a target."""

    code = "invalid_clock_move"


class ReplayMismatch(RuleError):
    """`replay` met a change whose `before` value is not the state's current value."""

    code = "replay_mismatch"


class InvalidFight(RuleError):
    """A fight (R33) whose order is empty or repeats a character, whose surprised characters
    are not all in it, or whose round, turn or counts left are out of range."""

    code = "invalid_fight"


class NotInFight(RuleError):
    """A character who is not in the fight (R33): spending for it, asking what it has left."""

    code = "not_in_fight"


class AlreadyInFight(RuleError):
    """Bringing into the fight (R33) a character who is already in it."""

    code = "already_in_fight"


class NoFight(RuleError):
    """A turn, a spending or an order change (R33) while no fight is running."""

    code = "no_fight"


class FightAlreadyRunning(RuleError):
    """Starting a fight (R33) while one is running: end it, or change its order."""

    code = "fight_already_running"


class NothingLeftToSpend(RuleError):
    """Spending an action or a reflex (R33) when the character has none left this round."""

    code = "nothing_left_to_spend"


class InvalidSpend(RuleError):
    """Spending something that is neither "action" nor "reflex" (R33)."""

    code = "invalid_spend"
