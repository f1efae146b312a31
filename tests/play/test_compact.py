"""The compact dashboard: a dense row per character, chosen per campaign and member,
and every answer and push bringing rows to a page that shows rows."""

import html as htmllib
import re

import pytest
from django.urls import reverse

from campaign import services as campaign_services
from campaign.models import Membership
from characters.models import Condition
from play.parts import VIEW_HEADER
from tests.play.steps import put


def dashboard(client, campaign):
    response = client.get(reverse("campaign", args=[campaign.pk]))
    assert response.status_code == 200
    return response.content.decode()


def set_view(client, campaign, view):
    return client.post(reverse("dashboard_view", args=[campaign.pk]), {"view": view})


def gm_membership(campaign, gm):
    return Membership.objects.get(campaign=campaign, user=gm)


def test_the_dashboard_shows_cards_until_the_gm_chooses_compact(gm_client, gm, campaign, pc, npc):
    page = dashboard(gm_client, campaign)
    assert 'data-dashboard-view="cards"' in page
    assert page.count('data-testid="card"') == 2 and 'data-testid="row"' not in page
    assert re.search(r'aria-pressed="true" data-view="cards">Cartes<', page)

    response = set_view(gm_client, campaign, "compact")
    assert response.status_code == 302
    assert response["Location"] == reverse("campaign", args=[campaign.pk])
    assert gm_membership(campaign, gm).dashboard_view == "compact"
    page = dashboard(gm_client, campaign)
    assert 'data-dashboard-view="compact"' in page
    assert page.count('data-testid="row"') == 2 and 'data-testid="card"' not in page
    assert re.search(r'aria-pressed="true" data-view="compact">Compact<', page)

    set_view(gm_client, campaign, "cards")
    assert dashboard(gm_client, campaign).count('data-testid="card"') == 2


def test_the_choice_is_per_campaign(gm_client, gm, campaign, pc):
    other = campaign_services.campaign_create(user=gm, name="Le Val Noir")
    set_view(gm_client, campaign, "compact")
    assert gm_membership(other, gm).dashboard_view == "cards"
    assert 'data-dashboard-view="cards"' in dashboard(gm_client, other)
    assert 'data-dashboard-view="compact"' in dashboard(gm_client, campaign)


def test_an_unknown_view_is_refused_with_a_message(gm_client, gm, campaign):
    response = set_view(gm_client, campaign, "tableau")
    assert response.status_code == 400
    assert "Affichage inconnu." in response.content.decode()
    assert gm_membership(campaign, gm).dashboard_view == "cards"


@pytest.mark.parametrize(
    ("client_name", "status"),
    [("player_client", 403), ("outsider_client", 404), ("anon_client", 302)],
)
def test_only_the_gm_switches_the_dashboard(request, campaign, gm, client_name, status):
    client = request.getfixturevalue(client_name)
    response = set_view(client, campaign, "compact")
    assert response.status_code == status
    if status == 302:
        assert "/login/" in response["Location"] or "login" in response["Location"]
    assert gm_membership(campaign, gm).dashboard_view == "cards"


def test_switching_needs_a_post(gm_client, campaign):
    assert gm_client.get(reverse("dashboard_view", args=[campaign.pk])).status_code == 405


def row_of(page, character):
    match = re.search(
        rf'<article class="row[^"]*" id="character-{character.pk}".*?</article>', page, re.S
    )
    assert match, page
    return match.group(0)


def test_a_row_holds_name_state_numbers_quick_actions_and_conditions(gm_client, campaign, pc):
    put(pc, flux=0, conditions=[("gene", "filet")])
    set_view(gm_client, campaign, "compact")
    row = row_of(dashboard(gm_client, campaign), pc)
    text = htmllib.unescape(re.sub(r"<[^>]+>", " ", row))
    assert "Isaure" in text and "Debout" in text
    assert 'data-testid="pv">11/14<' in row and 'data-testid="flux">0/10<' in row
    actions = set(re.findall(r'data-action="(\w+)"', row))
    # R1: no Flux to spend; the full damage form is a link; the rest is in the menu, drawn
    # when it opens: the rule links first, then edit and why actions are missing.
    assert {"damage", "heal", "restore_flux", "damage_full"} <= actions
    assert "spend_flux" not in actions and "check" not in actions
    menu_url = reverse("character_menu", args=[campaign.pk, pc.pk]) + "?view=compact"
    assert f'hx-get="{menu_url}"' in row and "data-missing" not in row
    menu = gm_client.get(menu_url).content.decode()
    assert 'data-action="edit"' in menu and '<li data-missing="spend_flux">' in menu
    check = reverse("character_action", args=[campaign.pk, pc.pk, "check"])
    assert f'<a href="{check}" hx-get="{check}"\n  hx-target="#panel-{pc.pk}"' in menu
    card_menu = gm_client.get(menu_url.split("?")[0]).content.decode()
    assert 'data-action="edit"' in card_menu and 'data-action="check"' not in card_menu
    assert "Gêné" in text
    assert f'data-src="/c/{campaign.pk}/characters/{pc.pk}/card/?view=compact"' in row
    assert 'name="visibility"' in row and '<option value="gm">MJ uniquement</option>' in row


