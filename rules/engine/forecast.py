"""What moving the clock would roll, before it moves (R32), with its exact odds.

A forecast runs the very operation the GM is about to make (the clock moved by minutes or to
the morning, a night, an hour's rest) and weighs every test it would roll on the way: R11's
hourly Survie in a coma (after that hour's PV), R13's waking tries, R31's Volonté after a
short night, each with the maluses of the moment (an illness ending at a morning, R30, ends
its malus for the tests after it). Nothing is sampled: the operation is explored branch by
branch, each test split into its passing and failing faces of the D20 (the rules read no more
of a test than whether it passed) and every other die into each of its faces, each branch with
its exact weight.

Characters are weighed one at a time, alone in the campaign: the clock's timers and rolls of
one never touch another's. The operation runs with the character's rolls left to the player
(R34's `defer`), so the clock stops before each one; each branch goes on from that stop
(`resume_clock`, `sleep_test`), and a long chain costs a step per test, not a replay per test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from fractions import Fraction

from .checks import OddsProbe, PlannedTest
from .clock import advance_clock, next_morning
from .outcome import Outcome
from .rest import hour_rest, night_rest, sleep_test
from .results import CheckPlan
from .resume import resume_clock
from .state import (
    CAUSE_SLEEP,
    DEFAULT_RULESET,
    CampaignState,
    CharacterState,
    ConditionKind,
    Ruleset,
    Vital,
)
from .text import SEVERITY_TEXT, count_en, count_fr

# The operation to weigh, on a campaign holding one character, with a dice source and the
# characters whose rules rolls stop it (R34).
Operation = Callable[[CampaignState, OddsProbe, frozenset[str]], Outcome]

_VITAL_SHORT = {
    Vital.UP: ("debout", "up"),
    Vital.BORROWED_TIME: ("en sursis", "on borrowed time"),
    Vital.COMA: ("coma", "coma"),
    Vital.STABILISED: ("stabilisé·e", "stabilised"),
}

# The tests the clock's actions roll, as a sentence counts them.
_TEST_NAMES = {
    "R11": (("test de Survie", "tests de Survie"), ("Survie test", "Survie tests")),
    "R13": (("essai de réveil", "essais de réveil"), ("waking try", "waking tries")),
    "R31": (("test de Volonté", "tests de Volonté"), ("Volonté test", "Volonté tests")),
}


class _NeedDie(Exception):
    def __init__(self, sides: int) -> None:
        super().__init__(sides)
        self.sides = sides


class _Path(OddsProbe):
    """Plays one branch: the faces chosen so far, in order; the first test or die past them
    stops the run with what it needs (`PlannedTest`, `_NeedDie`)."""

    def __init__(self, faces: tuple[int, ...]) -> None:
        self._faces = faces
        self._next = 0

    def weigh(self, plan: CheckPlan) -> None:
        if self._next == len(self._faces):
            raise PlannedTest(plan)

    def draw(self, sides: int) -> int:
        if self._next == len(self._faces):
            raise _NeedDie(sides)
        face = self._faces[self._next]
        self._next += 1
        return face


def _verdicts(plan: CheckPlan) -> list[tuple[int, Fraction]]:
    """One face for each verdict of the test (pass, fail) and the share of the D20 giving it."""
    faces: dict[bool, list[int]] = {}
    for natural in range(1, 21):
        faces.setdefault(plan.verdict(natural)[2], []).append(natural)
    return [(group[0], Fraction(len(group), 20)) for group in faces.values()]


def outcomes(run: Callable[[OddsProbe], Outcome]) -> list[tuple[Fraction, Outcome]]:
    """Every way `run(rng)` can end, each with its exact probability (they add up to 1)."""
    ends: list[tuple[Fraction, Outcome]] = []
    branches: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while branches:
        faces, weight = branches.pop()
        try:
            outcome = run(_Path(faces))
        except PlannedTest as planned:
            for face, share in _verdicts(planned.plan):
                branches.append(((*faces, face), weight * share))
        except _NeedDie as need:
            for face in range(1, need.sides + 1):
                branches.append(((*faces, face), weight / need.sides))
        else:
            ends.append((weight, outcome))
    return ends


def percent_text(probability: Fraction) -> str:
    """ "66 %", rounded to the nearest; never "0 %" for what may happen, nor "100 %" for
    what may not: "< 1 %", "> 99 %"."""
    if 0 < probability < Fraction(1, 200):
        return "< 1 %"
    if Fraction(199, 200) <= probability < 1:
        return "> 99 %"
    return f"{int(probability * 100 + Fraction(1, 2))} %"


@dataclass(frozen=True, slots=True)
class Forecast:
    """What the operation would roll for one character, and how likely the worst is.

    `tests`: (rule id, how many at most), in the order they first come; `death`: the chance
    of dying on the way (R11); `wake`: of waking up (R13, a stabilised character);
    `exhausted`: of ending Exténué from a short night (R31).
    """

    key: str
    label: str
    vital: Vital
    vai: int
    illness_fr: str
    illness_en: str
    tests: tuple[tuple[str, int], ...]
    death: Fraction
    wake: Fraction
    exhausted: Fraction

    def _text(self, lang: int) -> str:
        count = count_fr if lang == 0 else count_en
        about = [_VITAL_SHORT[self.vital][lang], f"VAI {self.vai}"]
        illness = (self.illness_fr, self.illness_en)[lang]
        if illness:
            about.append(illness)
        parts = [count(n, *_TEST_NAMES[rule][lang]) for rule, n in self.tests]
        risks = (
            (self.death, ("risque de mort", "risk of death")),
            (self.wake, ("chance de réveil", "chance of waking")),
            (self.exhausted, ("risque d’être Exténué·e", "risk of Exténué")),
        )
        parts += [f"{words[lang]} {percent_text(p)}" for p, words in risks if p]
        colon = " : " if lang == 0 else ": "
        return f"{self.label} ({', '.join(about)}){colon}{', '.join(parts)}"

    @property
    def fr(self) -> str:
        return self._text(0)

    @property
    def en(self) -> str:
        return self._text(1)


def _next_roll(outcome: Outcome, ruleset: Ruleset) -> Callable[[OddsProbe], Outcome]:
    """The roll the operation stopped at (R34), then whatever comes after it."""
    due, state = outcome.due[0], outcome.state
    if due.kind == "sleep":
        return lambda rng: sleep_test(state, due.key, rng=rng, ruleset=ruleset)
    return lambda rng: resume_clock(
        state,
        due.key,
        due.kind,
        rng=rng,
        to=due.target,  # type: ignore[arg-type]  # a clock's stop always says where it went
        ruleset=ruleset,
        defer=(due.key,),
        then=due.then,
    )


def _sleep_exhausted(character: CharacterState) -> bool:
    return any(
        c.kind is ConditionKind.EXTENUE and c.cause == CAUSE_SLEEP for c in character.conditions
    )


def _weigh(alone: CampaignState, key: str, operation: Operation, ruleset: Ruleset) -> Forecast:
    start = alone.character(key)
    most: dict[str, int] = {}
    death = wake = exhausted = Fraction(0)
    steps: list[tuple[Fraction, Callable[[OddsProbe], Outcome], dict[str, int]]] = [
        (Fraction(1), lambda rng: operation(alone, rng, frozenset((key,))), {})
    ]
    while steps:
        weight, run, counted = steps.pop()
        for share, outcome in outcomes(run):
            chance = weight * share
            seen = dict(counted)
            for check in outcome.checks:
                seen[check.rule_id] = seen.get(check.rule_id, 0) + 1
            if outcome.due:
                steps.append((chance, _next_roll(outcome, ruleset), seen))
                continue
            for rule, n in seen.items():
                most[rule] = max(most.get(rule, 0), n)
            end = outcome.character(key)
            death += chance if end.vital is Vital.DEAD else 0
            wake += chance if start.vital is Vital.STABILISED and end.vital is Vital.UP else 0
            fresh = _sleep_exhausted(end) and not _sleep_exhausted(start)
            exhausted += chance if fresh else 0
    illness = ("", "") if start.illness is None else SEVERITY_TEXT[start.illness.severity]
    return Forecast(
        key,
        start.label,
        start.vital,
        start.stat("VAI", ruleset),
        *illness,
        tests=tuple(most.items()),
        death=death,
        wake=wake,
        exhausted=exhausted,
    )


def may_die_on_the_clock(character: CharacterState) -> bool:
    """R10/R11: the clock rolls for a life only in a coma (or on borrowed time, which ends in
    one); a stabilised character only tries to wake (R13), the others roll nothing."""
    return character.vital in (Vital.COMA, Vital.BORROWED_TIME)


def forecast(
    campaign: CampaignState,
    operation: Operation,
    *,
    ruleset: Ruleset = DEFAULT_RULESET,
    keys: Iterable[str] | None = None,
) -> tuple[Forecast, ...]:
    """Each living character (of `keys`, or all) for whom `operation` would roll a test, with
    what it rolls and how likely the worst is, exactly. A `RuleError` the operation raises
    goes up as it is."""
    wanted = None if keys is None else set(keys)
    forecasts = []
    for character in campaign.characters:
        if character.vital is Vital.DEAD or (wanted is not None and character.key not in wanted):
            continue
        alone = replace(campaign, characters=(character,))
        weighed = _weigh(alone, character.key, operation, ruleset)
        if weighed.tests:
            forecasts.append(weighed)
    return tuple(forecasts)


def forecast_clock(
    campaign: CampaignState,
    *,
    minutes: float | None = None,
    to_morning: bool = False,
    ruleset: Ruleset = DEFAULT_RULESET,
    keys: Iterable[str] | None = None,
) -> tuple[Forecast, ...]:
    """`forecast` of `advance_clock` by `minutes`, or to the next morning (for `keys`)."""
    to: datetime | None = next_morning(campaign.clock, ruleset) if to_morning else None
    return forecast(
        campaign,
        lambda state, rng, defer: advance_clock(
            state,
            rng=rng,
            minutes=None if to_morning else minutes,
            to=to,
            ruleset=ruleset,
            defer=defer,
        ),
        ruleset=ruleset,
        keys=keys,
    )


def forecast_night(
    campaign: CampaignState,
    *,
    hours: float,
    keys: Iterable[str] | None = None,
    poor_quality: bool = False,
    clinic_keys: Iterable[str] = (),
    ruleset: Ruleset = DEFAULT_RULESET,
) -> tuple[Forecast, ...]:
    """`forecast` of `night_rest` with the same arguments."""
    chosen = None if keys is None else tuple(keys)
    clinic = tuple(clinic_keys)

    def night(state: CampaignState, rng: OddsProbe, defer: frozenset[str]) -> Outcome:
        here = {c.key for c in state.characters}
        return night_rest(
            state,
            hours=hours,
            rng=rng,
            keys=None if chosen is None else [k for k in chosen if k in here],
            poor_quality=poor_quality,
            clinic_keys=[k for k in clinic if k in here],
            ruleset=ruleset,
            defer=defer,
        )

    return forecast(campaign, night, ruleset=ruleset)


def forecast_hour_rest(
    campaign: CampaignState, *, gm_override: bool = False, ruleset: Ruleset = DEFAULT_RULESET
) -> tuple[Forecast, ...]:
    """`forecast` of `hour_rest`: the coma hours and waking tries of that hour."""
    return forecast(
        campaign,
        lambda state, rng, defer: hour_rest(
            state, rng=rng, gm_override=gm_override, ruleset=ruleset, defer=defer
        ),
        ruleset=ruleset,
    )
