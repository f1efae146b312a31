from datetime import UTC, datetime, timedelta

import pytest

from rules.engine import (
    Illness,
    InvalidClockMove,
    Ruleset,
    ScriptedDice,
    Severity,
    Vital,
    advance_clock,
    next_morning,
)
from rules.engine.text import moment_text
from tests.rules.util import EVENING, campaign, hero

NO_DICE = ScriptedDice([])
HOUR = timedelta(hours=1)


def test_r32_the_clock_moves_by_minutes_or_to_a_time():
    assert advance_clock(campaign(), minutes=10, rng=NO_DICE).state.clock == EVENING + timedelta(
        minutes=10
    )
    target = datetime(2024, 5, 3, 9, 30)
    outcome = advance_clock(campaign(), to=target, rng=NO_DICE)
    assert outcome.state.clock == target
    # Game time as the dashboard writes it: days counted from 2000-01-01, day 1 (R32).
    assert (
        outcome.explanation_fr == "R32 · l’horloge avance du jour 8888 à 20:00 au jour 8890 à 09:30"
    )
    assert outcome.explanation_en == "R32 · the clock moves from day 8888, 20:00 to day 8890, 09:30"


def test_r32_the_clock_never_goes_back_and_needs_one_target():
    with pytest.raises(InvalidClockMove):
        advance_clock(campaign(), minutes=-1, rng=NO_DICE)
    with pytest.raises(InvalidClockMove):
        advance_clock(campaign(), rng=NO_DICE)
    with pytest.raises(InvalidClockMove):
        advance_clock(campaign(), minutes=1, to=EVENING, rng=NO_DICE)


def test_r32_next_morning_is_the_morning_hour_strictly_after():
    assert next_morning(EVENING) == datetime(2024, 5, 2, 6, 0)
    assert next_morning(datetime(2024, 5, 2, 6, 0)) == datetime(2024, 5, 3, 6, 0)
    assert next_morning(datetime(2024, 5, 2, 5, 59)) == datetime(2024, 5, 2, 6, 0)
    assert next_morning(EVENING, Ruleset(morning_hour=8)) == datetime(2024, 5, 2, 8, 0)


def test_r32_everything_due_happens_in_time_order_for_every_character():
    borrowed = hero("b", vital=Vital.BORROWED_TIME, pv=-1, coma_due=EVENING + timedelta(minutes=10))
    coma = hero("c", vital=Vital.COMA, pv=-2, next_coma_hour=EVENING + timedelta(minutes=30))
    awake = hero("s", vital=Vital.STABILISED, pv=-1, stabilised_at=EVENING - timedelta(minutes=15))
    ill = hero("i", illness=Illness(Severity.ILL, 1))
    state = campaign(borrowed, coma, awake, ill, hour_rests_used=1)
    # c at 20:30 (test 8 ok), s at 20:45 (wake 3 fails), b's coma 21:10 first hour (no test),
    # c 21:30 (test 9 ok), s 21:45 (wake 4 fails) ... up to 22:00.
    outcome = advance_clock(state, minutes=120, rng=ScriptedDice([8, 3, 9, 4]))
    assert [(c.character_key, c.at.strftime("%H:%M"), c.rule_id) for c in outcome.checks] == [
        ("c", "20:30", "R11"),
        ("s", "20:45", "R13"),
        ("c", "21:30", "R11"),
        ("s", "21:45", "R13"),
    ]
    b = outcome.character("b")
    assert b.vital is Vital.COMA and b.pv == -2
    assert outcome.state.hour_rests_used == 1  # 18:00 is behind, 06:00 not reached
    times = [change.at for change in outcome.changes]
    assert times == sorted(times)
    assert outcome.changes[-1].field == "clock"


def test_r32_a_campaign_event_comes_before_a_character_event_at_the_same_time():
    coma = hero("c", vital=Vital.COMA, pv=-1, next_coma_hour=datetime(2024, 5, 2, 6, 0))
    state = campaign(coma, hero("i", illness=Illness(Severity.ILL, 3)))
    outcome = advance_clock(state, to=datetime(2024, 5, 2, 6, 0), rng=NO_DICE)
    assert [c.character_key for c in outcome.changes[:2]] == ["i", "c"]


def test_r32_an_overdue_timer_is_applied_at_its_own_time():
    late = hero("c", vital=Vital.COMA, pv=0, next_coma_hour=EVENING - HOUR)
    outcome = advance_clock(campaign(late), minutes=0, rng=NO_DICE)
    assert outcome.character("c").pv == -2
    assert [c.at for c in outcome.changes if c.field == "pv"] == [EVENING - HOUR, EVENING]


def test_r32_timers_missing_from_a_state_do_nothing():
    state = campaign(
        hero("b", vital=Vital.BORROWED_TIME, pv=-1),
        hero("c", vital=Vital.COMA, pv=-1),
        hero("s", vital=Vital.STABILISED, pv=-1),
    )
    assert advance_clock(state, minutes=240, rng=NO_DICE).checks == ()


def test_r32_rolls_carry_their_game_time():
    coma = hero("c", vital=Vital.COMA, pv=-2, next_coma_hour=EVENING + HOUR)
    outcome = advance_clock(campaign(coma), minutes=60, rng=ScriptedDice([3]))
    assert outcome.checks[0].at == EVENING + HOUR
    assert outcome.checks[0].roll.at == EVENING + HOUR


def test_r32_a_waking_try_succeeds_on_the_clock_and_stops_the_tries():
    awake = hero("s", vital=Vital.STABILISED, pv=-1, stabilised_at=EVENING)
    outcome = advance_clock(campaign(awake), minutes=300, rng=ScriptedDice([8, 6]))
    assert len(outcome.checks) == 1 and outcome.character("s").vital is Vital.UP
    assert outcome.character("s").sequels[0].stat == "SAV"


def test_r32_game_time_is_written_as_the_dashboard_writes_it():
    # Day 1 is 2000-01-01, the day every campaign's clock starts on (campaign/models.py).
    assert moment_text(datetime(2000, 1, 1, 8, tzinfo=UTC)) == ("jour 1, 08:00", "day 1, 08:00")
    assert moment_text(datetime(2000, 1, 2, 6, 0, 5), seconds=True) == (
        "jour 2, 06:00:05",
        "day 2, 06:00:05",
    )
