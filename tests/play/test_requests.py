"""R34: rolls the GM asks of a player, and rules rolls the clock leaves to them.

Isaure (the `pc` fixture, owned by `player`) has VAI 1, ADR 1, PA 2 and 11 PV.
"""

import pytest

from campaign.models import Campaign
from characters.models import Character
from journal.models import AuditEntry
from play import requests, services
from play.models import RequestKind, RequestStatus, RollRequest
from rules.engine import RuleError
from tests.play.steps import at, put


def _rules_on(campaign):
    Campaign.objects.filter(pk=campaign.pk).update(players_roll_rules=True)


def _entries(campaign, since=0):
    return list(AuditEntry.objects.filter(campaign=campaign, pk__gt=since).order_by("pk"))


def _last_id(campaign):
    return (
        AuditEntry.objects.filter(campaign=campaign)
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
        or 0
    )


def test_r34_r10_damage_leaves_the_survie_to_the_player(campaign, gm, player, pc):
    _rules_on(campaign)
    result = services.character_damage(character_id=pc.pk, actor=gm, amount=13)
    pc.refresh_from_db()
    # R3: 13 − 2 PA = 11; PV 0, and no Survie rolled yet: the player rolls it.
    assert (pc.pv, pc.vital) == (0, "up")
    [request] = result.requests
    assert (request.kind, request.rule_id, request.status) == ("deaths_door", "R10", "pending")
    assert request.holds_clock and request.requested_by == gm
    assert not [e for e in result.entries if e.kind == "roll"]
    asked = result.entries[-1]
    assert (asked.rule_id, asked.field) == ("R34", "request")
    assert "demandé à paul_joueur par gaelle_mj" in asked.text_fr

    since = _last_id(campaign)
    answer = requests.roll_request_answer(request_id=request.pk, actor=player, dice=[14])
    pc.refresh_from_db()
    # R10: Survie 14 + 1 (VAI) = 15 ≥ 10: borrowed time, Exténué.
    assert pc.vital == "borrowed_time"
    roll = next(e for e in _entries(campaign, since) if e.kind == "roll")
    assert (roll.rule_id, roll.actor, roll.typed_in, roll.roll["dice"]) == (
        "R10",
        player,
        True,
        [14],
    )
    note = [e for e in answer.entries if e.field == "request"][-1]
    assert note.rule_id == "R34" and note.actor == player
    assert "jet demandé par gaelle_mj, lancé par paul_joueur (dé saisi)" in note.text_fr
    request.refresh_from_db()
    assert request.status == "answered" and request.closed_by == player and request.typed_in
    assert "sursis" in request.result_fr


def test_r34_r10_a_failed_survie_asked_of_the_player_is_the_coma(campaign, gm, player, pc):
    _rules_on(campaign)
    [request] = services.character_damage(character_id=pc.pk, actor=gm, amount=20).requests
    requests.roll_request_answer(request_id=request.pk, actor=player, dice=[2])
    pc.refresh_from_db()
    assert (pc.vital, pc.pv) == ("coma", -7)
    assert pc.next_coma_hour == at(1)


def test_r34_more_damage_at_0_pv_asks_no_second_survie(campaign, gm, pc):
    _rules_on(campaign)
    services.character_damage(character_id=pc.pk, actor=gm, amount=13)
    again = services.character_damage(character_id=pc.pk, actor=gm, amount=5)
    assert again.requests == ()
    assert RollRequest.objects.filter(character=pc, status="pending").count() == 1


def test_r34_setting_off_the_server_rolls_r10_as_before(campaign, gm, pc):
    result = services.character_damage(character_id=pc.pk, actor=gm, amount=13)
    assert result.requests == ()
    assert [e.rule_id for e in result.entries if e.kind == "roll"] == ["R10"]


def test_r34_the_gm_asks_for_r10_by_hand_from_the_damage(campaign, gm, player, pc):
    result = services.character_damage(character_id=pc.pk, actor=gm, amount=13, ask_players=True)
    [request] = result.requests
    # The GM rolls it instead (R34): the same R10 test, logged as the GM's.
    requests.roll_request_answer(request_id=request.pk, actor=gm, dice=[3])
    pc.refresh_from_db()
    assert pc.vital == "coma"
    request.refresh_from_db()
    assert request.closed_by == gm


