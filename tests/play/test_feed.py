"""The live roll feed under a player's sheet (journal/feed.py, play/player.py character_feed):
its entries are the history's, through journal.visibility; its toasts say why the sheet's
numbers moved, naming the rule.

Who may fetch the feed at all is tests/test_permissions.py's table; how the phone follows it
live and offline is tests/e2e/test_phone_feed.py's.
"""

import re

import pytest
from django.urls import reverse

from campaign.models import PartyVisibility
from journal import feed as feed_module
from journal.feed import FEED_SIZE, feed, toast_text, typographic
from journal.models import AuditEntry
from journal.visibility import visible_entries
from play.models import RollRequest
from play.requests import roll_request_answer, roll_request_create
from play.services import entry_undo
from tests.play.steps import run

pytestmark = pytest.mark.django_db

CHECK = {"stat": "VAI", "skill": "Survie", "difficulty": "12"}


def feed_url(campaign, character):
    return reverse("character_feed", args=[campaign.pk, character.pk])


def sheet_url(campaign, character):
    return reverse("character", args=[campaign.pk, character.pk])


def entry_ids(html: str) -> list[int]:
    """The entries the feed shows, in the order it shows them."""
    return [int(i) for i in re.findall(r'data-log-id="(\d+)" data-testid="feed-entry"', html)]


def test_a_gm_only_change_never_reaches_a_players_feed_and_a_gm_only_roll_comes_sealed(
    player_client, gm_client, world
):
    campaign, gm, pc = world.campaign, world.gm, world.pc
    run(campaign, gm, "damage", {"amount": "3"}, character=pc)
    hidden = run(campaign, gm, "damage", {"amount": "4"}, character=pc, visibility="gm")
    secret = run(campaign, gm, "check", CHECK, character=pc, typed=[19], visibility="gm")
    run(campaign, gm, "heal", {"amount": "1"}, character=pc)
    hidden_ids = [e.pk for e in hidden.entries]
    [sealed] = [e.pk for e in secret.entries]
    for url in (feed_url(campaign, pc), sheet_url(campaign, pc)):
        response = player_client.get(url)
        assert response.status_code == 200
        part = response.content.decode().split('id="feed"', 1)[1].split("</section>")[0]
        shown = entry_ids(part)
        assert shown and not set(shown) & set(hidden_ids), url
        # The sealed roll (journal/sealing.py): that it was rolled and for what, no result.
        assert sealed in shown
        assert "jet scellé du MJ (test) : résultat caché jusqu’à sa révélation" in part
        assert "Survie" not in part and "19 (d20)" not in part and "réussite" not in part
        assert "PV : 9 → 7" not in part  # the GM-only damage (11 → 9 → 7)
    items = {item.entry.pk: item for item in feed(world.player_membership, pc)}
    assert items[sealed].toast == "jet scellé du MJ (test) : résultat caché jusqu’à sa révélation"
    # The GM's feed holds both, in full, marked.
    gm_feed = gm_client.get(feed_url(campaign, pc)).content.decode()
    assert {*hidden_ids, sealed} <= set(entry_ids(gm_feed))
    assert "MJ uniquement" in gm_feed and "Survie (VAI)" in gm_feed


