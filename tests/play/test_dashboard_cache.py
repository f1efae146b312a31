"""The warm dashboard (play/cards.py `preload`): cards are looked up in the cache first, and a
card's related rows (conditions, sequels, roll requests) are read only for the cards that must
be drawn again, and for the characters whose state the page reads anyway (the fight's)."""

import re

from django.core.cache import cache
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from characters.models import Character, Condition
from play import services

RELATED = ("characters_condition", "characters_sequel", "play_rollrequest")


def _related_reads(client, campaign) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("campaign", args=[campaign.pk]))
    assert response.status_code == 200
    return [q["sql"] for q in queries if any(f'"{table}"' in q["sql"] for table in RELATED)]


def test_a_warm_dashboard_reads_no_card_rows_and_a_change_reads_only_its_own(gm_client, world):
    Condition.objects.create(character=world.pc, kind="gene", cause="gm")
    cache.clear()
    cold = _related_reads(gm_client, world.campaign)
    assert len(cold) == len(RELATED), cold  # one read per kind, for every card
    assert _related_reads(gm_client, world.campaign) == []  # every card cached

    # A change whose card nobody has drawn yet (an action's answer draws and caches it).
    Character.objects.filter(pk=world.other_pc.pk).update(version=F("version") + 1)
    reads = _related_reads(gm_client, world.campaign)
    assert len(reads) == len(RELATED)
    for sql in reads:  # only Gaspard's card is drawn again
        ids = re.search(r"IN \(([^)]*)\)", sql).group(1)
        assert ids.replace(" ", "") == str(world.other_pc.pk), sql

    page = gm_client.get(reverse("campaign", args=[world.campaign.pk])).content.decode()
    assert "Gêné" in page  # Isaure's cached card still shows her condition


def test_r33_the_fights_combatants_are_read_for_its_section_even_with_their_cards_cached(
    gm_client, world
):
    services.fight_start(campaign_id=world.campaign.pk, actor=world.gm, character_ids=[world.pc.pk])
    gm_client.get(reverse("campaign", args=[world.campaign.pk]))
    reads = _related_reads(gm_client, world.campaign)
    assert reads, "the fight section reads its combatants' conditions"
    for sql in reads:
        ids = re.search(r"IN \(([^)]*)\)", sql).group(1)
        assert ids.replace(" ", "") == str(world.pc.pk), sql
