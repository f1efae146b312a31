"""Every game action through its service in `play.services`: the rows after, and exactly the log.

Dice are scripted: `typed=[…]` feeds die values as a person's typed-in dice (R9); the
`server_dice` fixture scripts the server's own rolls. The fixtures' numbers (tests/conftest.py):
Isaure (pc) PV 11/14, Flux 7/10, PA 2, VAI 1, ESP 3; Gaspard (other_pc) PV 18/18, Flux 6/6,
PA 4, VAI 2, ESP 0; the NPC PV 12/12, Flux 4/4, PA 0, VAI 3. The clock starts at day 1, 08:00.
"""

import random

import pytest

from campaign.models import Campaign
from characters.models import Character, Illness, Sequel
from journal.models import AuditEntry
from play import services
from rules import engine
from tests.helpers import db_state
from tests.play.play import T0, at, conditions_of, iso, log, put, run

EXTENUE_DEATHS_DOOR = {"kind": "extenue", "cause": "deaths_door"}


@pytest.fixture
def server_dice(monkeypatch):
    """Script the server's rolls: `server_dice(14, 3)` (logged as server rolls, not typed-in)."""

    def script(*values):
        monkeypatch.setattr(
            services, "dice_source", lambda typed: engine.ScriptedDice(values, typed_in=False)
        )

    return script


@pytest.fixture
def published(monkeypatch):
    events = []
    monkeypatch.setattr(services, "publish", lambda *args: events.append(args))
    return events


def reload(character) -> Character:
    return Character.objects.get(pk=character.pk)


# ---------------------------------------------------------------------------------------------
# Damage, healing, Flux (R1, R3, R10, R15, R26)


def test_r3_damage_minus_pa(campaign, gm, pc):
    result = run(campaign, gm, "damage", {"amount": "5"}, character=pc)

    assert reload(pc).pv == 8  # 11 − (5 − 2 PA)
    assert log(campaign) == [("change", "R3", pc.pk, "pv", 11, 8)]
    entry = result.entries[0]
    assert (entry.action, entry.kind, entry.actor_id, entry.actor_name) == (
        "damage",
        "change",
        gm.pk,
        "gaelle_mj",
    )
    assert (entry.character_name, entry.game_time, entry.visibility) == ("Isaure", T0, "everyone")
    assert entry.text_fr == "R3 · PV : 11 → 8"
    assert result.outcome.explanation_fr == "R3 · Isaure — 5 dégâts − 2 PA = 3 ; PV 11 → 8"


def test_r3_damage_ignoring_pa(campaign, gm, pc):
    run(campaign, gm, "damage", {"amount": "5", "ignores_pa": "on"}, character=pc)

    assert reload(pc).pv == 6
    assert log(campaign) == [("change", "R3", pc.pk, "pv", 11, 6)]


def test_r3_damage_below_pa_changes_nothing_and_writes_nothing(campaign, gm, pc, published):
    result = run(campaign, gm, "damage", {"amount": "2"}, character=pc)

    assert reload(pc).pv == 11
    assert result.entries == []
    assert log(campaign) == []
    assert published == []


def test_r20_ebranle_removes_three_pa_from_damage(campaign, gm, pc):
    pc = put(pc, pa=4, conditions=[("ebranle", "gm")])
    run(campaign, gm, "damage", {"amount": "5"}, character=pc)

    assert reload(pc).pv == 7  # 11 − (5 − (4 − 3))
    assert log(campaign) == [("change", "R3", pc.pk, "pv", 11, 7)]


def test_r10_damage_to_zero_makes_a_survie_test(campaign, gm, pc):
    result = run(
        campaign, gm, "damage", {"amount": "11", "ignores_pa": "on"}, character=pc, typed=[14]
    )

    pc = reload(pc)
    assert (pc.pv, pc.vital, pc.coma_due) == (0, "borrowed_time", at(minutes=10))
    assert conditions_of(pc) == [("extenue", "deaths_door")]
    # Survie (VAI): 14 + 1 = 15 ≥ 10: the coma is put off ten minutes, Exténué meanwhile.
    assert log(campaign) == [
        ("change", "R3", pc.pk, "pv", 11, 0),
        ("roll", "R10", pc.pk, [14], 15, True),
        ("change", "R10", pc.pk, "coma_due", None, iso(at(minutes=10))),
        ("change", "R10", pc.pk, "conditions", [], [EXTENUE_DEATHS_DOOR]),
        ("change", "R10", pc.pk, "vital", "up", "borrowed_time"),
    ]
    check = result.entries[1]
    assert check.typed_in is True
    assert check.roll == {
        "expression": "1d20",
        "dice": [14],
        "stat": "VAI",
        "skill": "Survie",
        "stat_value": 1,
        "natural": 14,
        "die_value": 14,
        "die_rule": None,
        "modifiers": [],
        "total": 15,
        "difficulty": 10,
        "success": True,
        "extreme": None,
    }
    assert (
        check.text_fr == "R10 · Survie (VAI) : 14 (d20) + 1 (VAI) = 15 ≥ 10 → réussite [dé saisi]"
    )


