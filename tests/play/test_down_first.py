"""The dashboard's « À terre en premier »: the characters down first, the
order computed in Python (play/selectors.py down_first, from down_state), kept in the address."""

import re

from django.urls import reverse

from play import selectors
from tests.play.steps import put


def card_names(html: str) -> list[str]:
    section = re.search(r'<section class="cards" id="characters".*?</section>', html, re.S)
    assert section, "no cards"
    return re.findall(
        r'data-character-id="\d+" role="group"\s+aria-label="([^"]+)"', section.group(0)
    )


def test_down_first_puts_the_characters_down_before_the_others_in_order(world):
    put(world.other_pc, pv=0)  # at 0 PV, still up: down (the Survie roll not made)
    put(world.npc, pv=-2, vital="coma")
    rows = list(selectors.characters_for_cards(world.campaign))
    names = [row.name for row in rows]
    ordered = [row.name for row in selectors.down_first(rows, world.campaign)]
    down = [name for name in names if name in ("Gaspard", "Le Vicomte masque")]
    assert ordered == down + [name for name in names if name not in down]
    # Nobody down: the order is the page's.
    put(world.other_pc, pv=10)
    put(world.npc, pv=5, vital="up")
    rows = list(selectors.characters_for_cards(world.campaign))
    assert selectors.down_first(rows, world.campaign) == rows


def test_the_dashboard_puts_them_first_when_asked_in_its_address(gm_client, world):
    put(world.other_pc, pv=-2, vital="coma")
    url = reverse("campaign", args=[world.campaign.pk])
    plain = gm_client.get(url).content.decode()
    assert card_names(plain)[0] != "Gaspard"
    assert 'data-testid="down-first"' in plain and 'aria-pressed="false"' in plain
    assert f'href="{url}?down=first"' in plain
    assert "À terre en premier" in plain

    first = gm_client.get(url + "?down=first").content.decode()
    assert card_names(first)[0] == "Gaspard"
    assert sorted(card_names(first)) == sorted(card_names(plain))
    toggle = re.search(r'<a class="down-first"[^>]*>', first).group(0)
    assert 'aria-pressed="true"' in toggle and f'href="{url}"' in toggle


def test_players_get_no_such_toggle(player_client, world):
    html = player_client.get(reverse("campaign", args=[world.campaign.pk])).content.decode()
    assert "down-first" not in html
