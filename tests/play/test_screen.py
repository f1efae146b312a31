"""The table screen (play/screen.py, play/screen_views.py): read only, what a viewer with no
GM right and no character may see; the GM's session or a revocable, hashed link."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from campaign.models import Campaign, PartyVisibility
from characters.models import Character
from journal.models import AuditEntry
from play import services
from play.screen import campaign_for_token
from play.services.table import screen_link_create, screen_link_revoke, screen_token_digest


@pytest.fixture
def bars(campaign):
    campaign.party_visibility = PartyVisibility.BARS
    campaign.save()
    return campaign


@pytest.fixture
def link(campaign, gm):
    return screen_link_create(campaign_id=campaign.pk, actor=gm)


def screen_text(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def urls(campaign, token):
    return [
        reverse("screen_link", args=[campaign.pk, token]),
        reverse("screen_link_part", args=[campaign.pk, token]),
    ]


def test_the_link_is_kept_hashed_and_opens_the_screen_without_an_account(campaign, gm, link, pc):
    campaign.refresh_from_db()
    assert campaign.screen_token_hash == screen_token_digest(link)
    assert link not in campaign.screen_token_hash and len(link) >= 40
    entry = AuditEntry.objects.filter(campaign=campaign).latest("id")
    assert entry.field == "setting.screen_link" and entry.visibility == "gm"
    assert link not in str(entry.after) + entry.text_fr + entry.text_en
    for url in urls(campaign, link):
        html = screen_text(Client(), url)
        assert pc.name in html
        assert "<form" not in html and "<button" not in html  # no controls
    assert campaign_for_token(campaign.pk, link + "x") is None
    assert campaign_for_token(campaign.pk, "") is None


def test_a_revoked_or_replaced_link_is_refused_with_a_french_message(campaign, gm, link):
    screen_link_revoke(campaign_id=campaign.pk, actor=gm)
    for url in urls(campaign, link):
        response = Client().get(url)
        assert response.status_code == 404
        assert "Ce lien d’écran de table ne marche plus" in response.content.decode()
    new = screen_link_create(campaign_id=campaign.pk, actor=gm)
    assert Client().get(urls(campaign, link)[0]).status_code == 404
    assert Client().get(urls(campaign, new)[0]).status_code == 200
    # Another campaign's link never opens this one.
    other = Campaign.objects.create(name="Autre")
    assert Client().get(reverse("screen_link", args=[other.pk, new])).status_code == 404


def test_the_gm_manages_the_link_on_the_settings_page_a_player_may_not(
    campaign, gm_client, player_client
):
    url = reverse("screen_link_manage", args=[campaign.pk])
    assert player_client.post(url, {"do": "create"}).status_code == 403
    response = gm_client.post(url, {"do": "create"})
    html = response.content.decode()
    shown = re.search(r'value="(http://testserver/screen/[^"]+)"', html)
    assert response.status_code == 200 and shown
    assert Client().get(shown[1].removeprefix("http://testserver")).status_code == 200
    assert (
        "Un lien créé le"
        in gm_client.get(reverse("campaign_settings", args=[campaign.pk])).content.decode()
    )
    gm_client.post(url, {"do": "revoke"})
    campaign.refresh_from_db()
    assert campaign.screen_token_hash == ""
    assert Client().get(shown[1].removeprefix("http://testserver")).status_code == 404
    actions = list(
        AuditEntry.objects.filter(campaign=campaign, field="setting.screen_link")
        .order_by("id")
        .values_list("after", flat=True)
    )
    assert actions == ["created", "revoked"]


def test_the_gm_screen_needs_the_gm(campaign, gm_client, player_client, anon_client):
    url = reverse("screen", args=[campaign.pk])
    assert gm_client.get(url).status_code == 200
    assert player_client.get(url).status_code == 403
    assert anon_client.get(url).status_code == 302


def test_r33_the_screen_shows_the_fight_order_and_whose_turn(campaign, gm, gm_client, pc, npc):
    services.fight_start(campaign_id=campaign.pk, actor=gm, character_ids=[npc.pk, pc.pk])
    url = reverse("screen_part", args=[campaign.pk])
    html = screen_text(gm_client, url)
    order = re.findall(r'data-testid="screen-fighter" data-character="(\d+)"', html)
    assert order == [str(npc.pk), str(pc.pk)]
    assert re.search(rf'data-character="{npc.pk}" class="its-turn', html)
    services.fight_next_turn(campaign_id=campaign.pk, actor=gm)
    html = screen_text(gm_client, url)
    assert re.search(rf'data-character="{pc.pk}" class="its-turn', html)
    assert "Manche 1" in html or "Round 1" in html


def test_r10_who_is_down_is_said_in_words(bars, gm, gm_client, pc):
    """R10/R11: a character at 0 PV or less, in a coma…, is marked down with text."""
    services.character_damage(character_id=pc.pk, actor=gm, amount=99, ignores_pa=True, dice=[20])
    pc.refresh_from_db()
    html = screen_text(gm_client, reverse("screen_part", args=[bars.pk]))
    assert 'data-testid="screen-down"' in html
    assert pc.get_vital_display() and ("sursis" in html or "0 PV ou moins" in html)
    assert f"−{abs(pc.pv)} / {pc.pv_max}" in html


def test_nothing_gm_only_reaches_the_screen(bars, gm, gm_client, pc, link):
    """A GM-only damage (visibility=gm) during a fight: neither its roll nor its numbers nor
    the state it leaves reach the screen, by the GM's session or the link."""
    services.fight_start(campaign_id=bars.pk, actor=gm, character_ids=[pc.pk])
    told = pc.pv
    part = urls(bars, link)[1]
    before = screen_text(Client(), part)
    services.character_damage(
        character_id=pc.pk, actor=gm, amount=99, ignores_pa=True, dice=[3], visibility="gm"
    )
    pc.refresh_from_db()
    assert pc.pv < 0 and pc.vital != "up"
    for url in [*urls(bars, link), reverse("screen_part", args=[bars.pk])]:
        client = gm_client if url.startswith("/c/") else Client()
        html = screen_text(client, url)
        assert f"{told} / {pc.pv_max}" in html
        assert str(pc.pv).replace("-", "−") not in html
        assert 'data-testid="screen-down"' not in html
        assert "Survie" not in html
    assert screen_text(Client(), part) == before
    # Then a public change says where it stands: the screen follows.
    services.character_heal(character_id=pc.pk, actor=gm, amount=1)
    pc.refresh_from_db()
    html = screen_text(Client(), urls(bars, link)[1])
    assert f"{str(pc.pv).replace('-', '−')} / {pc.pv_max}" in html


