"""The services' contract (docs/architecture.md, "How a change flows"), not the rules' arithmetic.

tests/rules proves what each rule does to an engine state; these prove what every service does
around the engine: it is reachable by name with keyword-only arguments; the rows read back give
exactly the engine's new state; the log holds one row per check, roll and change of the outcome,
in order, and says who rolled (R9); the write is published from inside its transaction,
delivered once committed and never for a rollback; a refusal (a `RuleError`, typed-in dice left
unused, a failure while writing) leaves rows, log and streams as they were.

Dice are typed in (`dice=[…]`, R9) unless a test scripts the server's. The fixtures' numbers
(tests/conftest.py): Isaure (pc) PV 11/14, Flux 7/10, PA 2, VAI 1, ESP 3; Gaspard (other_pc)
PV 18/18, Flux 6/6, PA 4, ESP 0; the clock starts at day 1, 08:00.
"""

import asyncio
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.db import connection, transaction

from campaign import services as campaign_services
from campaign.models import Campaign
from characters import state as rows_state
from characters.models import Character, Condition, Illness, Sequel
from journal import events as live
from journal.audit import to_json
from journal.models import AuditEntry
from play import services
from play.services import runner
from rules import engine
from tests.helpers import db_state
from tests.play.steps import T0, at, log, put, summary

EXTENUE_DEATHS_DOOR = {"kind": "extenue", "cause": "deaths_door"}


@pytest.fixture
def server_dice(monkeypatch):
    """Script the server's rolls: `server_dice(14, 3)` (logged as server rolls, not typed-in)."""

    def script(*values):
        monkeypatch.setattr(
            runner, "dice_source", lambda typed: engine.ScriptedDice(values, typed_in=False)
        )

    return script


@pytest.fixture
def published(monkeypatch):
    events = []
    monkeypatch.setattr(runner, "publish", lambda *args, **_: events.append(args))
    return events


def reload(character) -> Character:
    return Character.objects.get(pk=character.pk)


# ---------------------------------------------------------------------------------------------
# One case per public service: the state it needs and keyword arguments that make it write


@dataclass(frozen=True)
class Case:
    arguments: Callable  # world -> the service's keyword arguments
    setup: Callable = lambda world: None  # world -> None: the rows the call needs


def _coma(world):
    put(world.pc, pv=-2, vital="coma", next_coma_hour=at(minutes=30))


def _borrowed_time(world):
    put(
        world.pc,
        pv=-1,
        vital="borrowed_time",
        coma_due=at(minutes=10),
        conditions=[("extenue", "deaths_door"), ("gene", "gm")],
    )


def _ill(world):
    Sequel.objects.create(character=world.pc, stat="ADR", cause="chute", d6=1, gained_at=T0)
    Illness.objects.create(character=world.pc, name="toux", severity=2, days_left=4, started_at=T0)


def _pending_hour_rest(world):
    Campaign.objects.filter(pk=world.campaign.pk).update(pending_hour_rest=3, hour_rests_used=1)


def _fighting(world, *, surprised=()):
    """A fight (R33): Isaure then Gaspard, round 1, Isaure's turn."""
    services.fight_start(
        campaign_id=world.campaign.pk,
        actor=world.gm,
        character_ids=[world.pc.pk, world.other_pc.pk],
        surprised_ids=surprised,
    )


def _last_turn_of_round_1(world):
    # Rounds of a minute; the NPC, not fighting, in a coma whose hour falls in the round.
    Campaign.objects.filter(pk=world.campaign.pk).update(round_seconds=60)
    put(world.npc, pv=-2, vital="coma", next_coma_hour=at(minutes=1))
    _fighting(world, surprised=[world.pc.pk])
    services.fight_next_turn(campaign_id=world.campaign.pk, actor=world.gm)


def _reflex_spent(world):
    # Isaure has 1 reflex a round (R4): spent, none is left this round.
    _fighting(world)
    services.fight_spend(character_id=world.pc.pk, actor=world.gm, what="reflex")