def test_a_row_shows_what_is_left_in_the_running_fight(gm_client, campaign, pc, npc):
    campaign.fight = {
        "order": [npc.pk, pc.pk],
        "round": 2,
        "turn": 1,
        "actions_left": [2, 1],
        "reflexes_left": [1, 0],
        "surprised": [],
    }
    campaign.save(update_fields=["fight"])
    set_view(gm_client, campaign, "compact")
    page = dashboard(gm_client, campaign)
    row = row_of(page, pc)
    assert "current-turn" in row
    assert re.search(r'<span class="place" title="Rang 2">2</span>', row)
    seat = re.search(r'<form class="seat".*?</form>', row, re.S).group(0)
    assert re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", seat)).strip() == (
        "Actions 1 /2 −1 Réflexes 0 /1"
    )
    assert 'data-action="spend-action"' in seat and 'data-action="spend-reflex"' not in seat
    assert 'hx-target="#result-fight"' in seat
    # The fight's order is in the row's « Plus… », drawn when it opens.
    menu_url = reverse("character_menu", args=[campaign.pk, pc.pk]) + "?view=compact"
    assert f'hx-get="{menu_url}"' in row and 'data-action="fight-up"' not in row
    menu = gm_client.get(menu_url).content.decode()
    order = re.search(r'<form method="post" class="order".*?</form>', menu, re.S).group(0)
    assert 'data-action="fight-up"' in order and 'data-action="fight-out"' in order
    assert 'hx-target="#result-fight"' in order and "csrfmiddlewaretoken" in order
    other = row_of(page, npc)
    assert "current-turn" not in other
    assert 'data-testid="actions-left">2<' in other and 'data-testid="reflexes-left">1<' in other
    # The fight section keeps its head; the compact page hides its list (CSS), not its parts.
    assert 'id="fight"' in page and 'id="result-fight"' in page


def test_spending_from_a_row_redraws_the_row(gm_client, gm, campaign, pc, npc):
    from play import services

    services.fight_start(campaign_id=campaign.pk, actor=gm, character_ids=[pc.pk, npc.pk])
    url = reverse("fight_spend", args=[campaign.pk, pc.pk, "action"])
    answer = gm_client.post(url, {}, headers=htmx("compact", campaign)).content.decode()
    row = row_of(answer, pc)
    assert 'data-testid="actions-left">1<' in row and 'hx-swap-oob="true"' in row


def htmx(view=None, campaign=None):
    headers = {"HX-Request": "true"}
    if campaign is not None:
        headers["HX-Current-URL"] = f"http://testserver/c/{campaign.pk}/"
    if view:
        headers[VIEW_HEADER] = view
    return headers


def test_an_action_from_a_compact_page_redraws_its_row(gm_client, campaign, pc):
    url = reverse("character_action", args=[campaign.pk, pc.pk, "damage"])
    body = {"amount": 3, "visibility": "gm"}
    answer = gm_client.post(url, body, headers=htmx("compact", campaign)).content.decode()
    assert re.search(rf'<article class="row[^"]*" id="character-{pc.pk}"', answer)
    assert 'hx-swap-oob="true"' in row_of(answer, pc)
    assert 'data-testid="pv">10/14<' in answer  # 3 damage − 2 PA
    assert 'data-testid="card"' not in answer
    assert 'id="roll-log"' in answer and 'id="party-bar"' in answer
    # The same action from a page of cards brings a card.
    answer = gm_client.post(url, body, headers=htmx("cards", campaign)).content.decode()
    assert 'data-testid="card"' in answer and 'data-testid="row"' not in answer


def test_a_refused_quick_action_shows_its_message_under_the_row(gm_client, campaign, pc):
    url = reverse("character_action", args=[campaign.pk, pc.pk, "spend_flux"])
    response = gm_client.post(
        url, {"amount": 999, "visibility": "everyone"}, headers=htmx("compact", campaign)
    )
    assert response.status_code == 400
    assert response["HX-Retarget"] == f"#panel-{pc.pk}"
    assert "Isaure n’a que 7 Flux (il en faut 999)." in response.content.decode()


def test_a_row_refetches_itself_as_a_row_and_a_player_gets_a_card(
    gm_client, player_client, campaign, pc
):
    url = reverse("character_card", args=[campaign.pk, pc.pk]) + "?view=compact"
    assert 'data-testid="row"' in gm_client.get(url).content.decode()
    assert 'data-testid="card"' in player_client.get(url).content.decode()
    plain = reverse("character_card", args=[campaign.pk, pc.pk])
    assert 'data-testid="card"' in gm_client.get(plain).content.decode()


def test_a_row_and_a_card_are_cached_apart(gm_client, campaign, pc):
    Condition.objects.create(character=pc, kind="gene", cause="gm")
    card = reverse("character_card", args=[campaign.pk, pc.pk])
    first = gm_client.get(card).content.decode()
    row = gm_client.get(card + "?view=compact").content.decode()
    assert 'data-testid="card"' in first and 'data-testid="row"' in row
    assert 'data-testid="card"' in gm_client.get(card).content.decode()


def test_the_card_offers_the_full_damage_form_and_who_sees_quick_actions(gm_client, campaign, pc):
    page = dashboard(gm_client, campaign)
    damage = reverse("character_action", args=[campaign.pk, pc.pk, "damage"])
    assert re.search(
        rf'<nav class="more" data-panel="#panel-{pc.pk}"[^>]*>\s*'
        rf'<a href="{damage}" data-action="damage_full">Dégâts…</a>',
        page,
    )
    panel = gm_client.get(damage, headers={"HX-Request": "true"}).content.decode()
    assert 'name="ignores_pa"' in panel and 'name="cause"' in panel and 'name="visibility"' in panel
    assert '<option value="everyone" selected>tous</option>' in page


def test_the_quick_visibility_choice_reaches_the_log(gm_client, campaign, pc):
    from journal.models import AuditEntry

    url = reverse("character_action", args=[campaign.pk, pc.pk, "heal"])
    gm_client.post(url, {"amount": 1, "visibility": "gm"}, headers=htmx("cards", campaign))
    entries = AuditEntry.objects.filter(campaign=campaign, character=pc)
    assert entries.exists() and set(entries.values_list("visibility", flat=True)) == {"gm"}
