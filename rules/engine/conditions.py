"""Conditions (R20–R26): their effects, how they combine, how they are added and removed."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, replace

from .availability import require_add_condition, require_remove_condition
from .checks import require_conscious, roll_check
from .dice import DiceSource
from .errors import ConditionNotPresent
from .outcome import Draft, Outcome
from .results import Modifier
from .state import (
    CAUSE_GM,
    DEFAULT_RULESET,
    CampaignState,
    CharacterState,
    Condition,
    ConditionKind,
    Ruleset,
    Vital,
)
from .text import cause_text, condition_name
from .words import agree, inclusive

CONDITION_RULE = {
    ConditionKind.EBRANLE: "R20",
    ConditionKind.EXTENUE: "R21",
    ConditionKind.GENE: "R22",
    ConditionKind.IMMOBILISE: "R23",
    ConditionKind.PARALYSE: "R24",
    ConditionKind.SURPRIS: "R25",
}
EBRANLE_PA_LOSS = 3  # R20


@dataclass(frozen=True, slots=True)
class Effective:
    """What a character can do right now, all conditions and its vital state combined."""

    actions: int
    reflexes: int
    pa: int
    can_move: bool
    can_travel_far: bool
    odd_d20_zero: bool
    conscious: bool


def effective(character: CharacterState) -> Effective:
    """Combine every condition (R20–R25) with the R4 base counts; counts never go below 0.

    An unconscious or dead character has no action, reflex or movement (R10–R16).
    """
    kinds = {c.kind for c in character.conditions}
    conscious = character.vital in (Vital.UP, Vital.BORROWED_TIME)
    actions = character.actions - (ConditionKind.GENE in kinds)
    if ConditionKind.SURPRIS in kinds:
        actions = min(actions, 1)
    no_reflex = {ConditionKind.EBRANLE, ConditionKind.SURPRIS, ConditionKind.PARALYSE}
    if ConditionKind.PARALYSE in kinds or not conscious:
        actions = 0
    return Effective(
        actions=max(0, actions),
        reflexes=0 if kinds & no_reflex or not conscious else max(0, character.reflexes),
        pa=max(0, character.pa - EBRANLE_PA_LOSS * (ConditionKind.EBRANLE in kinds)),
        can_move=conscious and ConditionKind.IMMOBILISE not in kinds,
        can_travel_far=conscious and ConditionKind.EXTENUE not in kinds,
        odd_d20_zero=bool(kinds & {ConditionKind.EXTENUE, ConditionKind.IMMOBILISE}),
        conscious=conscious,
    )


def rebudget(draft: Draft, key: str, before: CharacterState, rule_id: str) -> None:
    """R33/R20–R25: a combatant's conditions or state changed during a round: what is left
    this round is the new effective budget minus what was already spent, never below 0."""
    fight = draft.state.fight
    if fight is None or key not in fight.order:
        return
    old, new = effective(before), effective(draft.char(key))
    index = fight.order.index(key)
    counts = []
    for field, was, now in (
        ("actions_left", old.actions, new.actions),
        ("reflexes_left", old.reflexes, new.reflexes),
    ):
        left = list(getattr(fight, field))
        spent = max(0, was - left[index])
        left[index] = max(0, now - spent)
        counts.append(tuple(left))
    changed = replace(fight, actions_left=counts[0], reflexes_left=counts[1])
    if changed == fight:
        return
    draft.set_campaign("fight", changed, rule_id)
    actions, reflexes = changed.left(key)
    draft.say(
        "R33",
        f"reste cette manche : {actions} action{'s' * (actions > 1)}, "
        f"{reflexes} réflexe{'s' * (reflexes > 1)}",
        f"left this round: {actions} action{'s' * (actions != 1)}, "
        f"{reflexes} reflex{'es' * (reflexes != 1)}",
        key,
    )


def put_condition(draft: Draft, key: str, condition: Condition, rule_id: str) -> None:
    character = draft.char(key)
    if condition in character.conditions:
        return
    draft.set(key, "conditions", (*character.conditions, condition), rule_id)
    fr, en = condition_name(condition.kind)
    cause_fr, cause_en = cause_text(condition.cause)
    # Said of the character: `say` makes the name agree (« Aveline devient Gênée »).
    fr = inclusive(fr)
    draft.say(rule_id, f"devient {fr} ({cause_fr})", f"becomes {en} ({cause_en})", key)
    rebudget(draft, key, character, rule_id)


def drop_conditions(
    draft: Draft,
    key: str,
    kind: ConditionKind,
    cause: str | None,
    rule_id: str,
    *,
    by_gm: bool = False,
    budget: bool = True,
) -> bool:
    """Remove `kind` (of `cause`, or of any cause when None); say whether one was there.
    `budget=False`: the fight resets or drops this combatant's budget itself (a new round,
    the fight's end, leaving it), so what is left this round is not recounted."""
    character = draft.char(key)
    kept = tuple(
        c for c in character.conditions if not (c.kind is kind and cause in (None, c.cause))
    )
    if kept == character.conditions:
        return False
    draft.set(key, "conditions", kept, rule_id, by_gm=by_gm)
    fr, en = condition_name(kind)
    draft.say(rule_id, f"n’est plus {inclusive(fr)}", f"is no longer {en}", key)
    if budget:
        rebudget(draft, key, character, rule_id)
    return True


def add_condition(
    campaign: CampaignState,
    key: str,
    kind: ConditionKind,
    *,
    cause: str = CAUSE_GM,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """Give a condition (R20–R25) with its cause; the same kind and cause twice is one."""
    require_add_condition(campaign.character(key))
    draft = Draft(campaign, None, ruleset)
    put_condition(draft, key, Condition(kind, cause), CONDITION_RULE[kind])
    return draft.outcome()


def remove_condition(
    campaign: CampaignState,
    key: str,
    kind: ConditionKind,
    *,
    cause: str | None = None,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """The GM removes a condition by hand (R26), of one cause or of every cause."""
    character = campaign.character(key)
    require_remove_condition(character)
    draft = Draft(campaign, None, ruleset)
    if not drop_conditions(draft, key, kind, cause, "R26", by_gm=True):
        fr, en = condition_name(kind)
        raise ConditionNotPresent(
            f"{character.label} n’est pas {agree(inclusive(fr), character.gender)}.",
            f"{character.label} is not {en}.",
        )
    return draft.outcome()


def attempt_free(
    campaign: CampaignState,
    key: str,
    stat: str,
    *,
    rng: random.Random | DiceSource,
    skill: str | None = None,
    difficulty: int | None = None,
    modifiers: Iterable[Modifier] = (),
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """R23: a suitable test to break free; success ends every Immobilisé condition."""
    character = campaign.character(key)
    require_conscious(character)
    if not character.has(ConditionKind.IMMOBILISE):
        raise ConditionNotPresent(
            f"{character.label} n’est pas Immobilisé.", f"{character.label} is not Immobilised."
        )
    draft = Draft(campaign, rng, ruleset)
    result = roll_check(
        draft,
        key,
        stat,
        skill=skill,
        difficulty=difficulty,
        modifiers=tuple(modifiers),
        rule_id="R23",
    )
    if result.success:
        drop_conditions(draft, key, ConditionKind.IMMOBILISE, None, "R23")
    return draft.outcome()