def _a_damage_to_undo(world):
    services.character_damage(character_id=world.pc.pk, actor=world.gm, amount=14, dice=[1])


CASES = {
    "character_damage": Case(
        lambda w: {
            "character_id": w.pc.pk,
            "amount": 12,
            "ignores_pa": True,
            "cause": "brûlure",
            "dice": [14],
        }
    ),
    "character_heal": Case(lambda w: {"character_id": w.pc.pk, "amount": 3}, _borrowed_time),
    "flux_spend": Case(lambda w: {"character_id": w.pc.pk, "amount": 7}),
    "flux_restore": Case(
        lambda w: {"character_id": w.pc.pk, "amount": 20},
        lambda w: put(w.pc, flux=0, conditions=[("extenue", "flux")]),
    ),
    "character_check": Case(
        lambda w: {
            "character_id": w.pc.pk,
            "stat": "VAI",
            "skill": "Survie",
            "difficulty": 12,
            "modifier": 2,
            "dice": [9],
        },
        _ill,
    ),
    "condition_add": Case(lambda w: {"character_id": w.pc.pk, "kind": "ebranle"}),
    "condition_remove": Case(
        lambda w: {"character_id": w.pc.pk, "kind": "gene"},
        lambda w: put(w.pc, conditions=[("gene", "gm"), ("surpris", "gm")]),
    ),
    "character_fall": Case(
        lambda w: {
            "character_id": w.pc.pk,
            "storeys": 3,
            "soften": "adr_test",
            "cause": "le toit",
            "dice": [2, 9, 15],  # Agilité failed, 1d10+10 = 19, Survie passed
        }
    ),
    "character_fall_ill": Case(
        lambda w: {"character_id": w.pc.pk, "severity": 2, "name": "fièvre", "dice": [5, 3]}
    ),
    "remedy_take": Case(lambda w: {"character_id": w.pc.pk, "dice": [3]}, _ill),
    "character_stabilise": Case(
        lambda w: {
            "character_id": w.pc.pk,
            "healer_id": w.other_pc.pk,
            "difficulty": 10,
            "dice": [12],
        },
        _coma,
    ),
    "character_wake": Case(
        lambda w: {"character_id": w.pc.pk, "sequel_cause": "une toux", "dice": [15, 2]},
        lambda w: put(w.pc, pv=-2, vital="stabilised", stabilised_at=T0),
    ),
    "coma_end": Case(lambda w: {"character_id": w.pc.pk}, _coma),
    "character_revive": Case(
        lambda w: {"character_id": w.pc.pk, "pv": 3}, lambda w: put(w.pc, pv=-5, vital="dead")
    ),
    "group_action": Case(
        lambda w: {
            "campaign_id": w.campaign.pk,
            "character_ids": [w.pc.pk, w.other_pc.pk],
            "action": "damage",
            "arguments": {"amount": 7, "cause": "l’explosion"},
        }
    ),
    "clock_advance": Case(
        lambda w: {"campaign_id": w.campaign.pk, "minutes": 60, "dice": [10]}, _coma
    ),
    "scene_end": Case(lambda w: {"campaign_id": w.campaign.pk}, _borrowed_time),
    "party_night_rest": Case(
        lambda w: {
            "campaign_id": w.campaign.pk,
            "hours": 8,
            "sleeper_ids": [w.pc.pk, w.npc.pk],
            "clinic_ids": [w.pc.pk],
            "dice": [3],
        },
        lambda w: put(w.pc, pv=5, flux=2) and put(w.npc, pv=10, flux=1),
    ),
    "party_hour_rest": Case(lambda w: {"campaign_id": w.campaign.pk, "dice": [3]}),
    "hour_rest_share": Case(
        lambda w: {"campaign_id": w.campaign.pk, "splits": {w.pc.pk: (2, 1)}}, _pending_hour_rest
    ),
    "fight_start": Case(
        lambda w: {
            "campaign_id": w.campaign.pk,
            "character_ids": [w.other_pc.pk, w.pc.pk],
            "surprised_ids": [w.pc.pk],
        }
    ),
    "fight_next_turn": Case(lambda w: {"campaign_id": w.campaign.pk}, _last_turn_of_round_1),
    "fight_spend": Case(lambda w: {"character_id": w.pc.pk, "what": "reflex"}, _fighting),
    "fight_set_order": Case(
        lambda w: {"campaign_id": w.campaign.pk, "character_ids": [w.npc.pk, w.other_pc.pk]},
        lambda w: _fighting(w, surprised=[w.pc.pk]),
    ),
    "fight_join": Case(
        lambda w: {"campaign_id": w.campaign.pk, "character_id": w.npc.pk, "place": 1},
        _fighting,
    ),
    "fight_leave": Case(
        lambda w: {"campaign_id": w.campaign.pk, "character_id": w.pc.pk},
        lambda w: _fighting(w, surprised=[w.pc.pk]),
    ),
    "fight_end": Case(
        lambda w: {"campaign_id": w.campaign.pk}, lambda w: _fighting(w, surprised=[w.pc.pk])
    ),
    "character_create": Case(
        lambda w: {
            "campaign_id": w.campaign.pk,
            "name": "Ysolde",
            "owner": w.player,
            "stats": {"VAI": 2},
            "pv": 0,
            "pv_max": 10,
            "flux": 0,
            "flux_max": 4,
            "gm_notes": "Espionne.",
            "dice": [15],
        }
    ),
    "character_update": Case(
        lambda w: {
            "character_id": w.pc.pk,
            "name": "Isaure de Sel",
            "owner": w.other_player,
            "stats": {"VAI": 3},
            "pv": -1,
            "pv_max": 12,
            "flux": 0,
            "public_notes": "Une lanterne rouge.",
            "dice": [2],
        }
    ),
    "entry_undo": Case(
        lambda w: {
            "campaign_id": w.campaign.pk,
            "entry_id": AuditEntry.objects.latest("id").pk,
            "whole_action": True,
        },
        _a_damage_to_undo,
    ),
}


