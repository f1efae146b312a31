"""R34: no state leaves a requested rules roll that nobody can close.

Random table actions while players' rules rolls wait (the clock held, as the services hold
it): after each action, every roll the rules no longer call for lapses (`lapse_roll`), and
every one still waiting can be answered; once all are closed the clock moves.
"""

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.engine import (
    ConditionKind,
    RuleError,
    Ruleset,
    ScriptedDice,
    Vital,
    add_condition,
    advance_clock,
    attempt_stabilise,
    attempt_wake,
    deaths_door_test,
    gm_end_coma,
    gm_revive,
    heal,
    lapse_roll,
    night_rest,
    remove_condition,
    resume_clock,
    rules_roll_due,
    sleep_test,
    spend_flux,
    take_damage,
)
from tests.rules.util import campaign, hero

KEYS = ("a", "b")
NO_DICE = ScriptedDice([])


def _start(scene: int, pv: int):
    """A campaign where a roll waits for a player: the clock stopped at an hour of coma (R11)
    or a waking try (R13), R10's Survie at 0 PV, or R31's Volonté after a short night."""
    from datetime import timedelta

    base = campaign(hero("a"), hero("b"))
    clock = base.clock
    if scene == 0:
        a = hero("a", pv=-2 - pv, vital=Vital.COMA, next_coma_hour=clock + timedelta(hours=1))
        outcome = advance_clock(campaign(a, hero("b")), minutes=300, rng=NO_DICE, defer=KEYS)
    elif scene == 1:
        a = hero("a", pv=-pv, vital=Vital.STABILISED, stabilised_at=clock)
        outcome = night_rest(campaign(a, hero("b")), hours=8, rng=NO_DICE, defer=KEYS)
    elif scene == 2:
        outcome = take_damage(base, "a", 10 + pv, rng=NO_DICE, defer=KEYS)
    else:
        outcome = night_rest(base, hours=3, rng=NO_DICE, defer=KEYS)
    return outcome


def _act(state, ruleset, rng, op, key, amount):
    other = "b" if key == "a" else "a"
    match op:
        case "damage":
            return take_damage(state, key, amount, rng=rng, ruleset=ruleset, defer=KEYS)
        case "heal":
            return heal(state, key, amount, ruleset=ruleset)
        case "stabilise":
            return attempt_stabilise(state, key, rng=rng, healer_key=other, ruleset=ruleset)
        case "wake":
            return attempt_wake(state, key, rng=rng, ruleset=ruleset)
        case "end_coma":
            return gm_end_coma(state, key, ruleset=ruleset)
        case "revive":
            return gm_revive(state, key, pv=1 + amount, ruleset=ruleset)
        case "kill":
            character = state.character(key)
            return None, state.with_character(replace(character, vital=Vital.DEAD))
        case "paralyse":
            return add_condition(state, key, ConditionKind.PARALYSE, ruleset=ruleset)
        case "free":
            return remove_condition(state, key, ConditionKind.PARALYSE, ruleset=ruleset)
        case "flux":
            return spend_flux(state, key, min(amount, state.character(key).flux), ruleset=ruleset)
    return None, state


OPS = st.sampled_from(
    [
        "damage",
        "heal",
        "stabilise",
        "wake",
        "end_coma",
        "revive",
        "kill",
        "paralyse",
        "free",
        "flux",
        "tries_off",
        "tries_on",
    ]
)
STEPS = st.lists(st.tuples(OPS, st.sampled_from(KEYS), st.integers(0, 12)), max_size=12)


def _answer(state, due, ruleset, rng):
    if due.kind == "deaths_door":
        return deaths_door_test(state, due.key, rng=rng, ruleset=ruleset)
    if due.kind == "sleep":
        return sleep_test(state, due.key, rng=rng, ruleset=ruleset)
    return resume_clock(
        state, due.key, due.kind, rng=rng, to=due.target, then=due.then, ruleset=ruleset
    )


def _ask(waiting, dues):
    """A request per due roll, unless the same one already waits (as the services ask)."""
    for due in dues:
        if not any((w.key, w.kind) == (due.key, due.kind) for w in waiting):
            waiting.append(due)


def _lapse(state, waiting, ruleset, rng):
    """Every waiting roll the rules no longer call for lapses, in the order they were asked;
    a clock going on may ask a new one."""
    changed = True
    while changed:
        changed = False
        for due in list(waiting):
            if rules_roll_due(state, due.key, due.kind, ruleset):
                continue
            waiting.remove(due)
            outcome = lapse_roll(
                state,
                due.key,
                due.kind,
                rng=rng,
                to=due.target,
                then=due.then,
                ruleset=ruleset,
                defer=KEYS,
            )
            state = outcome.state
            _ask(waiting, outcome.due)
            changed = True
            break
    return state


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 3), st.integers(0, 4), STEPS, st.integers(0, 2**32))
def test_r34_every_waiting_roll_can_always_be_closed_and_then_the_clock_moves(
    scene, pv, steps, seed
):
    rng = random.Random(seed)
    ruleset = Ruleset()
    first = _start(scene, pv)
    state, waiting = first.state, list(first.due)
    assert waiting  # every scene starts with a roll waiting
    for op, key, amount in steps:
        if op in ("tries_off", "tries_on"):
            ruleset = Ruleset(automatic_wake_tries=op == "tries_on")
        else:
            try:
                outcome = _act(state, ruleset, rng, op, key, amount)
            except RuleError:
                continue
            if isinstance(outcome, tuple):
                state = outcome[1]
            else:
                state = outcome.state
                _ask(waiting, outcome.due)
        state = _lapse(state, waiting, ruleset, rng)
        # Whatever still waits is the roll the rules call for: its answer is played.
        for due in waiting:
            assert rules_roll_due(state, due.key, due.kind, ruleset)
            _answer(state, due, ruleset, random.Random(seed))
    # Close them all, by answer or lapse: nothing stays waiting, and the clock moves.
    while waiting:
        due = waiting.pop(0)
        if rules_roll_due(state, due.key, due.kind, ruleset):
            outcome = _answer(state, due, ruleset, rng)
        else:
            outcome = lapse_roll(
                state, due.key, due.kind, rng=rng, to=due.target, then=due.then, ruleset=ruleset
            )
        assert outcome.due == ()
        if due.target is not None:
            assert outcome.state.clock >= due.target
        state = outcome.state
        state = _lapse(state, waiting, ruleset, rng)
    moved = advance_clock(state, minutes=60, rng=rng, ruleset=ruleset)
    assert moved.state.clock > state.clock
