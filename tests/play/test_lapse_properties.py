"""R34 through the services: whatever the GM does while players' rules rolls wait, every
waiting request can be closed (answered, or lapsed by the rules), and then the clock moves.

Isaure (`pc`, owned by `player`): VAI 1, PA 2, 11 PV; the NPC (`npc`) can treat her.
"""

from django.core.cache import cache
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.models import Campaign
from play import requests, services
from play.models import RequestStatus, RollRequest
from rules.engine import RuleError
from tests.play.play import at, put

OPS = st.sampled_from(
    [
        "heal",
        "damage",
        "stabilise",
        "end_coma",
        "revive",
        "paralyse",
        "clock",
        "rules_off",
        "rules_on",
        "tries_off",
        "tries_on",
        "answer",
    ]
)
STEPS = st.lists(st.tuples(OPS, st.integers(1, 12)), max_size=8)


def _pending(campaign):
    return list(RollRequest.objects.filter(campaign=campaign, status=RequestStatus.PENDING))


def _start(scene, campaign, gm, pc):
    Campaign.objects.filter(pk=campaign.pk).update(players_roll_rules=True)
    if scene == 0:
        put(pc, vital="coma", pv=-1, next_coma_hour=at(1))
        services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=300)
    elif scene == 1:
        put(pc, vital="stabilised", pv=-1, stabilised_at=at(0))
        services.party_night_rest(campaign_id=campaign.pk, actor=gm, hours=8)
    elif scene == 2:
        services.character_damage(character_id=pc.pk, actor=gm, amount=13)
    else:
        services.party_night_rest(campaign_id=campaign.pk, actor=gm, hours=3)


def _step(op, amount, campaign, gm, player, pc, npc):
    one = {"character_id": pc.pk, "actor": gm}
    match op:
        case "heal":
            services.character_heal(**one, amount=amount)
        case "damage":
            services.character_damage(**one, amount=amount)
        case "stabilise":
            services.character_stabilise(**one, healer_id=npc.pk)
        case "end_coma":
            services.coma_end(**one)
        case "revive":
            services.character_revive(**one, pv=amount)
        case "paralyse":
            services.condition_add(**one, kind="paralyse")
        case "clock":
            services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=amount * 10)
        case "answer":
            for request in _pending(campaign)[:1]:
                requests.roll_request_answer(request_id=request.pk, actor=player)
        case _:
            field = "players_roll_rules" if op.startswith("rules") else "automatic_wake_tries"
            services.campaign_settings_update(
                campaign_id=campaign.pk, actor=gm, **{field: op.endswith("_on")}
            )


def _closable(request, gm):
    """Whether the GM can close the request now (answered, or lapsed), tried and undone."""
    point = transaction.savepoint_create()
    try:
        requests.roll_request_answer(request_id=request.pk, actor=gm)
        return True
    except RuleError:
        return False
    finally:
        transaction.savepoint_rollback(point)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.integers(0, 3), STEPS)
def test_r34_every_waiting_request_can_be_closed_then_the_clock_moves(
    campaign, gm, player, pc, npc, scene, steps
):
    point = transaction.savepoint_create()
    cache.clear()
    try:
        _start(scene, campaign, gm, pc)
        assert _pending(campaign)
        for op, amount in steps:
            try:
                with transaction.atomic():
                    _step(op, amount, campaign, gm, player, pc, npc)
            except RuleError:
                pass
            for request in _pending(campaign):
                assert _closable(request, gm), request
        for _ in range(40):
            waiting = _pending(campaign)
            if not waiting:
                break
            requests.roll_request_answer(request_id=waiting[0].pk, actor=gm)
        assert _pending(campaign) == []
        before = Campaign.objects.get(pk=campaign.pk).clock
        services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=10)
        assert Campaign.objects.get(pk=campaign.pk).clock > before
    finally:
        transaction.savepoint_rollback(point)