def test_every_service_has_a_case():
    assert [s.__name__ for s in services.SERVICES] == list(CASES)


def call(name, world):
    """Set the case up, then call the service by name, as the GM."""
    case = CASES[name]
    case.setup(world)
    return getattr(services, name)(actor=world.gm, **case.arguments(world))


def read_back(campaign, keys) -> engine.CampaignState:
    """The engine's state as the rows now give it, for the characters `keys`."""
    rows = (
        Character.objects.filter(pk__in=[int(k) for k in keys])
        .order_by("pk")
        .select_related("illness")
        .prefetch_related("conditions", "sequels")
    )
    return rows_state.campaign_state(Campaign.objects.get(pk=campaign.pk), rows)


def event_summary(event) -> tuple:
    """What the log row of an outcome's event must hold, as tests.play.steps.summary puts it."""
    key = int(event.character_key) if event.character_key is not None else None
    if isinstance(event, engine.CheckResult):
        return ("roll", event.rule_id, key, list(event.roll.dice), event.total, event.success)
    if isinstance(event, engine.Roll):
        return ("roll", event.rule_id or "", key, list(event.dice), event.total)
    before, after = to_json(event.before), to_json(event.after)
    return ("change", event.rule_id, key, event.field, before, after)


@pytest.mark.parametrize("name", CASES)
def test_it_is_called_by_name_with_keyword_arguments_only(world, name):
    service = getattr(services, name)
    parameters = inspect.signature(service).parameters.values()
    assert {p.kind for p in parameters} == {inspect.Parameter.KEYWORD_ONLY}
    assert "actor" in inspect.signature(service).parameters
    before = db_state()
    with pytest.raises(TypeError):
        service(world.pc.pk, world.gm)
    assert db_state() == before