def test_r10_failed_survie_means_coma_at_once_and_r14_keeps_the_cause(campaign, gm, pc):
    run(
        campaign,
        gm,
        "damage",
        {"amount": "12", "ignores_pa": "on", "cause": "brûlure"},
        character=pc,
        typed=[3],
    )

    pc = reload(pc)
    assert (pc.pv, pc.vital, pc.next_coma_hour, pc.down_cause) == (-1, "coma", at(1), "brûlure")
    assert conditions_of(pc) == []
    assert log(campaign) == [
        ("change", "R3", pc.pk, "down_cause", "", "brûlure"),
        ("change", "R3", pc.pk, "pv", 11, -1),
        ("roll", "R10", pc.pk, [3], 4, False),
        ("change", "R10", pc.pk, "next_coma_hour", None, iso(at(1))),
        ("change", "R10", pc.pk, "vital", "up", "coma"),
    ]


def test_r9_server_roll_is_logged_as_not_typed_in(campaign, gm, pc, server_dice):
    server_dice(14)
    result = run(campaign, gm, "damage", {"amount": "11", "ignores_pa": "on"}, character=pc)

    check = result.entries[1]
    assert (check.kind, check.roll["dice"], check.typed_in) == ("roll", [14], False)
    assert check.text_fr.endswith("→ réussite")


def test_r9_without_typed_dice_the_server_rolls_a_real_d20(campaign, gm, pc):
    result = run(campaign, gm, "check", {"stat": "VAI", "difficulty": "10"}, character=pc)

    (entry,) = result.entries
    assert entry.typed_in is False
    (die,) = entry.roll["dice"]
    assert 1 <= die <= 20
    assert entry.roll["total"] == die + 1
    assert entry.roll["success"] is (die + 1 >= 10)


def test_r1_healing_never_goes_above_max(campaign, gm, pc):
    run(campaign, gm, "heal", {"amount": "10"}, character=pc)

    assert reload(pc).pv == 14
    assert log(campaign) == [("change", "R1", pc.pk, "pv", 11, 14)]


def test_r10_healing_above_zero_cancels_the_coming_coma(campaign, gm, pc):
    pc = put(
        pc,
        pv=-1,
        vital="borrowed_time",
        coma_due=at(minutes=10),
        conditions=[("extenue", "deaths_door"), ("gene", "gm")],
    )
    run(campaign, gm, "heal", {"amount": "3"}, character=pc)

    pc = reload(pc)
    assert (pc.pv, pc.vital, pc.coma_due) == (2, "up", None)
    assert conditions_of(pc) == [("gene", "gm")]
    assert log(campaign) == [
        ("change", "R1", pc.pk, "pv", -1, 2),
        ("change", "R10", pc.pk, "coma_due", iso(at(minutes=10)), None),
        (
            "change",
            "R26",
            pc.pk,
            "conditions",
            [EXTENUE_DEATHS_DOOR, {"kind": "gene", "cause": "gm"}],
            [{"kind": "gene", "cause": "gm"}],
        ),
        ("change", "R10", pc.pk, "vital", "borrowed_time", "up"),
    ]


def test_r15_healing_in_a_coma_above_zero_stabilises(campaign, gm, pc):
    pc = put(pc, pv=-2, vital="coma", next_coma_hour=at(1))
    run(campaign, gm, "heal", {"amount": "5"}, character=pc)

    pc = reload(pc)
    assert (pc.pv, pc.vital, pc.next_coma_hour, pc.stabilised_at) == (3, "stabilised", None, T0)
    assert log(campaign) == [
        ("change", "R1", pc.pk, "pv", -2, 3),
        ("change", "R15", pc.pk, "next_coma_hour", iso(at(1)), None),
        ("change", "R15", pc.pk, "stabilised_at", None, iso(T0)),
        ("change", "R15", pc.pk, "vital", "coma", "stabilised"),
    ]


def test_r26_flux_at_zero_makes_the_character_extenue(campaign, gm, pc):
    run(campaign, gm, "spend_flux", {"amount": "7"}, character=pc)

    pc = reload(pc)
    assert pc.flux == 0
    assert conditions_of(pc) == [("extenue", "flux")]
    assert log(campaign) == [
        ("change", "R1", pc.pk, "flux", 7, 0),
        ("change", "R26", pc.pk, "conditions", [], [{"kind": "extenue", "cause": "flux"}]),
    ]


def test_r1_spending_more_flux_than_held_is_refused_with_nothing_written(
    campaign, gm, pc, published
):
    before = db_state()
    with pytest.raises(engine.NotEnoughFlux) as error:
        run(campaign, gm, "spend_flux", {"amount": "8"}, character=pc)

    assert error.value.message_fr == "Isaure n'a que 7 Flux (il en faut 8)."
    assert db_state() == before
    assert published == []


def test_r26_restoring_flux_ends_extenue_and_r1_caps_at_max(campaign, gm, pc):
    pc = put(pc, flux=0, conditions=[("extenue", "flux")])
    run(campaign, gm, "restore_flux", {"amount": "20"}, character=pc)

    pc = reload(pc)
    assert pc.flux == 10
    assert conditions_of(pc) == []
    assert log(campaign) == [
        ("change", "R1", pc.pk, "flux", 0, 10),
        ("change", "R26", pc.pk, "conditions", [{"kind": "extenue", "cause": "flux"}], []),
    ]


