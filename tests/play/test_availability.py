"""A card offers what the character's state allows and says why the rest is missing.

The choices come from the engine's availability (rules/engine/availability.py), the same
checks the services' engine calls make: what a card offers is what a POST does.
"""

import html as htmllib
import re
from datetime import timedelta

import pytest
from django.urls import reverse

from play.actions import ACTIONS, QUICK_ACTIONS
from play.selectors import action_choices, card_for, characters_for_cards
from rules import engine
from tests.play.steps import T0, put


def card_html(client, campaign, character, language="fr"):
    """The card, then its « Plus… » as the GM reads it once opened (why actions are missing);
    a player's card has no « Plus… » (refused: 403)."""
    response = client.get(
        reverse("character_card", args=[campaign.pk, character.pk]),
        headers={"accept-language": language},
    )
    assert response.status_code == 200
    html = response.content.decode()
    menu = client.get(
        reverse("character_menu", args=[campaign.pk, character.pk]),
        headers={"accept-language": language},
    )
    assert (menu.status_code == 200) is ('data-testid="more-menu"' in html)
    return html + (menu.content.decode() if menu.status_code == 200 else "")


def offered(html) -> set[str]:
    """The actions a card's controls offer (quick buttons and links), by name."""
    # "ask" (R34) asks the player for a roll: not an engine operation, offered to every owned PC.
    return set(re.findall(r'data-action="(\w+)"', html)) - {"edit", "damage_full", "ask"}


def missing(html) -> dict[str, str]:
    """Each missing action's line, by name (actions refused for one reason share a line)."""
    items = re.findall(r'<li data-missing="([\w ]+)">(.*?)</li>', html, re.S)
    return {
        name: htmllib.unescape(re.sub(r"<[^>]+>", "", text))
        for names, text in items
        for name in names.split()
    }


def test_every_action_is_an_engine_operation():
    assert set(ACTIONS) == set(engine.OPERATIONS)


def test_a_character_up_is_offered_everything_but_the_coma_and_death_actions(
    gm_client, campaign, pc
):
    html = card_html(gm_client, campaign, pc)
    assert offered(html) == set(ACTIONS) - {"stabilise", "wake", "end_coma", "revive", "remedy"} - {
        "remove_condition"
    }
    reasons = missing(html)
    assert reasons["stabilise"] == (
        "Stabiliser\u00a0: Isaure n’est pas dans le coma : rien à stabiliser. (R12)"
    )
    assert reasons["revive"] == "Ramener à la vie (MJ)\u00a0: Isaure n’est pas mort·e. (R16)"
    assert "Pourquoi certaines actions manquent-elles\u202f?" in html


def test_r16_a_dead_character_offers_only_revival(gm_client, campaign, pc):
    put(pc, vital="dead", pv=-9, conditions=[("gene", "gm")])
    html = card_html(gm_client, campaign, pc)
    assert offered(html) == {"revive"}
    assert 'class="quick"' not in html  # no damage, healing or Flux buttons at all
    assert set(missing(html)) == set(ACTIONS) - {"revive"}
    # One line for the dozen actions death refuses, naming R16 once.
    line = missing(html)["damage"]
    assert line.startswith("Dégâts, Soigner, Dépenser du Flux, Récupérer du Flux, Test, ")
    assert "\u00a0: Isaure est mort·e : aucune règle ne permet cette action" in line
    assert line.endswith("R16).") and line.count("R16") == 1
    assert html.count("data-missing=") == 1


def test_r11_a_character_in_a_coma_is_stabilised_healed_or_woken_by_the_gm(gm_client, campaign, pc):
    put(pc, vital="coma", pv=-2, next_coma_hour=T0 + timedelta(hours=1))
    html = card_html(gm_client, campaign, pc)
    assert {"stabilise", "heal", "end_coma"} <= offered(html)
    assert not {"check", "wake", "revive"} & offered(html)
    assert missing(html)["check"] == (
        "Test\u00a0: Isaure est inconscient·e et ne peut pas agir. (R11)"
    )


def test_r13_a_stabilised_character_is_offered_a_waking_try_once_per_game_hour(
    gm_client, campaign, pc
):
    put(pc, vital="stabilised", pv=-2, stabilised_at=T0, last_wake_try=T0)
    html = card_html(gm_client, campaign, pc)
    assert "wake" not in offered(html)
    assert "08:00" in missing(html)["wake"] and missing(html)["wake"].endswith("(R13)")
    # The clock moves on (no write to the character): the card offers the try again.
    campaign.clock = T0 + timedelta(hours=1)
    campaign.save(update_fields=["clock"])
    assert "wake" in offered(card_html(gm_client, campaign, pc))


def test_r1_no_flux_button_without_flux(gm_client, campaign, pc):
    put(pc, flux=0)
    html = card_html(gm_client, campaign, pc)
    assert "spend_flux" not in offered(html)
    assert {"restore_flux", "damage", "heal"} <= offered(html)
    assert missing(html)["spend_flux"] == (
        "Dépenser du Flux\u00a0: Isaure n’a plus de Flux à dépenser. (R1)"
    )


def test_r26_r29_removing_a_condition_and_a_remedy_follow_the_state(gm_client, campaign, pc):
    from characters.models import Illness

    put(pc, conditions=[("gene", "gm")])
    Illness.objects.create(character=pc, severity=2, days_left=3)
    html = card_html(gm_client, campaign, pc)
    assert {"remove_condition", "remedy"} <= offered(html)


def test_the_reasons_read_in_english_too(gm_client, campaign, pc):
    html = card_html(gm_client, campaign, pc, "en")
    assert "Why are some actions missing?" in html
    assert missing(html)["revive"] == "Bring back (GM): Isaure is not dead. (R16)"


def test_a_player_sees_no_actions_and_no_reasons(player_client, campaign, pc):
    html = card_html(player_client, campaign, pc)
    assert offered(html) == set()
    assert "data-missing" not in html


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"vital": "dead", "pv": -3},
        {"vital": "coma", "pv": -1},
        {"vital": "stabilised", "pv": -1},
        {"vital": "borrowed_time", "pv": 0},
        {"flux": 0},
    ],
)
def test_what_a_card_refuses_the_server_refuses_with_the_same_reason(
    gm_client, campaign, pc, other_pc, fields
):
    """A POST of an action the card does not offer is refused with the reason the card gives,
    in the panel, and nothing is written."""
    pc = put(pc, **fields)
    row = characters_for_cards(campaign).get(pk=pc.pk)
    choices = card_for(row, campaign).choices
    data = {
        "visibility": "everyone",
        "amount": 1,
        "stat": "VAI",
        "difficulty": 10,
        "kind": "gene",
        "storeys": 1,
        "surface": "normal",
        "soften": "none",
        "severity": 1,
        "healer": other_pc.pk,
        "pv": 1,
    }
    for refused in choices.missing:
        url = reverse("character_action", args=[campaign.pk, pc.pk, refused.name])
        response = gm_client.post(url, data, headers={"HX-Request": "true"})
        assert response.status_code == 400, refused.name
        body = htmllib.unescape(response.content.decode())
        assert refused.reason in body, refused.name
    assert pc.version == type(pc).objects.get(pk=pc.pk).version


def test_quick_actions_are_among_the_choices():
    state = engine.CharacterState(key="1", pv=3, pv_max=5, flux=2, flux_max=4)
    choices = action_choices(state, now=T0, lang=0)
    assert choices.quick == QUICK_ACTIONS
    assert "check" in dict(choices.links)