def test_r34_r5_a_test_asked_then_rolled_on_the_server(campaign, gm, player, pc):
    result = requests.roll_request_create(
        character_id=pc.pk, actor=gm, stat="ADR", skill="Crochetage", difficulty=12, modifier=1
    )
    [request] = result.requests
    assert (request.kind, request.rule_id, request.holds_clock) == ("check", "R5", False)
    odds = requests.request_odds(request, campaign)
    # R5: d20 + 1 (ADR) + 1 (MJ) ≥ 12: the faces 10 to 20, 11 of 20.
    assert (odds.percent, odds.rule_id) == (55, "R5")
    answer = requests.roll_request_answer(request_id=request.pk, actor=player)
    [roll] = [e for e in answer.entries if e.kind == "roll"]
    assert (roll.rule_id, roll.actor, roll.typed_in) == ("R5", player, False)
    assert roll.roll["skill"] == "Crochetage" and roll.roll["difficulty"] == 12
    request.refresh_from_db()
    assert request.status == "answered" and not request.typed_in


def test_r34_cancelled_request_cannot_be_answered(campaign, gm, player, pc):
    [request] = requests.roll_request_create(character_id=pc.pk, actor=gm, stat="ADR").requests
    version = Character.objects.get(pk=pc.pk).version
    result = requests.roll_request_cancel(request_id=request.pk, actor=gm)
    assert "demande annulée par gaelle_mj" in result.entries[0].text_fr
    assert Character.objects.get(pk=pc.pk).version > version  # the card is drawn again
    with pytest.raises(RuleError, match="annulée"):
        requests.roll_request_answer(request_id=request.pk, actor=player)
    with pytest.raises(RuleError, match="annulée"):
        requests.roll_request_cancel(request_id=request.pk, actor=gm)


def test_r34_refusals(campaign, gm, player, pc, npc):
    with pytest.raises(RuleError, match="pas de joueur"):
        requests.roll_request_create(character_id=npc.pk, actor=gm, stat="ADR")
    requests.roll_request_create(character_id=pc.pk, actor=gm, stat="ADR")
    with pytest.raises(RuleError, match="déjà un jet en attente"):
        requests.roll_request_create(character_id=pc.pk, actor=gm, stat="PUI")
    # R10 by hand only when due.
    other = RollRequest.objects.get(character=pc)
    requests.roll_request_cancel(request_id=other.pk, actor=gm)
    with pytest.raises(RuleError, match="R10"):
        requests.roll_request_create(character_id=pc.pk, actor=gm, kind="deaths_door")
    # R5: an unconscious character makes no test.
    put(pc, vital="coma", pv=-1, next_coma_hour=at(1))
    with pytest.raises(RuleError, match="inconscient"):
        requests.roll_request_create(character_id=pc.pk, actor=gm, stat="ADR")
    assert not RollRequest.objects.filter(status="pending").exists()


def test_r34_a_typed_die_out_of_range_applies_nothing(campaign, gm, player, pc):
    [request] = requests.roll_request_create(character_id=pc.pk, actor=gm, stat="ADR").requests
    since = _last_id(campaign)
    with pytest.raises(RuleError, match="D20"):
        requests.roll_request_answer(request_id=request.pk, actor=player, dice=[25])
    request.refresh_from_db()
    assert request.status == "pending" and _entries(campaign, since) == []


