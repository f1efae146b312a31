"""R34 (settled points, third reading): a rules roll asked of a player that the rules no
longer call for lapses, logged, and a clock stopped at it goes on from where it stopped. No
state leaves a campaign with a request that nobody can close.

Isaure (the `pc` fixture, owned by `player`) has VAI 1, ADR 1, PA 2 and 11 PV; the clock
starts at `at(0)`.
"""

import random

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.models import Campaign
from characters.models import Character
from journal.models import AuditEntry
from play import requests, services
from play.models import RequestStatus, RollRequest
from rules.engine import RuleError
from tests.play.steps import at, put


def _rules_on(campaign):
    Campaign.objects.filter(pk=campaign.pk).update(players_roll_rules=True)


def _lapses(campaign):
    return list(
        AuditEntry.objects.filter(
            campaign=campaign, field="request", after__status="lapsed"
        ).order_by("pk")
    )


def _stopped_at_coma_hour(campaign, gm, pc):
    _rules_on(campaign)
    put(pc, vital="coma", pv=-1, next_coma_hour=at(1))
    [request] = services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=150).requests
    campaign.refresh_from_db()
    assert campaign.clock == at(1) and request.kind == "coma_hour"
    return request


def test_r15_r34_healed_above_0_the_coma_hours_survie_lapses_and_the_clock_goes_on(
    campaign, gm, player, pc
):
    request = _stopped_at_coma_hour(campaign, gm, pc)
    services.character_heal(character_id=pc.pk, actor=gm, amount=5)
    request.refresh_from_db()
    campaign.refresh_from_db()
    pc.refresh_from_db()
    # R15: PV −2 + 5 = 3 in a coma: stabilised, no more R11 test; the request lapses and the
    # clock goes on from 09:00 towards 10:30, and stops again at 10:00 for the first waking
    # try (R13), asked of the player in turn.
    assert request.status == RequestStatus.LAPSED
    assert (pc.vital, pc.pv) == ("stabilised", 3)
    assert campaign.clock == at(2)
    [wake] = RollRequest.objects.filter(character=pc, status="pending")
    assert (wake.kind, wake.clock_target) == ("wake_clock", at(2.5))
    requests.roll_request_answer(request_id=wake.pk, actor=player, dice=[2])
    campaign.refresh_from_db()
    assert campaign.clock == at(2.5)
    [lapse] = _lapses(campaign)
    assert lapse.rule_id == "R34" and "(R11)" in lapse.text_fr
    assert "la demande devient caduque" in lapse.text_fr
    # Nobody rolled the lapsed test, and the clock is free again.
    assert not AuditEntry.objects.filter(campaign=campaign, kind="roll", rule_id="R11").exists()
    services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=10, ask_players=False)
    campaign.refresh_from_db()
    assert campaign.clock == at(2.5, 10)


def test_r12_r34_stabilised_by_medecine_the_waiting_survie_lapses(campaign, gm, player, pc, npc):
    request = _stopped_at_coma_hour(campaign, gm, pc)
    Character.objects.filter(pk=npc.pk).update(stats={**npc.stats, "ESP": 5})
    services.character_stabilise(character_id=pc.pk, actor=gm, healer_id=npc.pk, dice=[19])
    request.refresh_from_db()
    pc.refresh_from_db()
    assert pc.vital == "stabilised"
    assert request.status == RequestStatus.LAPSED
    with pytest.raises(RuleError, match="n’est plus dû"):
        requests.roll_request_answer(request_id=request.pk, actor=player, dice=[10])


def test_r16_r34_dead_meanwhile_the_waking_try_lapses(campaign, gm, player, pc):
    _rules_on(campaign)
    put(pc, vital="stabilised", pv=-1, stabilised_at=at(0), down_cause="chute")
    [request] = services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=90).requests
    assert request.kind == "wake_clock"
    # The GM ends the coma by hand (R15): awake, no waking try is due any more.
    services.coma_end(character_id=pc.pk, actor=gm)
    request.refresh_from_db()
    campaign.refresh_from_db()
    assert request.status == RequestStatus.LAPSED
    assert campaign.clock == at(1.5)


def test_r31_r34_fallen_into_a_coma_the_volonte_lapses(campaign, gm, player, pc):
    _rules_on(campaign)
    [request] = services.party_night_rest(campaign_id=campaign.pk, actor=gm, hours=4).requests
    assert request.kind == "sleep"
    services.character_damage(character_id=pc.pk, actor=gm, amount=30, dice=[1])
    request.refresh_from_db()
    assert request.status == RequestStatus.LAPSED


