"""R34: a rules roll asked of a player that the rules no longer call for lapses.

A roll left to a player (R10's Survie at 0 PV, R11's hour of coma, R13's waking try, R31's
Volonté) waits while the game goes on: the GM may heal, stabilise or end the coma meanwhile,
the character may die, a setting may change. `lapse_reason` says whether the roll is still
the one the rules call for at this moment and, if not, why; it is also what lets an answer be
played (`resume_clock`), so a waiting roll is always either answerable or lapsable, never
neither. `lapse_roll` ends it: logged, nobody rolls, and a clock stopped at it goes on from
the moment where it stopped to where it was going, then ends the action that moved it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from datetime import datetime

from .clock import character_due, run_clock
from .dice import DiceSource
from .errors import NotDue
from .fight import new_round
from .health import HOUR, coma_test_due
from .outcome import Outcome, Transaction
from .rest import end_hour_rest, end_night
from .state import DEFAULT_RULESET, CampaignState, CharacterState, Ruleset, Vital
from .text import moment_text

# What each rules roll is called in « la demande de jet … », with its rule.
ROLL_NAMES = {
    "deaths_door": ("de Survie à 0 PV", "Survival roll at 0 PV", "R10"),
    "coma_hour": ("de Survie de l’heure de coma", "Survival roll for the coma hour", "R11"),
    "wake": ("d’essai de réveil", "waking try", "R13"),
    "sleep": ("de Volonté après une nuit écourtée", "Willpower roll after a short night", "R31"),
}

# What an action that moved the clock does at its end, by `then["action"]`.
ENDINGS: dict[str, Callable[[Transaction, dict], None]] = {
    "night": end_night,
    "hour_rest": end_hour_rest,
    "new_round": new_round,
}

# The clock's own rolls: the clock stopped at them (R34) and goes on once they end.
CLOCK_ROLLS = frozenset({"coma_hour", "wake"})


def _vital_reason(character: CharacterState) -> tuple[str, str]:
    """Why an unconscious-state roll no longer applies, from where the character now is."""
    if character.vital is Vital.STABILISED:
        if character.pv > 0:
            return (
                "soigné·e au-dessus de 0 PV, donc stabilisé·e (R15)",
                "healed above 0 PV, hence stabilised (R15)",
            )
        return (
            "stabilisé·e : plus de perte ni de test (R12)",
            "stabilised: no more loss or test (R12)",
        )
    if character.vital is Vital.UP:
        return "n’est plus dans le coma (R15)", "no longer in a coma (R15)"
    return "est de nouveau dans le coma (R12)", "is in a coma again (R12)"


def lapse_reason(
    campaign: CampaignState,
    key: str,
    kind: str,
    at: datetime,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> tuple[str, str] | None:
    """None while the roll `kind`, asked for `key` at game time `at`, is still the one the
    rules call for now; else why not (FR, EN, each naming its rule)."""
    character = campaign.character(key)
    if character.vital is Vital.DEAD:
        return "mort·e (R16)", "dead (R16)"
    if kind == "deaths_door":
        if character.vital is Vital.UP and character.pv <= 0:
            return None
        if character.pv > 0:
            return (
                "PV au-dessus de 0 : agit normalement (R10)",
                "PV above 0: acts normally (R10)",
            )
        return _vital_reason(character)
    if kind == "sleep":
        if character.vital is Vital.UP:
            return None
        return (
            "inconscient·e : plus de test de Volonté (R31)",
            "unconscious: no Willpower test any more (R31)",
        )
    if campaign.clock != at:
        return (
            "l’horloge n’est plus au moment où il était dû (R32)",
            "the clock is no longer at the moment it was due (R32)",
        )
    if kind == "coma_hour":
        # The hour's loss was applied when the clock stopped (R11/R34): the next hour is set.
        if character.vital is Vital.COMA and character.next_coma_hour == at + HOUR:
            if coma_test_due(character, ruleset):
                return None
            return (
                "la perte de PV ne dépasse plus la VAI (R11)",
                "the PV loss no longer exceeds VAI (R11)",
            )
        return _vital_reason(character)
    if character_due(character, ruleset) == (at, "wake"):
        return None
    if character.vital is Vital.STABILISED and not ruleset.automatic_wake_tries:
        return (
            "essais de réveil automatiques désactivés (R13)",
            "automatic waking tries are off (R13)",
        )
    if character.vital is Vital.STABILISED:
        return "aucun essai dû à cette heure (R13)", "no try due at this hour (R13)"
    return _vital_reason(character)


def require_due(
    campaign: CampaignState, key: str, kind: str, at: datetime, ruleset: Ruleset
) -> None:
    """R34: NotDue, with the reason, unless the roll is still called for."""
    reason = lapse_reason(campaign, key, kind, at, ruleset)
    if reason is not None:
        label = campaign.character(key).label
        raise NotDue(
            f"{label} n’a plus ce jet à lancer : {reason[0]} (R34).",
            f"{label} has no such roll to make any more: {reason[1]} (R34).",
            rule_id="R34",
        )


def lapse_roll(
    campaign: CampaignState,
    key: str,
    kind: str,
    at: datetime,
    *,
    rng: random.Random | DiceSource,
    to: datetime | None = None,
    then: dict | None = None,
    ruleset: Ruleset = DEFAULT_RULESET,
    defer: Iterable[str] = (),
) -> Outcome:
    """R34: the roll `kind` asked for `key` at `at` lapses (refused while still due): logged,
    nobody rolls. For the clock's rolls (R11, R13) the clock then goes on from where it
    stopped to `to` (and may stop again, with the same `then`), then `then` ends the action
    that moved it (`resume.ENDINGS`)."""
    reason = lapse_reason(campaign, key, kind, at, ruleset)
    if reason is None:
        label = campaign.character(key).label
        raise NotDue(
            f"Le jet de {label} est toujours dû : qu’il soit lancé (R34).",
            f"{label}'s roll is still due: let it be rolled (R34).",
            rule_id="R34",
        )
    fr, en, rule_id = ROLL_NAMES[kind]
    tx = Transaction(campaign, rng, ruleset)
    tx.say(
        "R34",
        f"la demande de jet {fr} ({rule_id}) devient sans objet : {reason[0]}",
        f"the request for a {en} ({rule_id}) lapses: {reason[1]}",
        key,
    )
    tx.rule(rule_id)
    if kind in CLOCK_ROLLS and to is not None:
        target = max(to, campaign.clock)
        target_fr, target_en = moment_text(target)
        tx.say(
            "R34",
            f"l’horloge reprend jusqu’au {target_fr}",
            f"the clock goes on to {target_en}",
        )
        tx.defer = frozenset(defer)
        if run_clock(tx, target, then) and then:
            ENDINGS[then["action"]](tx, then)
    return tx.outcome()
