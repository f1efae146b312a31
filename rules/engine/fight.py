"""Fights in rounds (R33): the GM's order, one turn each per round, budgets reset each round.

The chapter has no initiative rule, so no die is rolled for the order: it is the GM's. At the
start of each round every combatant's actions and reflexes left are set to its effective
budget (R4 with R20–R25 through `effective`, which also gives nothing to an unconscious or
dead character). Surpris given at the fight's start (R25) ends after round 1 unless the
campaign leaves it to the GM. A round moves the game clock only when the campaign gives it a
length, and then through the clock (R32), so whatever falls due on the way happens.

The fight operations need every combatant in the state they are given.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import replace
from datetime import timedelta

from .checks import require_alive, require_conscious
from .clock import run_clock
from .conditions import drop_conditions, effective, put_condition
from .dice import DiceSource
from .errors import (
    AlreadyInFight,
    FightAlreadyRunning,
    InvalidFight,
    InvalidSpend,
    NoFight,
    NothingLeftToSpend,
    NotInFight,
)
from .fight_state import Fight
from .outcome import Draft, Line, Outcome
from .state import (
    CAUSE_FIGHT,
    DEFAULT_RULESET,
    CampaignState,
    CharacterState,
    Condition,
    ConditionKind,
    Ruleset,
)
from .text import VITAL_TEXT, moment_words

ACTION = "action"
REFLEX = "reflex"

# what -> (Fight field, "une action", "an action", "restante", "d’action", "action")
_SPEND = {
    ACTION: ("actions_left", "une action", "an action", "restante", "d’action", "action"),
    REFLEX: ("reflexes_left", "un réflexe", "a reflex", "restant", "de réflexe", "reflex"),
}


def _say(draft: Draft, rule_id: str, fr: str, en: str, key: str | None = None) -> None:
    # Fight lines name the character inside the sentence ("Au tour de : Brann"), so they
    # skip `Draft.say`'s "Brann — " prefix yet stay tied to the character.
    draft.rule(rule_id)
    draft.lines.append(Line(fr, en, rule_id, key, draft.now))


def _counts(actions: int, reflexes: int) -> tuple[str, str]:
    # French puts 0 and 1 in the singular, English only 1.
    return (
        f"{actions} action{'s' * (actions > 1)}, {reflexes} réflexe{'s' * (reflexes > 1)}",
        f"{actions} action{'s' * (actions != 1)}, {reflexes} reflex{'es' * (reflexes != 1)}",
    )


def _budget(character: CharacterState) -> tuple[int, int]:
    numbers = effective(character)
    return numbers.actions, numbers.reflexes


def _require_fight(campaign: CampaignState) -> Fight:
    if campaign.fight is None:
        raise NoFight("Aucun combat en cours.", "No fight is running.")
    return campaign.fight


def _names(campaign: CampaignState, keys: Iterable[str]) -> str:
    return ", ".join(campaign.character(key).label for key in keys)


def _announce_round(draft: Draft, fight: Fight) -> None:
    # A round is a "manche" at a French table: "tour" is each combatant's turn within it.
    _say(draft, "R33", f"Manche {fight.round}", f"Round {fight.round}")
    for key, actions, reflexes in zip(
        fight.order, fight.actions_left, fight.reflexes_left, strict=True
    ):
        label = draft.char(key).label
        fr, en = _counts(actions, reflexes)
        _say(draft, "R33", f"{label} : {fr}", f"{label}: {en}", key)


def _announce_turn(draft: Draft, fight: Fight) -> None:
    character = draft.char(fight.current)
    # "Au tour de : Le Vicomte", not "Tour de Le Vicomte": a name may start with an article.
    fr, en = f"Au tour de : {character.label}", f"{character.label}'s turn"
    if not effective(character).conscious:
        # The turn still comes (the GM decides who stays in the order); say why it is empty.
        vital_fr, vital_en = VITAL_TEXT[character.vital]
        fr, en = f"{fr} ({vital_fr})", f"{en} ({vital_en})"
    _say(draft, "R33", fr, en, character.key)


def _end_surprise(draft: Draft, keys: Iterable[str]) -> None:
    """R25/R33: the Surpris the fight's start gave ends, unless the campaign leaves it to the
    GM. A Surpris of any other cause is the GM's and stays."""
    if draft.ruleset.surprise_ends_after_first_round:
        for key in keys:
            # Its budget is reset (a new round) or dropped (leaving, the end) by the caller.
            drop_conditions(draft, key, ConditionKind.SURPRIS, CAUSE_FIGHT, "R25", budget=False)


