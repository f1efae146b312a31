"""A character's seat in the running fight (R33), as cards read it, and its cache key."""

from campaign.models import Campaign
from play import services
from play.cards import card_cache_key
from play.selectors import fight_seat


def fresh(campaign):
    return Campaign.objects.get(pk=campaign.pk)


def test_r33_seat_follows_the_order_the_turn_and_the_budget(world):
    gm, campaign, pc, other = world.gm, world.campaign, world.pc, world.other_pc
    assert fight_seat(campaign, pc.pk) is None  # no fight
    services.fight_start(campaign_id=campaign.pk, actor=gm, character_ids=[other.pk, pc.pk])
    campaign = fresh(campaign)
    first, second = fight_seat(campaign, other.pk), fight_seat(campaign, pc.pk)
    assert (first.place, first.current, second.place, second.current) == (1, True, 2, False)
    assert first.round == 1

    services.fight_spend(character_id=pc.pk, actor=gm, what="action")
    services.fight_next_turn(campaign_id=campaign.pk, actor=gm)
    campaign = fresh(campaign)
    seat = fight_seat(campaign, pc.pk)
    assert seat.current and seat.actions_left == first.actions_left - 1
    assert seat.reflexes_left == second.reflexes_left


def test_r33_a_card_is_cached_apart_for_each_fight_seat(world):
    gm, campaign, pc, other = world.gm, world.campaign, world.pc, world.other_pc
    membership = campaign.memberships.get(user=gm)
    outside = card_cache_key(pc, campaign, membership)
    services.fight_start(campaign_id=campaign.pk, actor=gm, character_ids=[other.pk, pc.pk])
    waiting = card_cache_key(pc, fresh(campaign), membership)
    services.fight_next_turn(campaign_id=campaign.pk, actor=gm)
    playing = card_cache_key(pc, fresh(campaign), membership)
    assert len({outside, waiting, playing}) == 3
    # the character's own version did not move: only its seat did
    assert pc.version == type(pc).objects.get(pk=pc.pk).version