@pytest.mark.parametrize(
    "service", (*services.SERVICES, *services.CAMPAIGN_SERVICES), ids=lambda s: s.__name__
)
def test_every_service_is_a_thing_verb_taking_keywords_reached_from_the_package(service):
    # The contract, whichever module of the package holds the service.
    assert re.fullmatch(r"[a-z]+(_[a-z]+)+", service.__name__)
    assert getattr(services, service.__name__) is service
    assert service.__module__.startswith(f"{services.__name__}.")
    parameters = inspect.signature(service).parameters.values()
    assert {p.kind for p in parameters} <= {
        inspect.Parameter.KEYWORD_ONLY,
        inspect.Parameter.VAR_KEYWORD,
    }


def test_the_services_are_listed_once():
    every = [s.__name__ for s in (*services.SERVICES, *services.CAMPAIGN_SERVICES)]
    assert len(every) == len(set(every))


@pytest.mark.parametrize("service", services.CAMPAIGN_SERVICES, ids=lambda s: s.__name__)
def test_the_campaign_services_take_keyword_arguments_and_an_actor(service):
    parameters = inspect.signature(service).parameters
    assert {p.kind for p in parameters.values()} <= {
        inspect.Parameter.KEYWORD_ONLY,
        inspect.Parameter.VAR_KEYWORD,
    }
    assert "actor" in parameters


@pytest.mark.parametrize("name", CASES)
def test_the_rows_read_back_give_the_engines_new_state(world, name):
    result = call(name, world)

    state = result.outcome.state
    assert read_back(world.campaign, [c.key for c in state.characters]) == state
    # What the engine's state does not hold (the sheet's words, its owner) is on the rows too.
    for change in result.outcome.changes:
        if change.field in rows_state.SHEET_FIELDS:
            row = Character.objects.get(pk=change.character_key)
            assert rows_state.sheet_value(row, change.field) == change.after


@pytest.mark.parametrize("name", CASES)
def test_the_log_holds_one_row_per_check_roll_and_change_in_order(world, name, published):
    CASES[name].setup(world)
    published.clear()
    before = AuditEntry.objects.count()
    fight_before = _fight(world.campaign)
    result = getattr(services, name)(actor=world.gm, **CASES[name].arguments(world))

    written = log(world.campaign)[before:]
    assert written, "each case writes something"
    assert written == [event_summary(e) for e in result.outcome.events]
    assert [summary(e) for e in result.entries] == written
    assert len({e.batch for e in result.entries}) == 1  # one action, undone as one
    changed = {e.character_id for e in result.entries if e.character_id is not None}
    # R33: and the combatants whose seat in the fight moved (their cards show it).
    changed = sorted(changed | runner._seats_moved(fight_before, _fight(world.campaign)))
    assert result.character_ids == changed
    assert published == [(world.campaign.pk, changed, result.entries[-1].pk)]


def _fight(campaign):
    data = Campaign.objects.get(pk=campaign.pk).fight
    return engine.Fight.from_json(data) if data else None


def test_it_writes_nothing_and_publishes_nothing_when_nothing_changes(world, published):
    result = services.character_damage(character_id=world.pc.pk, actor=world.gm, amount=2)

    assert reload(world.pc).pv == 11  # PA 2 took it all (R3)
    assert (result.entries, result.character_ids, published) == ([], [], [])
    assert log(world.campaign) == []


def test_it_leaves_characters_it_was_not_asked_about_alone(world, monkeypatch):
    # The engine only sees the character named; the others are neither read nor written.
    heal = engine.heal

    def heal_one(state, key, amount, **kwargs):
        assert [c.key for c in state.characters] == [str(world.pc.pk)]
        return heal(state, key, amount, **kwargs)

    monkeypatch.setattr(engine, "heal", heal_one)
    services.character_heal(character_id=world.pc.pk, actor=world.gm, amount=1)
    assert reload(world.pc).pv == 12


