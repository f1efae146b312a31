"""journal.audit.from_json turns a change's stored before/after back into engine values."""

import json
from datetime import UTC, datetime

import pytest

from characters.state import SHEET_FIELDS
from journal.audit import from_json, to_json
from rules import engine

MOMENT = datetime(2000, 1, 3, 14, 20, 5, 123456, tzinfo=UTC)

VALUES = {
    "pv": [-3, 0, 14],
    "pv_max": [14],
    "flux": [0, 7],
    "flux_max": [10],
    "pa": [2],
    "actions": [0, 2],
    "reflexes": [1],
    "scene": [4],
    "hour_rests_used": [1],
    "pending_hour_rest": [None, 3],
    "sleep_deprived": [True, False],
    "in_play": [True, False],
    "down_cause": ["", "chute"],
    "vital": list(engine.Vital),
    "coma_due": [None, MOMENT],
    "next_coma_hour": [MOMENT],
    "stabilised_at": [MOMENT],
    "last_wake_try": [None, MOMENT],
    "wake_tries_from": [None, MOMENT],
    "fight": [
        None,
        engine.Fight(
            order=("1", "2"),
            round=2,
            turn=1,
            actions_left=(1, 2),
            reflexes_left=(0, 1),
            surprised=("1",),
        ),
    ],
    "clock": [MOMENT],
    "conditions": [
        (),
        (
            engine.Condition(engine.ConditionKind.EXTENUE, engine.CAUSE_FLUX),
            engine.Condition(engine.ConditionKind.EBRANLE, "gm"),
        ),
    ],
    "sequels": [
        (),
        (
            engine.Sequel("VAI", "Une toux sanglante", 5, MOMENT),
            engine.Sequel("ADR", "", 1, None),
        ),
    ],
    "illness": [None, engine.Illness(engine.Severity.SEVERE, 3, "Fièvre des marais")],
    "stats": [(("ADR", 2), ("VAI", -1))],
    "name": ["Isaure"],
    "gender": ["iel", "elle", "il"],
    # The sheet's fields beyond the engine's state (characters.state.SHEET_FIELDS).
    "kind": ["pc", "npc"],
    "owner": [None, 7],
    "public_notes": ["", "Porte une lanterne bleue."],
    "gm_notes": ["Secrète"],
}


@pytest.mark.parametrize(
    ("field", "value"), [(f, v) for f, values in VALUES.items() for v in values]
)
def test_from_json_round_trips_each_field_kind(field, value):
    stored = json.loads(json.dumps(to_json(value)))  # what the JSON column gives back
    restored = from_json(field, stored)
    assert restored == value
    assert type(restored) is type(value)


def test_from_json_gives_enums_and_aware_datetimes():
    assert from_json("vital", "coma") is engine.Vital.COMA
    restored = from_json("sequels", to_json((engine.Sequel("PUI", "x", 2, MOMENT),)))
    assert restored[0].at.tzinfo is not None
    assert from_json("illness", to_json(engine.Illness(engine.Severity.MILD, 0))).severity is (
        engine.Severity.MILD
    )


def test_every_field_a_change_can_record_is_covered():
    fields = {f for f in engine.CharacterState.__dataclass_fields__} | {
        f for f in engine.CampaignState.__dataclass_fields__
    }
    fields -= {"key", "characters"}
    fields |= set(SHEET_FIELDS)
    assert fields <= set(VALUES), fields - set(VALUES)