def test_r34_r11_the_clock_stops_at_the_hourly_death_test(campaign, gm, player, pc):
    _rules_on(campaign)
    # In a coma at −1 PV; at 09:00 the hour takes 1 PV: −PV 2 > VAI 1, a Survie test (R11).
    put(pc, vital="coma", pv=-1, next_coma_hour=at(1))
    result = services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=150)
    [request] = result.requests
    assert (request.kind, request.rule_id) == ("coma_hour", "R11")
    assert (request.due_at, request.clock_target) == (at(1), at(2.5))
    campaign.refresh_from_db()
    pc.refresh_from_db()
    # R11/R34: the hour's PV loss is applied when the clock stops; only its test waits.
    assert campaign.clock == at(1) and pc.pv == -2
    with pytest.raises(services.ClockWaits, match="R34"):
        services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=10)
    with pytest.raises(services.ClockWaits):
        services.scene_end(campaign_id=campaign.pk, actor=gm)

    answer = requests.roll_request_answer(request_id=request.pk, actor=player, dice=[12])
    pc.refresh_from_db()
    campaign.refresh_from_db()
    # The hour's Survie 12 + 1 = 13 ≥ 10, alive; then the clock goes on and stops at 10:00,
    # that hour's PV lost and its test (R34) asked again.
    assert pc.pv == -3 and pc.vital == "coma"
    assert campaign.clock == at(2)
    [again] = answer.requests
    assert (again.kind, again.due_at, again.clock_target) == ("coma_hour", at(2), at(2.5))
    roll = next(e for e in answer.entries if e.kind == "roll")
    assert (roll.rule_id, roll.actor, roll.typed_in) == ("R11", player, True)

    requests.roll_request_answer(request_id=again.pk, actor=gm, dice=[1])
    pc.refresh_from_db()
    campaign.refresh_from_db()
    assert pc.vital == "dead" and campaign.clock == at(2.5)


def test_r34_r11_an_hour_short_of_the_threshold_does_not_stop_the_clock(campaign, gm, pc):
    _rules_on(campaign)
    put(pc, vital="coma", pv=5, next_coma_hour=at(1))  # PV 5 in a coma (set by hand)
    Character.objects.filter(pk=pc.pk).update(pv=0)
    result = services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=60)
    # 0 → −1: −PV 1 is not above VAI 1, no test, no stop.
    assert result.requests == ()
    campaign.refresh_from_db()
    assert campaign.clock == at(1)


def test_r34_r13_the_clock_stops_at_the_waking_try(campaign, gm, player, pc):
    _rules_on(campaign)
    put(pc, vital="stabilised", pv=-1, stabilised_at=at(0), down_cause="chute")
    result = services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=90)
    [request] = result.requests
    assert (request.kind, request.rule_id, request.due_at) == ("wake_clock", "R13", at(1))
    requests.roll_request_answer(request_id=request.pk, actor=player, dice=[18])
    pc.refresh_from_db()
    campaign.refresh_from_db()
    # R13: 18 + 1 ≥ 10: awake at 1 PV with a sequel (R14, its D6 rolled by the server).
    assert (pc.vital, pc.pv) == ("up", 1)
    assert pc.sequels.count() == 1
    assert campaign.clock == at(1.5)
    d6 = AuditEntry.objects.get(campaign=campaign, rule_id="R14", kind="roll")
    assert not d6.typed_in


def test_r34_r31_a_short_night_asks_for_the_volonte(campaign, gm, player, pc, npc):
    _rules_on(campaign)
    result = services.party_night_rest(campaign_id=campaign.pk, actor=gm, hours=4)
    [request] = result.requests
    assert (request.kind, request.rule_id, request.character_id) == ("sleep", "R31", pc.pk)
    # The NPC's Volonté is the server's, as before.
    assert [e.character_id for e in result.entries if e.rule_id == "R31" and e.kind == "roll"] == [
        npc.pk
    ]
    requests.roll_request_answer(request_id=request.pk, actor=player, dice=[19])
    pc.refresh_from_db()
    assert pc.sleep_deprived


def test_r34_r28_falling_ill_waits_for_the_constitution(campaign, gm, player, pc):
    _rules_on(campaign)
    result = services.character_fall_ill(character_id=pc.pk, actor=gm, severity=2, name="fièvre")
    [request] = result.requests
    assert (request.kind, request.rule_id) == ("fall_ill", "R28")
    pc.refresh_from_db()
    assert not hasattr(pc, "illness") or pc.illness is None
    requests.roll_request_answer(request_id=request.pk, actor=player, dice=[15])
    illness = Character.objects.get(pk=pc.pk).illness
    assert (illness.severity, illness.name) == (2, "fièvre")
    assert 0 <= illness.days_left <= 3  # R28 success: 1D4 − 1, rolled by the server


def test_r34_r13_waking_try_asked_by_hand(campaign, gm, player, pc):
    put(pc, vital="stabilised", pv=-1, stabilised_at=at(0), down_cause="chute")
    [request] = requests.roll_request_create(character_id=pc.pk, actor=gm, kind="wake").requests
    assert (request.rule_id, request.holds_clock) == ("R13", True)
    requests.roll_request_answer(request_id=request.pk, actor=player, dice=[2])
    pc.refresh_from_db()
    assert pc.vital == "stabilised" and pc.last_wake_try == at(0)