def test_r34_a_request_left_stale_before_is_lapsed_by_the_next_clock_move(campaign, gm, player, pc):
    """A campaign frozen by a request the rules no longer call for (as an earlier version
    left some): the clock's next move lapses it, then moves, even with the setting off."""
    request = _stopped_at_coma_hour(campaign, gm, pc)
    Character.objects.filter(pk=pc.pk).update(pv=4, vital="stabilised", stabilised_at=at(1))
    Campaign.objects.filter(pk=campaign.pk).update(players_roll_rules=False)
    services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=10)
    request.refresh_from_db()
    campaign.refresh_from_db()
    assert request.status == RequestStatus.LAPSED
    # The stopped move went on to 10:30, then the GM's 10 minutes.
    assert campaign.clock == at(2.5, 10)


def test_r34_a_request_still_due_does_not_lapse(campaign, gm, player, pc):
    request = _stopped_at_coma_hour(campaign, gm, pc)
    services.flux_spend(character_id=pc.pk, actor=gm, amount=1)
    request.refresh_from_db()
    assert request.status == RequestStatus.PENDING
    assert services.stale_requests_lapse(campaign_id=campaign.pk, actor=gm) == []


# The property: whatever the GM does while requests wait, every pending request can be
# closed (cancelled when the GM chose it, else answered by the GM or lapsed), and afterwards
# the clock moves.
ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(
            ["damage", "heal", "clock", "night", "stabilise", "coma_end", "revive", "answer"]
        ),
        st.integers(min_value=1, max_value=14),
    ),
    min_size=1,
    max_size=8,
)


def _play(campaign, gm, player, pc, npc, action, amount, rng):
    pending = RollRequest.objects.filter(campaign=campaign, status="pending").first()
    calls = {
        # From 11 to 24: enough to bring her to 0 PV or below from full health (PA 2).
        "damage": lambda: services.character_damage(
            character_id=pc.pk, actor=gm, amount=amount + 10
        ),
        "heal": lambda: services.character_heal(character_id=pc.pk, actor=gm, amount=amount + 4),
        "clock": lambda: services.clock_advance(
            campaign_id=campaign.pk, actor=gm, minutes=amount * 20
        ),
        "night": lambda: services.party_night_rest(
            campaign_id=campaign.pk, actor=gm, hours=amount % 9 + 1
        ),
        "stabilise": lambda: services.character_stabilise(
            character_id=pc.pk, actor=gm, healer_esp=3, dice=[rng.randint(1, 20)]
        ),
        "coma_end": lambda: services.coma_end(character_id=pc.pk, actor=gm),
        "revive": lambda: services.character_revive(character_id=pc.pk, actor=gm, pv=amount),
        "answer": lambda: (
            pending
            and requests.roll_request_answer(
                request_id=pending.pk, actor=player, dice=[rng.randint(1, 20)]
            )
        ),
    }
    try:
        with transaction.atomic():
            calls[action]()
    except RuleError:
        pass  # refused (the clock waits, nothing to heal…): nothing written


def _close_everything(campaign, gm):
    for _ in range(50):
        pending = RollRequest.objects.filter(campaign=campaign, status="pending").first()
        if pending is None:
            return
        if pending.cancellable:
            requests.roll_request_cancel(request_id=pending.pk, actor=gm)
        else:
            # The GM rolls it instead (R34); a roll no longer due lapses instead of refusing.
            requests.roll_request_answer(request_id=pending.pk, actor=gm)
    pytest.fail("requests kept coming after 50 closings")


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(actions=ACTIONS, seed=st.integers(0, 2**16))
def test_r34_every_pending_request_can_be_closed_and_then_the_clock_moves(
    campaign, gm, player, pc, npc, actions, seed
):
    rng = random.Random(seed)
    with transaction.atomic():
        _rules_on(campaign)
        for action, amount in actions:
            _play(campaign, gm, player, pc, npc, action, amount, rng)
        _close_everything(campaign, gm)
        assert not RollRequest.objects.filter(campaign=campaign, status="pending").exists()
        before = Campaign.objects.get(pk=campaign.pk).clock
        services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=10, ask_players=False)
        assert Campaign.objects.get(pk=campaign.pk).clock > before
        transaction.set_rollback(True)  # the next example starts from the fixtures' state