def test_names_only_campaign_shows_no_state_and_no_bars(campaign, gm, gm_client, pc):
    campaign.party_visibility = PartyVisibility.NOTHING
    campaign.save()
    services.character_damage(character_id=pc.pk, actor=gm, amount=99, ignores_pa=True, dice=[20])
    html = screen_text(gm_client, reverse("screen_part", args=[campaign.pk]))
    assert pc.name in html
    assert 'data-testid="screen-pv"' not in html and 'data-testid="screen-down"' not in html


def test_npcs_appear_only_in_the_fight_and_not_once_off_the_table(campaign, gm, gm_client, pc, npc):
    url = reverse("screen_part", args=[campaign.pk])
    assert npc.name not in screen_text(gm_client, url)
    services.fight_start(campaign_id=campaign.pk, actor=gm, character_ids=[pc.pk, npc.pk])
    assert npc.name in screen_text(gm_client, url)
    services.fight_end(campaign_id=campaign.pk, actor=gm)
    assert npc.name not in screen_text(gm_client, url)
    assert Character.objects.get(pk=npc.pk).in_play


def test_the_screens_refetch_stays_a_handful_of_queries(
    bars, gm, pc, other_pc, npc, link, django_assert_max_num_queries
):
    """Every screen refetches its part every two seconds: a few queries, whatever the party."""
    services.fight_start(campaign_id=bars.pk, actor=gm, character_ids=[pc.pk, npc.pk, other_pc.pk])
    services.character_damage(character_id=pc.pk, actor=gm, amount=3, visibility="gm")
    client = Client()
    url = urls(bars, link)[1]
    client.get(url)
    with django_assert_max_num_queries(4):
        assert client.get(url).status_code == 200