def test_r10_r34_healed_above_0_the_survie_asked_lapses_and_cannot_be_answered(
    campaign, gm, player, pc
):
    _rules_on(campaign)
    [request] = services.character_damage(character_id=pc.pk, actor=gm, amount=13).requests
    since = _last_id(campaign)
    services.character_heal(character_id=pc.pk, actor=gm, amount=3)
    request.refresh_from_db()
    assert request.status == RequestStatus.LAPSED
    [lapse] = [e for e in _entries(campaign, since) if e.field == "request"]
    assert lapse.rule_id == "R34" and lapse.after["status"] == "lapsed"
    assert "la demande devient caduque" in lapse.text_fr and "(R10)" in lapse.text_fr
    with pytest.raises(RuleError, match="n’est plus dû"):
        requests.roll_request_answer(request_id=request.pk, actor=player, dice=[10])
    assert not [e for e in _entries(campaign, since) if e.kind == "roll"]


def test_r34_a_request_entry_is_not_undone_but_its_action_is(campaign, gm, pc):
    _rules_on(campaign)
    result = services.character_damage(character_id=pc.pk, actor=gm, amount=13)
    asked = result.entries[-1]
    with pytest.raises(services.NotUndoable):
        services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=asked.pk)
    services.entry_undo(
        campaign_id=campaign.pk, actor=gm, entry_id=result.entries[0].pk, whole_action=True
    )
    pc.refresh_from_db()
    assert pc.pv == 11


def test_r34_the_same_test_asked_of_several_players(campaign, gm, pc, other_pc, npc):
    results = requests.roll_requests_create(
        campaign_id=campaign.pk,
        actor=gm,
        character_ids=[pc.pk, other_pc.pk],
        stat="INS",
        skill="Perception",
        difficulty=10,
    )
    assert sorted(r.requests[0].character_id for r in results) == sorted([pc.pk, other_pc.pk])
    # All or none: with the NPC among them, nothing is asked.
    RollRequest.objects.all().delete()
    with pytest.raises(RuleError):
        requests.roll_requests_create(
            campaign_id=campaign.pk, actor=gm, character_ids=[pc.pk, npc.pk], stat="INS"
        )
    assert not RollRequest.objects.exists()
    assert RequestKind.CHECK == "check"


def test_r34_r10_r11_from_borrowed_time_to_the_hour_that_asks(campaign, gm, player, pc):
    _rules_on(campaign)
    [request] = services.character_damage(character_id=pc.pk, actor=gm, amount=13).requests
    requests.roll_request_answer(request_id=request.pk, actor=player, dice=[14])
    # 08:10 the coma (R10, no roll); 09:10 −1 PV (R11, −PV 1 not above VAI 1); 10:10 −2 PV
    # would ask a Survie: the clock stops there.
    for _hour in range(2):
        assert services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=60).requests == ()
    [stopped] = services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=60).requests
    assert (stopped.rule_id, stopped.due_at, stopped.clock_target) == ("R11", at(2, 10), at(3))
    # The card shows it: the character's version moved, though the clock stopped before the
    # hour touched anything of it.
    assert Character.objects.get(pk=pc.pk).version > stopped.character.version


# R34 with actions that move the clock: the night, the hour rest and a round with a length stop
# with the clock at a player's roll, and end once it is answered. Isaure (`pc`) is stabilised
# at 08:00: her first automatic waking try (R13) falls at 09:00.


def _stabilised(campaign, pc):
    _rules_on(campaign)
    put(pc, vital="stabilised", pv=-1, stabilised_at=at(0), down_cause="chute")