# ---------------------------------------------------------------------------------------------
# Tests (R5–R9)


def test_r5_r7_r8_check_writes_every_term(campaign, gm, pc):
    Sequel.objects.create(character=pc, stat="ADR", cause="chute", d6=1, gained_at=T0)
    Illness.objects.create(character=pc, name="toux", severity=2, days_left=3, started_at=T0)
    result = run(
        campaign,
        gm,
        "check",
        {"stat": "VAI", "skill": "Survie", "difficulty": "12", "modifier": "2"},
        character=pc,
        typed=[9],
    )

    # 9 + 1 (VAI) − 1 (sequel, R7) − 2 (illness, R8) + 2 (GM) = 9 < 12: failure.
    assert log(campaign) == [("roll", "R5", pc.pk, [9], 9, False)]
    assert result.entries[0].roll["modifiers"] == [
        {"label": "séquelle", "label_en": "sequel", "value": -1, "rule_id": "R7"},
        {"label": "maladie", "label_en": "illness", "value": -2, "rule_id": "R8"},
        {"label": "MJ", "label_en": "GM", "value": 2, "rule_id": None},
    ]
    assert result.entries[0].text_fr == (
        "R5 · Survie (VAI) : 9 (d20) + 1 (VAI) − 1 (séquelle) − 2 (maladie) + 2 (MJ) "
        "= 9 < 12 → échec [dé saisi]"
    )
    assert result.outcome.rules == ("R5", "R7", "R8", "R9")
    assert reload(pc).pv == 11  # a test changes nothing by itself


def test_r6_odd_die_counts_as_zero_while_extenue(campaign, gm, pc):
    pc = put(pc, conditions=[("extenue", "gm")])
    result = run(
        campaign, gm, "check", {"stat": "ESP", "difficulty": "5"}, character=pc, typed=[13]
    )

    # 13 is odd: it counts as 0; 0 + 3 (ESP) = 3 < 5.
    assert log(campaign) == [("roll", "R5", pc.pk, [13], 3, False)]
    assert (result.entries[0].roll["natural"], result.entries[0].roll["die_value"]) == (13, 0)
    assert result.entries[0].roll["die_rule"] == "R6"


def test_r9_a_typed_die_the_d20_cannot_show_is_refused(campaign, gm, pc):
    before = db_state()
    with pytest.raises(engine.DieValueOutOfRange):
        run(campaign, gm, "check", {"stat": "VAI", "difficulty": "10"}, character=pc, typed=[25])
    assert db_state() == before


# ---------------------------------------------------------------------------------------------
# Conditions (R20–R26)


def test_r20_adding_a_condition(campaign, gm, pc):
    run(campaign, gm, "add_condition", {"kind": "ebranle"}, character=pc)

    assert conditions_of(pc) == [("ebranle", "gm")]
    assert reload(pc).conditions.get().started_at == T0
    assert log(campaign) == [
        ("change", "R20", pc.pk, "conditions", [], [{"kind": "ebranle", "cause": "gm"}])
    ]


def test_r26_the_gm_removes_a_condition(campaign, gm, pc):
    pc = put(pc, conditions=[("gene", "gm"), ("surpris", "gm")])
    run(campaign, gm, "remove_condition", {"kind": "gene"}, character=pc)

    assert conditions_of(pc) == [("surpris", "gm")]
    assert log(campaign) == [
        (
            "change",
            "R26",
            pc.pk,
            "conditions",
            [{"kind": "gene", "cause": "gm"}, {"kind": "surpris", "cause": "gm"}],
            [{"kind": "surpris", "cause": "gm"}],
        )
    ]


def test_r26_removing_a_condition_not_there_is_refused(campaign, gm, pc):
    before = db_state()
    with pytest.raises(engine.ConditionNotPresent):
        run(campaign, gm, "remove_condition", {"kind": "paralyse"}, character=pc)
    assert db_state() == before


# ---------------------------------------------------------------------------------------------
# Falls, illness, remedies (R27–R29)


def test_r27_spell_softened_fall_halves_damage_rounded_up_and_ignores_pa(campaign, gm, pc):
    run(
        campaign,
        gm,
        "fall",
        {"storeys": "1", "surface": "normal", "soften": "spell"},
        character=pc,
        typed=[7],
    )

    assert reload(pc).pv == 7  # 1d10 = 7, halved and rounded up: 4; PA 2 ignored
    assert log(campaign) == [
        ("roll", "R27", pc.pk, [7], 7),
        ("change", "R27", pc.pk, "pv", 11, 7),
    ]


def test_r27_the_logged_roll_says_what_it_was_for_in_words(campaign, gm, pc):
    result = run(
        campaign,
        gm,
        "fall",
        {"storeys": "1", "surface": "normal", "soften": "none"},
        character=pc,
        typed=[7],
    )

    roll = result.entries[0]
    assert roll.roll == {"expression": "1d10", "dice": [7], "total": 7, "purpose": "fall_damage"}
    assert roll.text_fr == "R27 · dégâts de chute : 1d10 → 7 = 7 [dés saisis]"
    assert roll.text_en == "R27 · fall damage: 1d10 → 7 = 7 [typed-in dice]"