def test_the_rows_the_engine_does_not_time_start_at_the_game_time(world):
    services.clock_advance(campaign_id=world.campaign.pk, actor=world.gm, minutes=30)
    services.condition_add(character_id=world.pc.pk, actor=world.gm, kind="gene")
    services.character_fall_ill(character_id=world.pc.pk, actor=world.gm, severity=1, dice=[15, 2])
    services.character_damage(
        character_id=world.pc.pk, actor=world.gm, amount=12, ignores_pa=True, dice=[3]
    )
    services.character_stabilise(
        character_id=world.pc.pk, actor=world.gm, healer_esp=5, difficulty=5, dice=[10]
    )
    services.character_wake(character_id=world.pc.pk, actor=world.gm, dice=[20, 4])

    assert Condition.objects.get(character=world.pc, kind="gene").started_at == at(minutes=30)
    assert Illness.objects.get(character=world.pc).started_at == at(minutes=30)
    assert Sequel.objects.get(character=world.pc).gained_at == at(minutes=30)


# ---------------------------------------------------------------------------------------------
# The entries: who, when, what, and every term of a roll


def test_a_change_entry_says_who_did_what_when_to_whom(world):
    result = services.character_damage(character_id=world.pc.pk, actor=world.gm, amount=5)

    (entry,) = result.entries
    assert (entry.action, entry.kind, entry.actor_id, entry.actor_name) == (
        "damage",
        "change",
        world.gm.pk,
        "gaelle_mj",
    )
    assert (entry.character_name, entry.game_time, entry.visibility) == ("Isaure", T0, "everyone")
    assert (entry.text_fr, entry.text_en) == ("R3 · PV : 11 → 8", "R3 · PV: 11 → 8")


def test_a_check_entry_holds_every_term_and_says_the_die_was_typed_in(world):
    _ill(world)
    result = services.character_check(
        character_id=world.pc.pk,
        actor=world.gm,
        stat="VAI",
        skill="Survie",
        difficulty=12,
        modifier=2,
        dice=[9],
    )

    (entry,) = result.entries
    assert entry.typed_in is True
    assert entry.roll == {
        "expression": "1d20",
        "dice": [9],
        "stat": "VAI",
        "skill": "Survie",
        "stat_value": 1,
        "natural": 9,
        "die_value": 9,
        "die_rule": None,
        "modifiers": [
            {"label": "séquelle", "label_en": "sequel", "value": -1, "rule_id": "R7"},
            {"label": "maladie", "label_en": "illness", "value": -2, "rule_id": "R8"},
            {"label": "MJ", "label_en": "GM", "value": 2, "rule_id": None},
        ],
        "total": 9,
        "difficulty": 12,
        "success": False,
        "extreme": None,
        # Its terms add up to 0 (1 − 1 − 2 + 2): faces 12 to 20 pass, 9 of the 20.
        "passing_faces": 9,
    }
    assert entry.text_fr == (
        "R5 · Survie (VAI) : 9 (d20) + 1 (VAI) − 1 (séquelle) − 2 (maladie) + 2 (MJ) "
        "= 9 < 12 → échec [dé saisi]"
    )


def test_a_plain_roll_entry_says_what_it_was_for_in_words(world):
    result = services.character_fall(character_id=world.pc.pk, actor=world.gm, storeys=1, dice=[7])

    roll = result.entries[0]
    assert roll.roll == {"expression": "1d10", "dice": [7], "total": 7, "purpose": "fall_damage"}
    assert roll.text_fr == "R27 · dégâts de chute : 1d10 → 7 = 7 [dés saisis]"
    assert roll.text_en == "R27 · fall damage: 1d10 → 7 = 7 [typed-in dice]"


def test_r9_a_server_roll_is_logged_as_not_typed_in(world, server_dice):
    server_dice(14)
    result = services.character_damage(
        character_id=world.pc.pk, actor=world.gm, amount=11, ignores_pa=True
    )

    check = result.entries[1]
    assert (check.kind, check.roll["dice"], check.typed_in) == ("roll", [14], False)
    assert check.text_fr.endswith("→ réussite")