@pytest.mark.parametrize("party", list(PartyVisibility))
def test_the_feed_is_the_visibility_rules_latest_entries_newest_first(player_client, world, party):
    campaign, gm = world.campaign, world.gm
    campaign.party_visibility = party
    campaign.save()
    for character in (world.pc, world.other_pc, world.npc, world.pc):
        run(campaign, gm, "damage", {"amount": "1"}, character=character)
        run(campaign, gm, "check", CHECK, character=character, typed=[11])
        run(campaign, gm, "add_condition", {"kind": "gene"}, character=character)
        run(campaign, gm, "remove_condition", {"kind": "gene"}, character=character)
    run(campaign, gm, "clock", {"minutes": "10"})
    run(campaign, gm, "check", CHECK, character=world.pc, typed=[2], visibility="gm")
    membership = world.player_membership
    mine = visible_entries(membership).filter(character_id=world.pc.pk)
    expected = list(mine.values_list("pk", flat=True)[:FEED_SIZE])
    assert 0 < len(expected) <= FEED_SIZE
    html = player_client.get(feed_url(campaign, world.pc)).content.decode()
    # The sheet's own character's entries only, whatever the party's visibility shows.
    assert entry_ids(html) == expected
    others = AuditEntry.objects.exclude(character_id=world.pc.pk).values_list("pk", flat=True)
    assert not set(entry_ids(html)) & set(others)
    assert f'data-log-id="{expected[0]}"' in html.split("<ol", 1)[0]  # the feed's newest


def test_the_feed_reads_only_through_the_visibility_rule(player_client, world, monkeypatch):
    """No second rule: the feed asks journal.visibility, and shows what it answers."""
    asked = []

    def spy(membership):
        asked.append(membership.user_id)
        return AuditEntry.objects.none()

    run(world.campaign, world.gm, "damage", {"amount": "2"}, character=world.pc)
    monkeypatch.setattr(feed_module, "visible_entries", spy)
    html = player_client.get(feed_url(world.campaign, world.pc)).content.decode()
    assert asked == [world.player.pk]
    assert entry_ids(html) == []


def test_r11_a_coma_hour_says_why_the_pv_moved(world):
    campaign, gm, pc = world.campaign, world.gm, world.pc
    run(campaign, gm, "damage", {"amount": "15"}, character=pc)  # PV −2, R10's Survie rolled
    run(campaign, gm, "clock", {"minutes": "120"})  # the coma, then an hour of it (R11)
    items = feed(world.player_membership, pc)
    toasts = [item.toast for item in items if item.toast]
    # The player reads why without the rule's id; the GM's sheet names it.
    assert "heure de coma : PV −2 → −3" in toasts
    gm_toasts = [item.toast for item in feed(world.gm_membership, pc) if item.toast]
    assert "R11 · heure de coma : PV −2 → −3" in gm_toasts
    # The rules' own timers are in the feed, not in a toast.
    assert any("prochaine heure de coma" in item.text for item in items)
    assert not any("prochaine heure de coma" in t for t in toasts)


def test_r3_damage_and_r5_a_test_in_toasts_and_in_english(world, settings):
    campaign, gm, pc = world.campaign, world.gm, world.pc
    run(campaign, gm, "damage", {"amount": "4"}, character=pc)
    run(campaign, gm, "check", CHECK, character=pc, typed=[15])
    items = {item.entry.kind: item for item in feed(world.player_membership, pc)}
    assert items["change"].toast == "dégâts : PV 11 → 9"
    assert items["roll"].toast.startswith("Survie (VAI)")
    gm_items = {item.entry.kind: item for item in feed(world.gm_membership, pc)}
    assert gm_items["change"].toast == "R3 · dégâts : PV 11 → 9"
    assert gm_items["roll"].toast.startswith("R5 · ")
    assert "Survie (VAI)" in items["roll"].toast
    from django.utils import translation

    with translation.override("en"):
        change = next(i for i in feed(world.player_membership, pc) if i.entry.kind == "change")
        assert change.toast == "damage: PV 11 → 9"


def test_a_sheets_feed_holds_its_own_characters_entries_only(world):
    campaign, gm = world.campaign, world.gm
    campaign.party_visibility = PartyVisibility.BARS
    campaign.save()
    run(campaign, gm, "damage", {"amount": "6"}, character=world.other_pc)
    run(campaign, gm, "damage", {"amount": "5"}, character=world.pc)
    run(campaign, gm, "spend_flux", {"amount": "1"}, character=world.npc)
    for membership in (world.player_membership, world.gm_membership):
        items = feed(membership, world.pc)
        assert items and {item.entry.character_id for item in items} == {world.pc.pk}
        assert all(item.toast for item in items if item.entry.field in ("pv", ""))