def test_r27_adr_test_with_the_storeys_malus_softens_the_fall(campaign, gm, pc):
    result = run(
        campaign,
        gm,
        "fall",
        {"storeys": "3", "surface": "normal", "soften": "adr_test"},
        character=pc,
        typed=[20, 6],
    )

    # Agilité (ADR): 20 + 1 − 4 = 17 ≥ 10; 1d10+10 = 16, halved: 8.
    assert reload(pc).pv == 3
    assert log(campaign) == [
        ("roll", "R27", pc.pk, [20], 17, True),
        ("roll", "R27", pc.pk, [6], 16),
        ("change", "R27", pc.pk, "pv", 11, 3),
    ]
    assert result.entries[0].roll["modifiers"] == [
        {"label": "amortir la chute", "label_en": "softening a fall", "value": -4, "rule_id": "R27"}
    ]


def test_r27_soft_ground_under_one_storey_deals_no_damage(campaign, gm, pc, published):
    result = run(
        campaign, gm, "fall", {"storeys": "1", "surface": "soft", "soften": "none"}, character=pc
    )

    assert reload(pc).pv == 11
    assert result.entries == []
    assert published == []


def test_r27_six_storeys_kill(campaign, gm, pc):
    run(campaign, gm, "fall", {"storeys": "5", "surface": "rough", "soften": "none"}, character=pc)

    assert reload(pc).vital == "dead"
    assert log(campaign) == [("change", "R27", pc.pk, "vital", "up", "dead")]


def test_r27_fall_to_zero_then_r10_survie(campaign, gm, pc):
    run(
        campaign,
        gm,
        "fall",
        {"storeys": "2", "surface": "normal", "soften": "none", "cause": "le toit"},
        character=pc,
        typed=[7, 15],
    )

    pc = reload(pc)
    assert (pc.pv, pc.vital, pc.down_cause) == (-1, "borrowed_time", "le toit")
    # The log reads like the table did: the fall's damage, then the Survie test it causes.
    assert log(campaign) == [
        ("roll", "R27", pc.pk, [7], 12),  # 1d10+5
        ("change", "R27", pc.pk, "down_cause", "", "le toit"),
        ("change", "R27", pc.pk, "pv", 11, -1),
        ("roll", "R10", pc.pk, [15], 16, True),  # Survie (VAI): 15 + 1 ≥ 10
        ("change", "R10", pc.pk, "coma_due", None, iso(at(minutes=10))),
        ("change", "R10", pc.pk, "conditions", [], [EXTENUE_DEATHS_DOOR]),
        ("change", "R10", pc.pk, "vital", "up", "borrowed_time"),
    ]


def test_r28_failed_constitution_means_1d4_plus_1_days(campaign, gm, pc):
    run(
        campaign,
        gm,
        "fall_ill",
        {"severity": "2", "name": "fièvre des marais"},
        character=pc,
        typed=[5, 3],
    )

    illness = Illness.objects.get(character=pc)
    assert (illness.severity, illness.days_left, illness.name, illness.started_at) == (
        2,
        4,
        "fièvre des marais",
        T0,
    )
    assert log(campaign) == [
        ("roll", "R28", pc.pk, [5], 6, False),  # Constitution (VAI): 5 + 1 < 10
        ("roll", "R28", pc.pk, [3], 4),  # 1d4+1
        (
            "change",
            "R28",
            pc.pk,
            "illness",
            None,
            {"severity": 2, "days_left": 4, "name": "fièvre des marais"},
        ),
    ]


def test_r28_passed_constitution_means_1d4_minus_1_days(campaign, gm, pc):
    run(campaign, gm, "fall_ill", {"severity": "1"}, character=pc, typed=[15, 1])

    assert Illness.objects.get(character=pc).days_left == 0
    assert log(campaign) == [
        ("roll", "R28", pc.pk, [15], 16, True),
        ("roll", "R28", pc.pk, [1], 0),  # 1d4−1
        ("change", "R28", pc.pk, "illness", None, {"severity": 1, "days_left": 0, "name": ""}),
    ]


def test_r29_remedy_shortens_the_illness_by_1d4(campaign, gm, pc):
    Illness.objects.create(character=pc, name="toux", severity=2, days_left=4, started_at=T0)
    run(campaign, gm, "remedy", {}, character=pc, typed=[3])

    assert Illness.objects.get(character=pc).days_left == 1
    assert log(campaign) == [
        ("roll", "R29", pc.pk, [3], 3),
        (
            "change",
            "R29",
            pc.pk,
            "illness",
            {"severity": 2, "days_left": 4, "name": "toux"},
            {"severity": 2, "days_left": 1, "name": "toux"},
        ),
    ]


def test_r29_remedy_without_illness_is_refused(campaign, gm, pc):
    before = db_state()
    with pytest.raises(engine.NotIll):
        run(campaign, gm, "remedy", {}, character=pc, typed=[3])
    assert db_state() == before


# ---------------------------------------------------------------------------------------------
# Coma, stabilising, waking, the GM's hand (R11–R16)


