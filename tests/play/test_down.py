"""A character down reads at a glance on the GM's card and row and on the phone: an icon and
words (play/_down.html), built in play/selectors.py down_state (R10, R11, R15, R16, R34)."""

import re

import pytest
from django.urls import reverse

from campaign.models import Campaign, PartyVisibility
from play import services
from tests.play.steps import put


def _card(client, campaign, character, *, compact=False, language="fr") -> str:
    url = reverse("character_card", args=[campaign.pk, character.pk])
    if compact:
        url += "?view=compact"
    return client.get(url, headers={"accept-language": language}).content.decode()


def _down_tag(html: str) -> str:
    match = re.search(r'<strong class="down-tag[^"]*".*?</strong>', html, re.S)
    assert match, "no down tag"
    return match.group(0)


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


@pytest.mark.parametrize(
    ("fields", "down", "words"),
    [
        pytest.param({"pv": -2, "vital": "borrowed_time"}, "borrowed_time", "en sursis", id="R10"),
        pytest.param({"pv": -4, "vital": "coma"}, "coma", "dans le coma", id="R11"),
        pytest.param({"pv": -1, "vital": "stabilised"}, "stabilised", "inconscient", id="R15"),
        pytest.param({"pv": -9, "vital": "dead"}, "dead", "mort", id="R16"),
    ],
)
def test_r10_r11_r15_r16_a_down_card_and_row_say_it_with_an_icon_and_words(
    gm_client, player_client, campaign, pc, fields, down, words
):
    put(pc, **fields)
    for html in (
        _card(gm_client, campaign, pc),
        _card(gm_client, campaign, pc, compact=True),
        _card(player_client, campaign, pc),  # the player's sheet draws the same card
    ):
        tag = _down_tag(html)
        assert f'data-down="{down}"' in tag
        assert '<svg class="icon"' in tag and 'aria-hidden="true"' in tag
        assert words in _text(tag).lower()
        assert re.search(r'<article class="[^"]*\bis-down\b', html)


def test_a_standing_character_above_0_pv_has_no_down_tag(gm_client, campaign, pc):
    html = _card(gm_client, campaign, pc)
    assert "down-tag" not in html and "is-down" not in html
    assert "debout" in _text(html)


def test_r10_r34_a_survie_asked_of_the_player_reads_on_the_card_not_standing(
    gm_client, player_client, campaign, gm, pc
):
    """R10 with the players rolling the rules rolls (R34): at 0 PV or less the vital state
    waits for the player's Survie; the card says so instead of « debout »."""
    Campaign.objects.filter(pk=campaign.pk).update(players_roll_rules=True)
    services.character_damage(character_id=pc.pk, actor=gm, amount=16)  # 16 − 2 PA: −3 PV
    pc.refresh_from_db()
    assert (pc.pv, pc.vital) == (-3, "up")

    for html in (_card(gm_client, campaign, pc), _card(player_client, campaign, pc)):
        tag = _down_tag(html)
        assert 'data-down="pv"' in tag
        assert _text(tag) == "à 0 PV ou moins · jet de Survie en attente"
        assert "debout" not in _text(re.search(r'<p class="vital".*?</p>', html, re.S).group(0))
    row = _down_tag(_card(gm_client, campaign, pc, compact=True))
    assert _text(row) == "À 0 PV ou moins · jet de Survie en attente"
    english = _down_tag(_card(gm_client, campaign, pc, language="en"))
    assert _text(english) == "at 0 PV or less · Survie roll pending"


def test_r10_at_0_pv_without_a_pending_roll_reads_at_0_pv_or_less(gm_client, campaign, pc):
    put(pc, pv=0)
    assert _text(_down_tag(_card(gm_client, campaign, pc))) == "à 0 PV ou moins"


@pytest.mark.parametrize(
    ("shown", "down"),
    [(PartyVisibility.BARS, "pv"), (PartyVisibility.STATE, "")],
)
def test_r10_the_party_list_says_down_where_it_may_show_the_pv(
    other_player_client, campaign, gm, pc, shown, down
):
    """On another player's phone: at 0 PV or less only where the party's bars are shown (the
    PV are the GM's to reveal otherwise); a vital state that moved, wherever the state is."""
    Campaign.objects.filter(pk=campaign.pk).update(players_roll_rules=True, party_visibility=shown)
    services.character_damage(character_id=pc.pk, actor=gm, amount=16)
    url = reverse("campaign", args=[campaign.pk])

    item = re.search(
        rf'<li id="party-{pc.pk}".*?</li>', other_player_client.get(url).content.decode(), re.S
    ).group(0)
    if down:
        tag = _down_tag(item)
        assert 'data-down="pv"' in tag and "jet de Survie en attente" in _text(tag)
    else:
        assert "down-tag" not in item and "debout" in _text(item)

    put(pc, vital="dead")
    item = re.search(
        rf'<li id="party-{pc.pk}".*?</li>', other_player_client.get(url).content.decode(), re.S
    ).group(0)
    assert 'data-down="dead"' in _down_tag(item) and 'class="vital-dead is-down"' in item
