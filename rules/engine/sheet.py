"""The sheet set by hand: PV and Flux moved through the rules they trigger (R1, R10, R15, R26),
several outcomes strung together as one, and one action on several characters (`each`).

A GM who writes a new number on the sheet does not skip the rules: PV set lower are damage
that ignores PA (R10's Survie test at 0), PV set higher are healing (R15), Flux set to 0 makes
the character Exténué (R26), and a maximum lowered below the current value brings it down (R1).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .dice import DiceSource
from .errors import RuleError
from .health import heal, restore_flux, spend_flux, take_damage
from .outcome import Outcome, replay
from .results import Change, Line
from .state import DEFAULT_RULESET, CampaignState, Ruleset, Vital

_BROUGHT_DOWN = {
    "pv": ("PV ramenés au nouveau maximum", "PV brought down to the new maximum"),
    "flux": ("Flux ramené au nouveau maximum", "Flux brought down to the new maximum"),
}


def by_hand(state: CampaignState, changes: Iterable[Change], lines: Iterable[Line] = ()) -> Outcome:
    """Changes the GM makes directly, replayed on `state`, with the rules they name."""
    changes = tuple(changes)
    rules = tuple(dict.fromkeys(c.rule_id for c in changes if c.rule_id))
    return Outcome(
        replay(state, changes), changes=changes, rules=rules, lines=tuple(lines), events=changes
    )


def set_resource(
    state: CampaignState,
    key: str,
    field: str,
    target: int,
    *,
    rng: DiceSource,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome | None:
    """PV or Flux (`field`) set by hand to `target`, through damage ignoring PA or healing,
    Flux spent or restored: whatever those trigger follows (R10, R15, R26). None when
    `target` is the current value."""
    current = getattr(state.character(key), field)
    if target == current:
        return None
    if field == "pv":
        if target < current:
            return take_damage(
                state, key, current - target, rng=rng, ignores_pa=True, ruleset=ruleset
            )
        return heal(state, key, target - current, ruleset=ruleset)
    if target < current:
        return spend_flux(state, key, current - target, ruleset=ruleset)
    return restore_flux(state, key, target - current, ruleset=ruleset)


def bring_down(
    state: CampaignState, key: str, field: str, target: int, *, ruleset: Ruleset = DEFAULT_RULESET
) -> Outcome | None:
    """R1: a current value above its new maximum `target` comes down to it. Flux comes down
    as Flux spent, so that 0 makes the character Exténué (R26). None when nothing is above."""
    character = state.character(key)
    current = getattr(character, field)
    if target >= current:
        return None
    if field == "flux" and character.vital is not Vital.DEAD:
        return spend_flux(state, key, current - target, ruleset=ruleset)
    # PV: the maximum is at least 1, so the value stays above 0 and no rule follows.
    fr, en = _BROUGHT_DOWN[field]
    line = Line(
        f"{character.label} — {fr} : {current} → {target}",
        f"{character.label} — {en}: {current} → {target}",
        "R1",
        key,
        state.clock,
    )
    change = Change(key, field, current, target, "R1", state.clock, True)
    return by_hand(state, [change], lines=[line])


class Steps:
    """Outcomes one after the other, each on the state the previous one left, joined into one
    Outcome whose events keep their order."""

    def __init__(self, state: CampaignState):
        self.state = state
        self.parts: list[Outcome] = []

    def then(self, outcome: Outcome | None) -> None:
        if outcome is not None:
            self.parts.append(outcome)
            self.state = outcome.state

    def by_hand(self, changes: Iterable[Change]) -> None:
        """The GM's own changes; those that change nothing are left out."""
        changes = [c for c in changes if c.before != c.after]
        if changes:
            self.then(by_hand(self.state, changes))

    def keep(self, changes: Iterable[Change]) -> None:
        """Changes to what the state does not hold (the sheet's words, its owner): in the
        outcome for the caller to log and write, not replayed."""
        changes = tuple(changes)
        if changes:
            self.parts.append(Outcome(self.state, changes=changes, events=changes))

    def outcome(self) -> Outcome:
        def joined(name):
            return tuple(item for part in self.parts for item in getattr(part, name))

        return Outcome(
            self.state,
            rolls=joined("rolls"),
            checks=joined("checks"),
            changes=joined("changes"),
            rules=tuple(dict.fromkeys(joined("rules"))),
            lines=joined("lines"),
            events=joined("events"),
            due=joined("due"),
        )


def each(
    state: CampaignState, keys: Iterable[str], step: Callable[[CampaignState, str], Outcome]
) -> Outcome:
    """One action on several characters (an explosion, a fall into a pit, a condition for every
    guard): `step(state, key)` for each key in turn, each on the state the previous left, so
    that each character gets their own rules (R10 for one who falls to 0, R26 for one whose
    Flux runs out, R34 for one whose player rolls), joined into one outcome. A refusal for one
    of them refuses the whole action, naming the character: nothing is applied."""
    steps = Steps(state)
    for key in keys:
        label = steps.state.character(key).label
        try:
            steps.then(step(steps.state, key))
        except RuleError as error:
            # The character is named once: a refusal that names them already is kept as it is.
            named = label in error.message_fr
            refused = type(error)(
                f"{'' if named else f'{label} : '}{error.message_fr} Rien n’a été appliqué.",
                f"{'' if named else f'{label}: '}{error.message_en} Nothing was applied.",
                rule_id=error.rule_id,
            )
            raise refused from error
    return steps.outcome()