def test_r34_r17_the_night_waits_for_the_roll_in_its_hours(campaign, gm, player, pc, other_pc):
    _stabilised(campaign, pc)
    put(other_pc, pv=10, flux=2)
    result = services.party_night_rest(campaign_id=campaign.pk, actor=gm, hours=8)
    [request] = result.requests
    assert (request.kind, request.due_at, request.clock_target) == ("wake_clock", at(1), at(8))
    assert request.clock_then["action"] == "night"
    campaign.refresh_from_db()
    assert campaign.clock == at(1)
    assert Character.objects.get(pk=other_pc.pk).pv == 10  # the night gives nothing yet
    # The history says why the night has not ended (the steps kept with the clock's entry).
    assert any("nuit suspendue" in step["fr"] for e in result.entries for step in e.steps)
    with pytest.raises(services.ClockWaits):
        services.party_night_rest(campaign_id=campaign.pk, actor=gm, hours=8)
    # A roll the rules made due is not withdrawn: the GM rolls it instead (R34).
    with pytest.raises(RuleError, match="ne s’annule pas"):
        requests.roll_request_cancel(request_id=request.pk, actor=gm)

    since = _last_id(campaign)
    requests.roll_request_answer(request_id=request.pk, actor=player, dice=[18])
    campaign.refresh_from_db()
    pc.refresh_from_db()
    assert campaign.clock == at(8) and (pc.vital, pc.pv) == ("up", 1)
    sleeper = Character.objects.get(pk=other_pc.pk)
    assert (sleeper.pv, sleeper.flux) == (14, 6)  # the night's 4 and 4 (R17), at its end
    night = [e for e in _entries(campaign, since) if e.character_id == other_pc.pk]
    assert {e.rule_id for e in night} == {"R17"} and all(e.actor == player for e in night)


def test_r34_r18_the_hour_rests_1d4_comes_once_the_roll_is_answered(campaign, gm, player, pc):
    _stabilised(campaign, pc)
    result = services.party_hour_rest(campaign_id=campaign.pk, actor=gm)
    [request] = result.requests
    assert request.clock_then == {"action": "hour_rest"}
    campaign.refresh_from_db()
    assert campaign.pending_hour_rest is None and campaign.hour_rests_used == 1
    # The GM rolls it instead (server): the try, then the group's 1D4 (R18).
    requests.roll_request_answer(request_id=request.pk, actor=gm)
    campaign.refresh_from_db()
    assert 1 <= campaign.pending_hour_rest <= 4 and campaign.clock == at(1)
    # Off (the form's choice): the hour rolls the try itself, as before.
    Campaign.objects.filter(pk=campaign.pk).update(pending_hour_rest=None)
    put(pc, vital="stabilised", pv=-1, stabilised_at=at(1), wake_tries_from=None)
    off = services.party_hour_rest(
        campaign_id=campaign.pk, actor=gm, ask_players=False, gm_override=True
    )
    assert off.requests == () and any(e.rule_id == "R13" and e.kind == "roll" for e in off.entries)


def test_r34_r33_a_round_with_a_length_waits_for_the_roll_in_it(campaign, gm, player, pc, npc):
    _stabilised(campaign, pc)
    Campaign.objects.filter(pk=campaign.pk).update(round_seconds=3600)
    services.fight_start(campaign_id=campaign.pk, actor=gm, character_ids=[npc.pk])
    result = services.fight_next_turn(campaign_id=campaign.pk, actor=gm)
    [request] = result.requests
    assert request.clock_then == {"action": "new_round"}
    campaign.refresh_from_db()
    assert campaign.fight["round"] == 1 and campaign.clock == at(1)
    with pytest.raises(services.ClockWaits):
        services.fight_next_turn(campaign_id=campaign.pk, actor=gm)
    requests.roll_request_answer(request_id=request.pk, actor=player, dice=[18])
    campaign.refresh_from_db()
    assert (campaign.fight["round"], campaign.fight["turn"]) == (2, 0)


def test_r34_with_the_setting_turned_off_the_clock_a_gm_answer_lets_go_stops_no_more(
    campaign, gm, pc
):
    _rules_on(campaign)
    put(pc, vital="coma", pv=-1, next_coma_hour=at(1))
    [request] = services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=150).requests
    Campaign.objects.filter(pk=campaign.pk).update(players_roll_rules=False)
    # The GM rolls the 09:00 test; the clock goes on to 10:30 and rolls 10:00's itself.
    answer = requests.roll_request_answer(request_id=request.pk, actor=gm, dice=[15])
    campaign.refresh_from_db()
    assert answer.requests == () and campaign.clock == at(2.5)
    assert not RollRequest.objects.filter(status=RequestStatus.PENDING).exists()