def test_r12_stabilised_by_a_healer_of_the_party(campaign, gm, pc, other_pc):
    pc = put(pc, pv=-2, vital="coma", next_coma_hour=at(1))
    run(
        campaign,
        gm,
        "stabilise",
        {"healer": str(other_pc.pk), "difficulty": "10"},
        character=pc,
        typed=[12],
    )

    pc = reload(pc)
    assert (pc.vital, pc.pv, pc.next_coma_hour, pc.stabilised_at) == ("stabilised", -2, None, T0)
    assert log(campaign) == [
        # The healer rolls Médecine (ESP): 12 + 0 = 12 ≥ 10.
        ("roll", "R12", other_pc.pk, [12], 12, True),
        ("change", "R12", pc.pk, "next_coma_hour", iso(at(1)), None),
        ("change", "R12", pc.pk, "stabilised_at", None, iso(T0)),
        ("change", "R12", pc.pk, "vital", "coma", "stabilised"),
    ]


def test_r12_each_failed_stabilisation_costs_a_pv(campaign, gm, pc):
    pc = put(pc, pv=-2, vital="coma", next_coma_hour=at(1))
    result = run(
        campaign,
        gm,
        "stabilise",
        {"healer_esp": "4", "difficulty": "12"},
        character=pc,
        typed=[7],
    )

    pc = reload(pc)
    assert (pc.vital, pc.pv) == ("coma", -3)
    assert log(campaign) == [
        ("roll", "R12", None, [7], 11, False),  # an outside healer: 7 + 4 < 12
        ("change", "R12", pc.pk, "pv", -2, -3),
    ]
    assert result.entries[0].roll["skill"] == "Médecine"


def test_r12_stabilising_someone_not_in_a_coma_is_refused(campaign, gm, pc, other_pc):
    before = db_state()
    with pytest.raises(engine.NotInComa):
        run(
            campaign,
            gm,
            "stabilise",
            {"healer": str(other_pc.pk), "difficulty": "10"},
            character=pc,
            typed=[12],
        )
    assert db_state() == before


def test_r13_r14_waking_gives_one_pv_and_a_sequel(campaign, gm, pc):
    pc = put(pc, pv=-2, vital="stabilised", stabilised_at=T0, down_cause="brûlure")
    run(campaign, gm, "wake", {}, character=pc, typed=[15, 2])

    pc = reload(pc)
    assert (pc.pv, pc.vital, pc.down_cause, pc.stabilised_at, pc.last_wake_try) == (
        1,
        "up",
        "",
        None,
        None,
    )
    sequel = Sequel.objects.get(character=pc)
    assert (sequel.stat, sequel.cause, sequel.d6, sequel.gained_at) == ("PUI", "brûlure", 2, T0)
    assert log(campaign) == [
        ("change", "R13", pc.pk, "last_wake_try", None, iso(T0)),
        ("roll", "R13", pc.pk, [15], 16, True),  # Survie (VAI): 15 + 1 ≥ 10
        ("roll", "R14", pc.pk, [2], 2),  # D6 2: PUI
        (
            "change",
            "R14",
            pc.pk,
            "sequels",
            [],
            [{"stat": "PUI", "cause": "brûlure", "d6": 2, "at": iso(T0)}],
        ),
        ("change", "R13", pc.pk, "pv", -2, 1),
        ("change", "R13", pc.pk, "down_cause", "brûlure", ""),
        ("change", "R13", pc.pk, "stabilised_at", iso(T0), None),
        ("change", "R13", pc.pk, "last_wake_try", iso(T0), None),
        ("change", "R13", pc.pk, "vital", "stabilised", "up"),
    ]


def test_r13_failed_waking_try_is_remembered_and_a_second_one_the_same_hour_refused(
    campaign, gm, pc
):
    pc = put(pc, pv=-2, vital="stabilised", stabilised_at=T0)
    run(campaign, gm, "wake", {}, character=pc, typed=[2])

    assert reload(pc).last_wake_try == T0
    assert log(campaign) == [
        ("change", "R13", pc.pk, "last_wake_try", None, iso(T0)),
        ("roll", "R13", pc.pk, [2], 3, False),
    ]
    before = db_state()
    with pytest.raises(engine.WakeAlreadyTried):
        run(campaign, gm, "wake", {}, character=pc, typed=[20])
    assert db_state() == before


def test_r13_waking_someone_not_stabilised_is_refused(campaign, gm, pc):
    before = db_state()
    with pytest.raises(engine.NotStabilised):
        run(campaign, gm, "wake", {}, character=pc, typed=[15, 2])
    assert db_state() == before


def test_r15_the_gm_ends_a_coma(campaign, gm, pc):
    pc = put(pc, pv=-2, vital="coma", next_coma_hour=at(1))
    run(campaign, gm, "end_coma", {}, character=pc)

    pc = reload(pc)
    assert (pc.pv, pc.vital, pc.next_coma_hour) == (1, "up", None)
    assert log(campaign) == [
        ("change", "R15", pc.pk, "pv", -2, 1),
        ("change", "R15", pc.pk, "next_coma_hour", iso(at(1)), None),
        ("change", "R15", pc.pk, "vital", "coma", "up"),
    ]