def test_r9_without_typed_dice_the_server_rolls_a_real_d20(world):
    result = services.character_check(
        character_id=world.pc.pk, actor=world.gm, stat="VAI", difficulty=10
    )

    (entry,) = result.entries
    assert entry.typed_in is False
    (die,) = entry.roll["dice"]
    assert 1 <= die <= 20
    assert entry.roll["total"] == die + 1


def test_each_entry_carries_the_game_time_it_happened_at(world):
    put(world.pc, pv=-1, vital="coma", next_coma_hour=at(minutes=30))
    result = services.clock_advance(
        campaign_id=world.campaign.pk, actor=world.gm, minutes=60, dice=[10]
    )

    # The coma hour at 08:30 (a PV lost, a Survie test), then the clock's own move at 09:00.
    assert [(e.field or "roll", e.game_time) for e in result.entries] == [
        ("next_coma_hour", at(minutes=30)),
        ("pv", at(minutes=30)),
        ("roll", at(minutes=30)),
        ("clock", at(1)),
    ]


def test_it_writes_the_visibility_chosen_or_the_campaigns(world):
    services.character_check(
        character_id=world.pc.pk, actor=world.gm, stat="VAI", difficulty=10, dice=[4]
    )
    services.character_damage(character_id=world.pc.pk, actor=world.gm, amount=3, visibility="gm")

    assert list(AuditEntry.objects.order_by("id").values_list("visibility", flat=True)) == [
        "everyone",
        "gm",
    ]


# ---------------------------------------------------------------------------------------------
# Refusals: nothing written, nothing published


REFUSALS = {
    "not enough Flux": (
        "flux_spend",
        lambda w: {"character_id": w.pc.pk, "amount": 8},
        engine.NotEnoughFlux,
    ),
    "a D20 of 25": (
        "character_check",
        lambda w: {"character_id": w.pc.pk, "stat": "VAI", "dice": [25]},
        engine.DieValueOutOfRange,
    ),
    "no such condition": (
        "condition_remove",
        lambda w: {"character_id": w.pc.pk, "kind": "paralyse"},
        engine.ConditionNotPresent,
    ),
    "healing the dead": (
        "character_heal",
        lambda w: put(w.pc, pv=-5, vital="dead") and {"character_id": w.pc.pk, "amount": 20},
        engine.CharacterDead,
    ),
    "a split that does not add up": (
        "hour_rest_share",
        lambda w: (
            _pending_hour_rest(w) or {"campaign_id": w.campaign.pk, "splits": {w.pc.pk: (2, 2)}}
        ),
        engine.InvalidHourRestSplit,
    ),
    "a second waking try the same hour": (
        "character_wake",
        lambda w: (
            put(w.pc, pv=-2, vital="stabilised", stabilised_at=T0, last_wake_try=T0)
            and {"character_id": w.pc.pk, "dice": [20, 1]}
        ),
        engine.WakeAlreadyTried,
    ),
    "spending a reflex with none left (R33)": (
        "fight_spend",
        lambda w: _reflex_spent(w) or {"character_id": w.pc.pk, "what": "reflex"},
        engine.NothingLeftToSpend,
    ),
    "spending something else than an action or a reflex": (
        "fight_spend",
        lambda w: _fighting(w) or {"character_id": w.pc.pk, "what": "sort"},
        engine.InvalidSpend,
    ),
    "spending outside the fight": (
        "fight_spend",
        lambda w: _fighting(w) or {"character_id": w.npc.pk, "what": "action"},
        engine.NotInFight,
    ),
    "starting a fight twice": (
        "fight_start",
        lambda w: _fighting(w) or {"campaign_id": w.campaign.pk, "character_ids": [w.npc.pk]},
        engine.FightAlreadyRunning,
    ),
    "a character of another campaign in the fight": (
        "fight_start",
        lambda w: {
            "campaign_id": w.campaign.pk,
            "character_ids": [w.pc.pk, _stranger(w).pk],
        },
        engine.UnknownCharacter,
    ),
    "a character of another campaign joining the fight": (
        "fight_set_order",
        lambda w: (
            _fighting(w)
            or {"campaign_id": w.campaign.pk, "character_ids": [w.pc.pk, _stranger(w).pk]}
        ),
        engine.UnknownCharacter,
    ),
    "a dead character in the fight": (
        "fight_start",
        lambda w: (
            put(w.npc, pv=-5, vital="dead")
            and {"campaign_id": w.campaign.pk, "character_ids": [w.pc.pk, w.npc.pk]}
        ),
        engine.CharacterDead,
    ),
    "a character twice in the order": (
        "fight_start",
        lambda w: {"campaign_id": w.campaign.pk, "character_ids": [w.pc.pk, w.pc.pk]},
        engine.InvalidFight,
    ),
    "one already in the fight joining it": (
        "fight_join",
        lambda w: _fighting(w) or {"campaign_id": w.campaign.pk, "character_id": w.pc.pk},
        engine.AlreadyInFight,
    ),
    "a character of another campaign joining by itself": (
        "fight_join",
        lambda w: _fighting(w) or {"campaign_id": w.campaign.pk, "character_id": _stranger(w).pk},
        engine.UnknownCharacter,
    ),
    "one not in the fight leaving it": (
        "fight_leave",
        lambda w: _fighting(w) or {"campaign_id": w.campaign.pk, "character_id": w.npc.pk},
        engine.NotInFight,
    ),
    "a next turn with no fight": (
        "fight_next_turn",
        lambda w: {"campaign_id": w.campaign.pk},
        engine.NoFight,
    ),
    "ending no fight": ("fight_end", lambda w: {"campaign_id": w.campaign.pk}, engine.NoFight),
    "typed dice the action did not use": (
        "character_check",
        lambda w: {"character_id": w.pc.pk, "stat": "VAI", "dice": [14, 3, 5]},
        services.UnusedTypedDice,
    ),
    "a typed die where nothing rolls": (
        "character_damage",
        lambda w: {"character_id": w.pc.pk, "amount": 3, "dice": [12]},
        services.UnusedTypedDice,
    ),
}


