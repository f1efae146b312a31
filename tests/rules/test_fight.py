import dataclasses
import json

import pytest

from rules.engine import (
    CAUSE_FIGHT,
    DEFAULT_RULESET,
    Condition,
    ConditionKind,
    Fight,
    InvalidFight,
    NotInFight,
    describe_condition,
)
from tests.rules.util import campaign

ONE = Fight(("aria", "brann"), 2, 1, (1, 2), (0, 1), ("aria",))


def test_r33_no_fight_is_running_by_default():
    assert campaign().fight is None


def test_r33_the_default_ruleset_ends_surprise_after_round_1_and_rounds_take_no_time():
    assert DEFAULT_RULESET.surprise_ends_after_first_round is True
    assert DEFAULT_RULESET.round_seconds == 0


def test_r33_a_fight_goes_to_json_and_back():
    data = ONE.to_json()
    assert data == {
        "order": ["aria", "brann"],
        "round": 2,
        "turn": 1,
        "actions_left": [1, 2],
        "reflexes_left": [0, 1],
        "surprised": ["aria"],
    }
    assert Fight.from_json(json.loads(json.dumps(data))) == ONE
    # A generic dump of the dataclass (what the audit log does with a change's values) reads
    # back too.
    assert Fight.from_json(json.loads(json.dumps(dataclasses.asdict(ONE)))) == ONE


def test_r33_a_fight_is_a_hashable_value_stored_as_tuples():
    fight = Fight(["aria"], 1, 0, [2], [1])
    assert fight == Fight(("aria",), 1, 0, (2,), (1,)) and fight.order == ("aria",)
    assert hash(fight) == hash(Fight(("aria",), 1, 0, (2,), (1,)))
    assert Fight.from_json({k: v for k, v in fight.to_json().items() if k != "surprised"}) == fight


def test_r33_a_fight_knows_whose_turn_it_is_and_what_each_one_has_left():
    assert ONE.current == "brann"
    assert (ONE.left("aria"), ONE.left("brann")) == ((1, 0), (2, 1))
    with pytest.raises(NotInFight):
        ONE.left("gobelin")


@pytest.mark.parametrize(
    "changes",
    [
        {"order": (), "actions_left": (), "reflexes_left": (), "surprised": ()},
        {"order": ("aria", "aria")},
        {"surprised": ("gobelin",)},
        {"actions_left": (1,)},
        {"reflexes_left": (1, 1, 1)},
        {"actions_left": (-1, 2)},
        {"reflexes_left": (0, -1)},
        {"round": 0},
        {"turn": 2},
        {"turn": -1},
    ],
)
def test_r33_a_fight_that_breaks_the_rules_is_refused(changes):
    with pytest.raises(InvalidFight) as error:
        dataclasses.replace(ONE, **changes)
    assert error.value.code == "invalid_fight" and error.value.message_en


def test_r25_surpris_from_a_fights_start_says_how_it_ends():
    fr, en = describe_condition(Condition(ConditionKind.SURPRIS, CAUSE_FIGHT))
    assert fr.startswith("Surpris (début du combat) : aucun réflexe ; une seule action ; ")
    assert "fin du premier round" in fr
    assert en.startswith("Surprised (start of the fight): ") and "first round" in en