def test_r16_only_the_gm_brings_the_dead_back(campaign, gm, pc):
    pc = put(pc, pv=-5, vital="dead")
    with pytest.raises(engine.CharacterDead):
        run(campaign, gm, "heal", {"amount": "20"}, character=pc)
    run(campaign, gm, "revive", {"pv": "3"}, character=pc)

    pc = reload(pc)
    assert (pc.pv, pc.vital) == (3, "up")
    assert log(campaign) == [
        ("change", "R16", pc.pk, "pv", -5, 3),
        ("change", "R16", pc.pk, "vital", "dead", "up"),
    ]


# ---------------------------------------------------------------------------------------------
# The clock and the scene (R10, R11, R18, R30, R32)


def test_r10_coma_comes_when_the_clock_passes_ten_minutes(campaign, gm, pc, other_pc):
    pc = put(
        pc,
        pv=0,
        vital="borrowed_time",
        coma_due=at(minutes=10),
        conditions=[("extenue", "deaths_door")],
    )
    run(campaign, gm, "clock", {"minutes": "10"})

    pc = reload(pc)
    assert (pc.vital, pc.coma_due, pc.next_coma_hour) == ("coma", None, at(1, 10))
    assert conditions_of(pc) == []
    assert Campaign.objects.get(pk=campaign.pk).clock == at(minutes=10)
    assert log(campaign) == [
        ("change", "R10", pc.pk, "coma_due", iso(at(minutes=10)), None),
        ("change", "R10", pc.pk, "next_coma_hour", None, iso(at(1, 10))),
        ("change", "R26", pc.pk, "conditions", [EXTENUE_DEATHS_DOOR], []),
        ("change", "R10", pc.pk, "vital", "borrowed_time", "coma"),
        ("change", "R32", None, "clock", iso(T0), iso(at(minutes=10))),
    ]
    assert [e.game_time for e in AuditEntry.objects.order_by("id")] == [at(minutes=10)] * 5


def test_r11_coma_hour_costs_a_pv_and_past_vai_a_survie_test(campaign, gm, pc, other_pc):
    pc = put(pc, pv=-1, vital="coma", next_coma_hour=at(minutes=30))
    run(campaign, gm, "clock", {"minutes": "60"}, typed=[10])

    pc = reload(pc)
    assert (pc.pv, pc.vital, pc.next_coma_hour) == (-2, "coma", at(1, 30))
    # At 08:30, −1 PV: −(−2) > VAI 1, so Survie (VAI): 10 + 1 = 11 ≥ 10, still alive.
    assert log(campaign) == [
        ("change", "R11", pc.pk, "next_coma_hour", iso(at(minutes=30)), iso(at(1, 30))),
        ("change", "R11", pc.pk, "pv", -1, -2),
        ("roll", "R11", pc.pk, [10], 11, True),
        ("change", "R32", None, "clock", iso(T0), iso(at(1))),
    ]
    entries = AuditEntry.objects.order_by("id")
    assert [e.game_time for e in entries] == [at(minutes=30)] * 3 + [at(1)]


def test_r11_failed_survie_in_a_coma_is_death(campaign, gm, pc):
    pc = put(pc, pv=-1, vital="coma", next_coma_hour=at(minutes=30))
    run(campaign, gm, "clock", {"minutes": "60"}, typed=[5])

    pc = reload(pc)
    assert (pc.pv, pc.vital, pc.next_coma_hour) == (-2, "dead", None)
    assert log(campaign) == [
        ("change", "R11", pc.pk, "next_coma_hour", iso(at(minutes=30)), iso(at(1, 30))),
        ("change", "R11", pc.pk, "pv", -1, -2),
        ("roll", "R11", pc.pk, [5], 6, False),
        ("change", "R11", pc.pk, "next_coma_hour", iso(at(1, 30)), None),
        ("change", "R11", pc.pk, "vital", "coma", "dead"),
        ("change", "R32", None, "clock", iso(T0), iso(at(1))),
    ]


def test_r30_illness_counts_down_at_morning_and_r18_resets_at_half_day(
    campaign, gm, pc, other_pc, npc
):
    Campaign.objects.filter(pk=campaign.pk).update(hour_rests_used=1)
    Illness.objects.create(character=pc, name="toux", severity=2, days_left=2, started_at=T0)
    Illness.objects.create(character=npc, name="", severity=1, days_left=0, started_at=T0)
    run(campaign, gm, "clock", {"to_morning": "on"})

    morning = at(22)  # day 2, 06:00
    campaign = Campaign.objects.get(pk=campaign.pk)
    assert (campaign.clock, campaign.hour_rests_used) == (morning, 0)
    assert Illness.objects.get(character=pc).days_left == 1
    assert not Illness.objects.filter(character=npc).exists()
    assert log(campaign) == [
        ("change", "R18", None, "hour_rests_used", 1, 0),  # 18:00, a new half-day
        (
            "change",
            "R30",
            pc.pk,
            "illness",
            {"severity": 2, "days_left": 2, "name": "toux"},
            {"severity": 2, "days_left": 1, "name": "toux"},
        ),
        ("change", "R30", npc.pk, "illness", {"severity": 1, "days_left": 0, "name": ""}, None),
        ("change", "R32", None, "clock", iso(T0), iso(morning)),
    ]
    assert AuditEntry.objects.order_by("id").first().game_time == at(10)