def _stranger(world) -> Character:
    """A character of another campaign of the same GM."""
    other = campaign_services.campaign_create(user=world.gm, name="Les Marches")
    return Character.objects.create(
        campaign=other, name="Ombre", pv=5, pv_max=5, flux=2, flux_max=2
    )


@pytest.mark.parametrize(("name", "arguments", "error"), REFUSALS.values(), ids=REFUSALS)
def test_a_refusal_leaves_rows_and_log_as_they_were(world, published, name, arguments, error):
    kwargs = arguments(world)  # may play actions first (a fight started): not the refusal's
    published.clear()
    before = db_state()
    with pytest.raises(error):
        getattr(services, name)(actor=world.gm, **kwargs)
    assert db_state() == before
    assert published == []


def test_typed_dice_left_unused_are_named_in_the_refusal(world):
    with pytest.raises(services.UnusedTypedDice) as refusal:
        services.character_check(
            character_id=world.pc.pk, actor=world.gm, stat="VAI", dice=[14, 3, 5]
        )
    assert refusal.value.message_fr == (
        "Ces valeurs de dés saisies n’ont pas servi : 3, 5. Rien n’a été appliqué."
    )


def test_a_failure_while_writing_rolls_back_everything(world, published, monkeypatch):
    # Even if the engine returned, a failure while writing leaves no half-written action.
    def boom(**kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(runner.audit, "append", boom)
    before = db_state()
    with pytest.raises(RuntimeError):
        services.character_damage(character_id=world.pc.pk, actor=world.gm, amount=5)
    assert db_state() == before
    assert published == []


# ---------------------------------------------------------------------------------------------
# Published from inside the transaction: delivered at commit, never for a rollback


@pytest.mark.django_db(transaction=True)
def test_it_publishes_from_inside_its_transaction_once_the_entries_are_written(world, monkeypatch):
    seen = []

    def spy(campaign_id, character_ids, log_id, **_):
        # journal.events delivers what is published inside a transaction only at commit.
        seen.append((connection.in_atomic_block, AuditEntry.objects.filter(pk=log_id).exists()))

    monkeypatch.setattr(runner, "publish", spy)
    services.character_heal(character_id=world.pc.pk, actor=world.gm, amount=1)
    assert seen == [(True, True)]


@pytest.mark.django_db(transaction=True)
def test_it_is_delivered_once_committed_and_never_for_a_rollback(world):
    # Both backends: on_commit on SQLite, NOTIFY from the transaction on PostgreSQL.
    def rolled_back():
        with pytest.raises(RuntimeError), transaction.atomic():
            services.character_damage(character_id=world.pc.pk, actor=world.gm, amount=5)
            raise RuntimeError("the caller fails after the service: everything rolls back")

    async def next_event(queue) -> live.Event:
        while True:
            item = await asyncio.wait_for(queue.get(), 10)
            if item is not live.RESYNC:  # the listener (re)starting: not an event
                return item

    async def scenario():
        queue = await live.subscribe(world.campaign.pk)
        try:
            await sync_to_async(rolled_back)()
            heal = sync_to_async(services.character_heal)
            result = await heal(character_id=world.pc.pk, actor=world.gm, amount=1)
            # Events come in commit order: a delivered rollback would have come first.
            event = await next_event(queue)
            assert event == live.Event(world.campaign.pk, (world.pc.pk,), result.entries[-1].pk)
        finally:
            live.unsubscribe(world.campaign.pk, queue)
            await live.shutdown()

    async_to_sync(scenario)()


# ---------------------------------------------------------------------------------------------
# The campaign's settings reach the engine (docs/rules.md: every Choice is a campaign setting)


def test_r10_the_campaigns_coma_delay_sets_when_borrowed_time_ends(world):
    Campaign.objects.filter(pk=world.campaign.pk).update(coma_delay_minutes=25)
    services.character_damage(
        character_id=world.pc.pk, actor=world.gm, amount=11, ignores_pa=True, dice=[14]
    )
    assert reload(world.pc).coma_due == at(minutes=25)


def test_r30_the_campaigns_morning_hour_decides_when_the_next_morning_is(world):
    Campaign.objects.filter(pk=world.campaign.pk).update(morning_hour=9)
    services.clock_advance(campaign_id=world.campaign.pk, actor=world.gm, to_morning=True)
    # The clock starts at day 1, 08:00: with mornings at 09:00 the next one is an hour away.
    assert Campaign.objects.get(pk=world.campaign.pk).clock == at(1)


def test_r13_without_automatic_tries_the_clock_makes_no_waking_try(world):
    Campaign.objects.filter(pk=world.campaign.pk).update(automatic_wake_tries=False)
    put(world.pc, pv=1, vital="stabilised", stabilised_at=T0)
    services.clock_advance(campaign_id=world.campaign.pk, actor=world.gm, minutes=180)
    pc = reload(world.pc)
    assert (pc.vital, pc.last_wake_try) == ("stabilised", None)
    assert not AuditEntry.objects.filter(kind="roll").exists()


def test_r31_a_poor_full_night_ends_sleep_deprivation_when_the_campaign_says_so(world):
    Campaign.objects.filter(pk=world.campaign.pk).update(poor_night_is_proper=True)
    put(world.pc, sleep_deprived=True)
    services.party_night_rest(
        campaign_id=world.campaign.pk, actor=world.gm, hours=8, poor_quality=True
    )
    assert reload(world.pc).sleep_deprived is False


def test_r5_the_campaigns_default_difficulty_is_the_tests(world):
    Campaign.objects.filter(pk=world.campaign.pk).update(default_difficulty=15)
    result = services.character_check(
        character_id=world.pc.pk, actor=world.gm, stat="VAI", dice=[13]
    )
    assert (result.entries[0].roll["difficulty"], result.entries[0].roll["success"]) == (15, False)