def _with_budgets(draft: Draft, fight: Fight, **changes: int) -> Fight:
    budgets = [_budget(draft.char(key)) for key in fight.order]
    return replace(
        fight,
        actions_left=tuple(actions for actions, _ in budgets),
        reflexes_left=tuple(reflexes for _, reflexes in budgets),
        **changes,
    )


def start_fight(
    campaign: CampaignState,
    keys: Iterable[str],
    *,
    surprised: Iterable[str] = (),
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """R33: a fight in the GM's order `keys` (no initiative roll), round 1, first turn.

    Each combatant's budget is its effective one (R4, R20–R25); an unconscious one may be
    put in (it has nothing to spend), a dead one may not. `surprised` combatants become
    Surpris (R25, cause `CAUSE_FIGHT`) unless they already are.
    """
    if campaign.fight is not None:
        raise FightAlreadyRunning(
            "Un combat est déjà en cours : terminez-le, ou changez son ordre.",
            "A fight is already running: end it, or change its order.",
        )
    order = tuple(keys)
    for key in order:
        require_alive(campaign.character(key))
    # Fight's own checks refuse a bad order or surprised list before anything is done; the
    # surprised are then kept in the order's order, the order the log names them in.
    empty = (0,) * len(order)
    fight = Fight(order, 1, 0, empty, empty, tuple(dict.fromkeys(surprised)))
    fight = replace(fight, surprised=tuple(key for key in order if key in fight.surprised))
    draft = Draft(campaign, None, ruleset)
    names = _names(campaign, order)
    _say(draft, "R33", f"Début du combat : {names}", f"The fight begins: {names}")
    for key in fight.surprised:
        if not draft.char(key).has(ConditionKind.SURPRIS):
            put_condition(draft, key, Condition(ConditionKind.SURPRIS, CAUSE_FIGHT), "R25")
    fight = _with_budgets(draft, fight)
    draft.set_campaign("fight", fight, "R33")
    _announce_round(draft, fight)
    _announce_turn(draft, fight)
    return draft.outcome()


def moves_clock(campaign: CampaignState, ruleset: Ruleset = DEFAULT_RULESET) -> bool:
    """Whether the next turn ends a round that moves the clock (R33, `round_seconds`)."""
    fight = campaign.fight
    return fight is not None and not fight.waiting and ruleset.round_seconds > 0


def next_turn(
    campaign: CampaignState,
    *,
    rng: random.Random | DiceSource,
    ruleset: Ruleset = DEFAULT_RULESET,
    defer: Iterable[str] = (),
) -> Outcome:
    """R33: the next combatant's turn; after the last one, a new round.

    A new round moves the clock by `Ruleset.round_seconds` when set, applying whatever falls
    due (R32, hence `rng`), ends the Surpris given at the start after round 1 (R25, when
    `Ruleset.surprise_ends_after_first_round`), then resets every budget to the effective
    one at that moment. R34: a roll due in those seconds for a character of `defer` stops
    the clock there; the new round (`new_round`) begins once it is answered.
    """
    fight = _require_fight(campaign)
    draft = Draft(campaign, rng, ruleset)
    if fight.waiting:
        # The next who has not had their turn, in the order as it stands (R33).
        done = (*fight.done, fight.current)
        fight = replace(fight, turn=fight.order.index(fight.waiting[0]), done=done)
        draft.set_campaign("fight", fight, "R33")
        _announce_turn(draft, fight)
        return draft.outcome()
    _say(draft, "R33", f"Fin de la manche {fight.round}", f"End of round {fight.round}")
    if ruleset.round_seconds > 0:
        start, target = draft.now, draft.now + timedelta(seconds=ruleset.round_seconds)
        start_fr, start_en = moment_words(start, seconds=True)
        target_fr, target_en = moment_words(target, seconds=True)
        _say(
            draft,
            "R33",
            f"La manche dure {ruleset.round_seconds} s : l’horloge avance du {start_fr} au "
            f"{target_fr}",
            f"The round lasts {ruleset.round_seconds} s: the clock moves from {start_en} to "
            f"{target_en}",
        )
        draft.defer = frozenset(defer)
        if not run_clock(draft, target, then=NEW_ROUND):
            _say(
                draft,
                "R34",
                f"La manche {fight.round + 1} commencera une fois le jet lancé",
                f"Round {fight.round + 1} begins once the roll is made",
            )
            return draft.outcome()
    new_round(draft, NEW_ROUND)
    return draft.outcome()


# R34: what the end of a round still does once its seconds have passed (`new_round`).
NEW_ROUND = {"action": "new_round"}


def new_round(draft: Draft, then: dict) -> None:
    """R33: the round after the one that ended: Surpris from the start ends after round 1
    (R25), budgets reset, its first turn. Nothing when the fight ended meanwhile (R34: the
    GM may end it while the clock waits)."""
    fight = draft.state.fight
    if fight is None:
        return
    if fight.round == 1:
        _end_surprise(draft, fight.surprised)
    fight = _with_budgets(draft, fight, round=fight.round + 1, turn=0, done=())
    draft.set_campaign("fight", fight, "R33")
    _announce_round(draft, fight)
    _announce_turn(draft, fight)


def spend(
    campaign: CampaignState, key: str, what: str, *, ruleset: Ruleset = DEFAULT_RULESET
) -> Outcome:
    """R33: `key` spends one "action" or one "reflex" of this round's budget, logged.

    Refused when none is left, when `key` is not in the fight, or unconscious or dead.
    """
    fight = _require_fight(campaign)
    if what not in _SPEND:
        raise InvalidSpend(
            f"On dépense une action ou un réflexe, pas « {what} ».",
            f"One spends an action or a reflex, not '{what}'.",
        )
    character = campaign.character(key)
    if key not in fight.order:
        raise NotInFight(
            f"{character.label} n’est pas dans le combat.",
            f"{character.label} is not in the fight.",
        )
    require_conscious(character)
    field, one_fr, one_en, left_fr, none_fr, none_en = _SPEND[what]
    index = fight.order.index(key)
    counts = list(getattr(fight, field))
    if counts[index] == 0:
        raise NothingLeftToSpend(
            f"{character.label} n’a plus {none_fr} cette manche (manche {fight.round}).",
            f"{character.label} has no {none_en} left this round (round {fight.round}).",
        )
    counts[index] -= 1
    left = counts[index]
    draft = Draft(campaign, None, ruleset)
    draft.set_campaign("fight", replace(fight, **{field: tuple(counts)}), "R33")
    _say(
        draft,
        "R33",
        f"{character.label} dépense {one_fr} ({left} {left_fr}{'s' * (left > 1)})",
        f"{character.label} spends {one_en} ({left} left)",
        key,
    )
    return draft.outcome()


def left_this_round(campaign: CampaignState, key: str) -> tuple[int, int]:
    """(actions, reflexes) `key` can still spend this round: the fight's counts, or nothing
    while unconscious or dead (its counts are reset, to 0, only at the next round)."""
    left = _require_fight(campaign).left(key)
    return left if effective(campaign.character(key)).conscious else (0, 0)


def set_order(
    campaign: CampaignState, keys: Iterable[str], *, ruleset: Ruleset = DEFAULT_RULESET
) -> Outcome:
    """R33: the GM reorders the fight, adds combatants or removes some.

    Combatants kept keep what they have left; new ones get their effective budget (a dead
    one is refused). A reorder never takes a turn away nor gives a second one: the turn
    stays with the same character, whoever had their turn this round keeps it had, and
    whoever has not will have it, in the new order. If the current one left, the turn goes
    to the first in the new order who has not had it (when all have, to the last: the GM
    ends the round from there). A combatant who leaves loses the Surpris the fight's start
    gave it, as the end of round 1 would.
    """
    return _reorder(campaign, tuple(keys), ruleset).outcome()


def join_fight(
    campaign: CampaignState,
    key: str,
    *,
    place: int | None = None,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """R33: `key` joins the running fight (reinforcements) at `place` (1 is first; None:
    last), with its effective budget (R4, R20–R25; a dead one is refused).

    Nobody else's turn changes (R33, third reading): whoever had their turn this round keeps
    it had, whoever has not will have it. The newcomer has its turn this round when its place
    comes after the current turn's; at the current turn's place or before, a place this round
    has passed, its first turn comes at the next round.
    """
    fight = _require_fight(campaign)
    character = campaign.character(key)
    if key in fight.order:
        raise AlreadyInFight(
            f"{character.label} est déjà dans le combat.",
            f"{character.label} is already in the fight.",
        )
    last = len(fight.order) + 1
    place = last if place is None else place
    if not 1 <= place <= last:
        raise InvalidFight(
            f"La place de {character.label} va de 1 à {last}, pas {place}.",
            f"{character.label}'s place goes from 1 to {last}, not {place}.",
        )
    order = (*fight.order[: place - 1], key, *fight.order[place - 1 :])
    later = place - 1 > fight.turn
    when = (
        ("son tour viendra dans cette manche", "their turn comes this round")
        if later
        else (
            f"son premier tour viendra à la manche {fight.round + 1}",
            f"their first turn comes in round {fight.round + 1}",
        )
    )
    return _reorder(
        campaign, order, ruleset, played=() if later else (key,), joined=(place, when)
    ).outcome()


def leave_fight(
    campaign: CampaignState, key: str, *, ruleset: Ruleset = DEFAULT_RULESET
) -> Outcome:
    """R33: `key` leaves the running fight (fled, out of the story); the others keep their
    turns had and to come. When it was its turn, the turn passes to the next who has not had
    it this round; when everyone else has had theirs, the next round begins at once, unless
    rounds move the clock (`Ruleset.round_seconds`): then the turn stays with the last in the
    order until « Tour suivant » ends the round, as `set_order` does. The last combatant
    cannot leave: the GM ends the fight instead."""
    fight = _require_fight(campaign)
    character = campaign.character(key)
    if key not in fight.order:
        raise NotInFight(
            f"{character.label} n’est pas dans le combat.",
            f"{character.label} is not in the fight.",
        )
    if len(fight.order) == 1:
        raise InvalidFight(
            f"{character.label} est seul·e dans le combat : terminez le combat plutôt.",
            f"{character.label} is alone in the fight: end the fight instead.",
        )
    order = tuple(other for other in fight.order if other != key)
    last_turn = key == fight.current and not fight.waiting
    if last_turn and ruleset.round_seconds == 0:
        # The round's last turn fled: the next turn is the next round's first, at once (a
        # round that moves the clock ends by « Tour suivant », which rolls what falls due).
        draft = _reorder(campaign, order, ruleset, announce=False)
        _say(draft, "R33", f"Fin de la manche {fight.round}", f"End of round {fight.round}")
        new_round(draft, NEW_ROUND)
        return draft.outcome()
    return _reorder(campaign, order, ruleset).outcome()


def _reorder(
    campaign: CampaignState,
    order: tuple[str, ...],
    ruleset: Ruleset,
    *,
    played: tuple[str, ...] = (),
    joined: tuple[int, tuple[str, str]] | None = None,
    announce: bool = True,
) -> Draft:
    """The fight in `order` (see `set_order`). `played`: newcomers counted as having had
    their turn this round; `joined`: the newcomer's place and when its turn comes, said in
    its line."""
    fight = _require_fight(campaign)
    joining = [key for key in order if key not in fight.order]
    leaving = [key for key in fight.order if key not in order]
    for key in joining:
        require_alive(campaign.character(key))
    draft = Draft(campaign, None, ruleset)
    names = _names(campaign, order)
    _say(draft, "R33", f"Ordre du combat : {names}", f"Fight order: {names}")
    for key in leaving:
        label = draft.char(key).label
        _say(draft, "R33", f"{label} quitte le combat", f"{label} leaves the fight", key)
        if key in fight.surprised:
            _end_surprise(draft, (key,))
    budgets = []
    for key in order:
        if key in fight.order:
            budgets.append(fight.left(key))
            continue
        budgets.append(_budget(draft.char(key)))
        label = draft.char(key).label
        fr, en = _counts(*budgets[-1])
        if joined is None:
            _say(
                draft,
                "R33",
                f"{label} rejoint le combat ({fr})",
                f"{label} joins the fight ({en})",
                key,
            )
        else:
            place, (when_fr, when_en) = joined
            _say(
                draft,
                "R33",
                f"{label} rejoint le combat à la place {place} ({fr}) : {when_fr}",
                f"{label} joins the fight in place {place} ({en}): {when_en}",
                key,
            )
    current = fight.current
    done = tuple(key for key in fight.done if key in order)
    if current in order:
        turn = order.index(current)
    else:
        waiting = [key for key in order if key not in done]
        turn = order.index(waiting[0]) if waiting else len(order) - 1
        done = tuple(key for key in done if key != order[turn])
    done = (*done, *(key for key in played if key != order[turn]))
    new = replace(
        fight,
        order=order,
        turn=turn,
        done=done,
        actions_left=tuple(actions for actions, _ in budgets),
        reflexes_left=tuple(reflexes for _, reflexes in budgets),
        surprised=tuple(key for key in fight.surprised if key in order),
    )
    draft.set_campaign("fight", new, "R33")
    if announce and new.current != current:
        _announce_turn(draft, new)
    return draft


def end_fight(campaign: CampaignState, *, ruleset: Ruleset = DEFAULT_RULESET) -> Outcome:
    """R33: the fight ends; a Surpris its start gave ends with it (R25, by the setting)."""
    fight = _require_fight(campaign)
    draft = Draft(campaign, None, ruleset)
    _say(draft, "R33", "Fin du combat", "The fight ends")
    _end_surprise(draft, fight.surprised)
    draft.set_campaign("fight", None, "R33")
    return draft.outcome()