def test_r32_end_of_scene_and_r10_coma_for_whoever_is_on_borrowed_time(campaign, gm, pc, other_pc):
    pc = put(
        pc,
        pv=0,
        vital="borrowed_time",
        coma_due=at(minutes=10),
        conditions=[("extenue", "deaths_door")],
    )
    result = run(campaign, gm, "end_scene", {})

    assert Campaign.objects.get(pk=campaign.pk).scene == 2
    pc = reload(pc)
    assert (pc.vital, pc.coma_due, pc.next_coma_hour) == ("coma", None, at(1))
    assert reload(other_pc).vital == "up"
    assert log(campaign) == [
        ("change", "R32", None, "scene", 1, 2),
        ("change", "R10", pc.pk, "coma_due", iso(at(minutes=10)), None),
        ("change", "R10", pc.pk, "next_coma_hour", None, iso(at(1))),
        ("change", "R26", pc.pk, "conditions", [EXTENUE_DEATHS_DOOR], []),
        ("change", "R10", pc.pk, "vital", "borrowed_time", "coma"),
    ]
    assert result.character_ids == [pc.pk]


# ---------------------------------------------------------------------------------------------
# Rest (R17–R19, R28, R31)


def test_r17_r19_night_in_a_clinic_gives_four_and_1d4_extra_pv(campaign, gm, pc, other_pc, npc):
    pc = put(pc, pv=5, flux=2)
    npc = put(npc, pv=10, flux=1)
    run(campaign, gm, "night", {"hours": "8", "clinic": [str(pc.pk)]}, typed=[3])

    pc, other_pc, npc = reload(pc), reload(other_pc), reload(npc)
    assert (pc.pv, pc.flux) == (12, 6)  # 5 + 4 + 3 (clinic), 2 + 4
    assert (other_pc.pv, other_pc.flux) == (18, 6)  # already full
    assert (npc.pv, npc.flux) == (12, 4)  # capped at the maxima (R1)
    evening = at(8)
    assert Campaign.objects.get(pk=campaign.pk).clock == evening
    assert log(campaign) == [
        ("change", "R32", None, "clock", iso(T0), iso(evening)),
        ("roll", "R19", pc.pk, [3], 3),
        ("change", "R17", pc.pk, "pv", 5, 12),
        ("change", "R17", pc.pk, "flux", 2, 6),
        ("change", "R17", npc.pk, "pv", 10, 12),
        ("change", "R17", npc.pk, "flux", 1, 4),
    ]


def test_r28_illness_caps_the_night_and_r31_short_night_asks_volonte(campaign, gm, pc, other_pc):
    pc = put(pc, pv=5, flux=2)
    Illness.objects.create(character=pc, name="", severity=3, days_left=3, started_at=T0)
    run(campaign, gm, "night", {"hours": "4", "sleepers": [str(pc.pk)]}, typed=[15])

    pc = reload(pc)
    # Seriously ill: the night gives 1 and 1; Volonté (VAI): 15 + 1 − 3 (illness) = 13 ≥ 10.
    assert (pc.pv, pc.flux, pc.sleep_deprived) == (6, 3, True)
    assert reload(other_pc).pv == 18
    assert log(campaign) == [
        ("change", "R32", None, "clock", iso(T0), iso(at(4))),
        ("change", "R28", pc.pk, "pv", 5, 6),
        ("change", "R28", pc.pk, "flux", 2, 3),
        ("roll", "R31", pc.pk, [15], 13, True),
        ("change", "R31", pc.pk, "sleep_deprived", False, True),
    ]


def test_r31_failed_volonte_after_a_short_night_is_extenue(campaign, gm, pc):
    run(campaign, gm, "night", {"hours": "4", "sleepers": [str(pc.pk)]}, typed=[2])

    assert conditions_of(pc) == [("extenue", "sleep")]
    assert log(campaign)[-1] == (
        "change",
        "R31",
        pc.pk,
        "conditions",
        [],
        [{"kind": "extenue", "cause": "sleep"}],
    )


def test_r18_hour_rest_rolls_once_for_the_group(campaign, gm, pc):
    run(campaign, gm, "hour_rest", {}, typed=[3])

    campaign = Campaign.objects.get(pk=campaign.pk)
    assert (campaign.pending_hour_rest, campaign.hour_rests_used) == (3, 1)
    assert log(campaign) == [
        ("roll", "R18", None, [3], 3),
        ("change", "R18", None, "hour_rests_used", 0, 1),
        ("change", "R18", None, "pending_hour_rest", None, 3),
    ]


def test_r18_each_character_shares_the_roll(campaign, gm, pc, other_pc):
    Campaign.objects.filter(pk=campaign.pk).update(pending_hour_rest=3, hour_rests_used=1)
    run(campaign, gm, "share_hour_rest", {f"pv_{pc.pk}": "2", f"flux_{pc.pk}": "1"})

    pc = reload(pc)
    assert (pc.pv, pc.flux) == (13, 8)
    assert Campaign.objects.get(pk=campaign.pk).pending_hour_rest is None
    assert log(campaign) == [
        ("change", "R18", pc.pk, "pv", 11, 13),
        ("change", "R18", pc.pk, "flux", 7, 8),
        ("change", "R18", None, "pending_hour_rest", 3, None),
    ]


