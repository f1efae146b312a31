"""What static/keys.js needs of the GM's dashboard: a skip link, focusable slots
that name their character, the shortcuts' list in French, the script without inline code."""

import re

from django.urls import reverse


def test_the_dashboard_carries_what_the_keyboard_needs(gm_client, world):
    response = gm_client.get(reverse("campaign", args=[world.campaign.pk]))
    content = response.content.decode()
    body = content[content.index("<body") :]
    # The skip link is the page's first link, to the characters.
    first_link = re.search(r"<a [^>]*>[^<]*</a>", body)[0]
    assert 'class="skip-link" href="#characters"' in first_link
    assert "Aller aux personnages" in first_link
    assert 'id="characters" tabindex="-1"' in content
    for character in (world.pc, world.other_pc, world.npc):
        assert f'<div class="card-slot" tabindex="0" data-character-id="{character.pk}"' in content
    # The shortcuts' list, and the controls they press.
    assert 'id="keys-help"' in content and "Raccourcis clavier" in content
    assert "Défaire la dernière modification" in content
    for action in ("damage", "heal", "spend_flux", "check", "add_condition"):
        assert f'data-action="{action}"' in content
    # The script from static files only: the CSP forbids inline code.
    assert re.search(r'<script src="[^"]*keys\.js" defer></script>', content)
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", content)


def test_a_players_page_has_no_gm_shortcuts(player_client, world):
    content = player_client.get(reverse("campaign", args=[world.campaign.pk])).content.decode()
    assert "keys.js" not in content and "skip-link" not in content


def test_the_compact_rows_are_selected_the_same_way(gm_client, world):
    from campaign.models import Membership

    Membership.objects.filter(campaign=world.campaign, user=world.gm).update(
        dashboard_view="compact"
    )
    content = gm_client.get(reverse("campaign", args=[world.campaign.pk])).content.decode()
    assert 'data-testid="row"' in content
    for character in (world.pc, world.other_pc, world.npc):
        assert f'<div class="row-slot" tabindex="0" data-character-id="{character.pk}"' in content
    for action in ("damage", "heal", "spend_flux"):
        assert f'data-action="{action}"' in content
    # r and c: the panels' links, in the row's « Plus… », which static/keys.js draws first.
    menu = reverse("character_menu", args=[world.campaign.pk, world.pc.pk]) + "?view=compact"
    assert f'<div class="menu" hx-get="{menu}"' in content
    drawn = gm_client.get(menu).content.decode()
    for action in ("check", "add_condition"):
        assert f'data-action="{action}"' in drawn