def test_minus_signs_are_typeset_and_nothing_else():
    assert typographic("R11 · PV : -2 → -3") == "R11 · PV : −2 → −3"
    # A subtraction, a time, a date: left as they are.
    unchanged = "1d10-5 ; jour 1, 08:10 ; 2026-12-03"
    assert typographic(unchanged) == unchanged


def test_the_feed_url_answers_its_part_only_and_is_never_cached(player_client, world):
    run(world.campaign, world.gm, "damage", {"amount": "1"}, character=world.pc)
    response = player_client.get(feed_url(world.campaign, world.pc))
    html = response.content.decode()
    assert response["Cache-Control"] == "no-cache"
    assert html.lstrip().startswith('<section class="panel feed" id="feed"')
    assert "<html" not in html


def test_the_sheet_carries_the_offline_messages_in_its_language(player_client, world):
    html = player_client.get(sheet_url(world.campaign, world.pc)).content.decode()
    assert 'data-msg-stale="Hors ligne — données d’il y a %(age)s"' in html
    assert "Hors ligne\u00a0: rien n’a été envoyé." in html
    assert f'data-worker="{reverse("service_worker")}"' in html
    assert 'id="toast"' in html and 'aria-live="polite"' in html


def test_toast_text_without_a_rule_reads_as_the_log_does(world):
    run(world.campaign, world.gm, "heal", {"amount": "1"}, character=world.pc)
    entry = AuditEntry.objects.filter(character=world.pc).latest("id")
    assert toast_text(entry).endswith("soins : PV 11 → 12")


def test_an_undos_toast_says_annulation_not_the_undone_rules_reason(world):
    # Isaure at 0 PV or less (R10), then that damage undone: the toast says why her numbers
    # moved now, an undo, without the entry numbers the history needs.
    data = {"amount": "30"}
    result = run(world.campaign, world.gm, "damage", data, character=world.pc, typed=[15])
    change = next(e for e in result.entries if e.kind == "change")
    entry_undo(campaign_id=world.campaign.pk, actor=world.gm, entry_id=change.pk, whole_action=True)
    undone = AuditEntry.objects.filter(character=world.pc, reverts__isnull=False).order_by("id")
    toasts = [toast_text(entry) for entry in undone]
    assert toasts and all("annulation : " in toast for toast in toasts), toasts
    assert not any("#" in toast or "Annulation de" in toast for toast in toasts), toasts
    assert not any("à 0 PV" in toast for toast in toasts), toasts
    assert "R3 · annulation : PV −17 → 11" in toasts, toasts


def test_r34_r9_a_players_own_roll_is_no_toast_for_her_but_is_for_the_gm(world):
    """Her own roll (here, the test the GM asked of her, R34) showed its result under her card
    when she rolled it: her feed keeps it, without a toast saying it again; the GM's does."""
    campaign, gm, pc, player = world.campaign, world.gm, world.pc, world.player
    campaign.players_roll_rules = True
    campaign.save()
    run(campaign, gm, "damage", {"amount": "3"}, character=pc)
    roll_request_create(character_id=pc.pk, actor=gm, stat="INS", skill="Guet", difficulty=10)
    request = RollRequest.objects.get(character=pc, status="pending")
    roll_request_answer(request_id=request.pk, actor=player, dice=[14])
    mine = feed(world.player_membership, pc)
    roll = next(item for item in mine if item.entry.kind == "roll")
    assert roll.entry.actor_id == player.pk and "Guet (INS)" in roll.text
    assert roll.toast == ""
    damage = next(item for item in mine if item.entry.field == "pv")
    # The GM's damage (3 − 2 PA) is news to her: a toast, without the rule id a player never reads.
    assert damage.toast == "dégâts : PV 11 → 10"
    gms = next(item for item in feed(world.gm_membership, pc) if item.entry.kind == "roll")
    assert "Guet (INS)" in gms.toast