def test_r18_a_split_that_does_not_add_up_is_refused(campaign, gm, pc):
    Campaign.objects.filter(pk=campaign.pk).update(pending_hour_rest=3, hour_rests_used=1)
    before = db_state()
    with pytest.raises(engine.InvalidHourRestSplit):
        run(campaign, gm, "share_hour_rest", {f"pv_{pc.pk}": "2", f"flux_{pc.pk}": "2"})
    assert db_state() == before


def test_r18_the_half_day_limit_and_the_gms_override(campaign, gm, pc):
    Campaign.objects.filter(pk=campaign.pk).update(hour_rests_used=1)
    before = db_state()
    with pytest.raises(engine.HourRestLimitReached):
        run(campaign, gm, "hour_rest", {}, typed=[2])
    assert db_state() == before

    run(campaign, gm, "hour_rest", {"gm_override": "on"}, typed=[2])
    assert log(campaign) == [
        ("roll", "R18", None, [2], 2),
        ("change", "R18", None, "hour_rests_used", 1, 2),
        ("change", "R18", None, "pending_hour_rest", None, 2),
    ]


# ---------------------------------------------------------------------------------------------
# What every service does around the engine


def test_it_publishes_the_characters_and_the_last_log_id_from_its_transaction(
    campaign, gm, pc, published
):
    # journal.events delivers it only at commit (NOTIFY, or on_commit on SQLite): the
    # committed and rolled-back cases are in tests/live/test_live.py.
    result = run(campaign, gm, "heal", {"amount": "1"}, character=pc)
    assert published == [(campaign.pk, [pc.pk], result.entries[-1].pk)]


def test_it_writes_the_visibility_chosen(campaign, gm, pc):
    run(campaign, gm, "check", {"stat": "VAI", "difficulty": "10"}, character=pc, typed=[4])
    run(campaign, gm, "damage", {"amount": "3", "visibility": "gm"}, character=pc)

    assert list(AuditEntry.objects.order_by("id").values_list("visibility", flat=True)) == [
        "everyone",
        "gm",
    ]


def test_it_leaves_characters_it_was_not_asked_about_alone(campaign, gm, pc, other_pc, monkeypatch):
    # The engine only sees the character named; the others are neither read nor written.
    heal = engine.heal

    def heal_one(state, key, amount, **kwargs):
        assert [c.key for c in state.characters] == [str(pc.pk)]
        return heal(state, key, amount, **kwargs)

    monkeypatch.setattr(engine, "heal", heal_one)
    services.character_heal(character_id=pc.pk, actor=gm, amount=1)
    assert reload(pc).pv == 12


def test_a_failure_while_writing_rolls_back_everything(campaign, gm, pc, monkeypatch):
    # Even if the engine returned, a failure while writing leaves no half-written action.
    def boom(**kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(services.audit, "append", boom)
    before = db_state()
    with pytest.raises(RuntimeError):
        run(campaign, gm, "damage", {"amount": "5"}, character=pc)
    assert db_state() == before


def test_the_same_seed_gives_the_same_log(campaign, gm, pc, monkeypatch):
    monkeypatch.setattr(services, "dice_source", lambda typed: random.Random(7))
    first = run(campaign, gm, "check", {"stat": "VAI", "difficulty": "10"}, character=pc)
    second = run(campaign, gm, "check", {"stat": "VAI", "difficulty": "10"}, character=pc)

    assert first.entries[0].roll == second.entries[0].roll


# ---------------------------------------------------------------------------------------------
# The campaign's settings reach the engine (RULES.md: every Choice is a campaign setting)


def test_r10_the_campaigns_coma_delay_sets_when_borrowed_time_ends(campaign, gm, pc):
    Campaign.objects.filter(pk=campaign.pk).update(coma_delay_minutes=25)
    run(campaign, gm, "damage", {"amount": "11", "ignores_pa": "on"}, character=pc, typed=[14])
    assert reload(pc).coma_due == at(minutes=25)


def test_r30_the_campaigns_morning_hour_decides_when_the_next_morning_is(campaign, gm, pc):
    Campaign.objects.filter(pk=campaign.pk).update(morning_hour=9)
    run(campaign, gm, "clock", {"to_morning": "on"})
    # The clock starts at day 1, 08:00: with mornings at 09:00 the next one is an hour away.
    assert Campaign.objects.get(pk=campaign.pk).clock == at(1)


def test_r13_without_automatic_tries_the_clock_makes_no_waking_try(campaign, gm, pc):
    Campaign.objects.filter(pk=campaign.pk).update(automatic_wake_tries=False)
    put(pc, pv=1, vital="stabilised", stabilised_at=T0)
    run(campaign, gm, "clock", {"minutes": "180"})
    pc = reload(pc)
    assert (pc.vital, pc.last_wake_try) == ("stabilised", None)
    assert not AuditEntry.objects.filter(campaign=campaign, kind="roll").exists()


def test_r31_a_poor_full_night_ends_sleep_deprivation_when_the_campaign_says_so(campaign, gm, pc):
    Campaign.objects.filter(pk=campaign.pk).update(poor_night_is_proper=True)
    put(pc, sleep_deprived=True)
    run(campaign, gm, "night", {"hours": "8", "poor_quality": "on"})
    assert reload(pc).sleep_deprived is False
