"""A card's « Plus… » is drawn when the GM opens it (play/views.py character_menu), so that a
card carries only what is at hand. Played as at the table: quick damage three times in a row,
the menu opened (edit, duplicate, why actions are missing), the card redrawn by the next
action and its menu opened again, a duplicate refused then made from it; the compact row's
« Plus… » on a 390x844 phone draws the same part under its rule links. DEBUG on and off, no
console or htmx error, no reload."""

import pytest
from playwright.sync_api import expect

from campaign.models import Membership
from characters.models import Character
from tests.e2e.pages import GM_VIEWPORT, PHONE, more_menu, no_errors, open_gm_dashboard

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_cards_more_menu_is_drawn_each_time_it_is_opened(
    browser, live_server, console_errors, campaign, pc, npc, artifacts, debug
):
    mode = "debug" if debug else "production"
    context, page = open_gm_dashboard(browser, live_server, console_errors, campaign, GM_VIEWPORT)
    card = page.locator(f"#character-{npc.pk}")
    expect(card.locator("[data-missing]")).to_have_count(0)  # not in the card until opened
    for pv in (11, 10, 9):  # the Vicomte's 12 PV, 1 damage at a time (PA 0)
        card.get_by_role("button", name="Dégâts", exact=True).click()
        expect(card.get_by_test_id("pv")).to_have_text(f"{pv} / 12")

    menu = more_menu(card)
    expect(menu.get_by_role("link", name="Modifier")).to_be_visible()
    expect(menu.locator("[data-missing~=revive]")).to_contain_text("n’est pas mort")
    page.screenshot(path=artifacts / f"more-menu-open-{mode}.png")

    # The next action redraws the card: its menu is closed, and drawn again when reopened.
    card.get_by_role("button", name="Dégâts", exact=True).click()
    expect(card.get_by_test_id("pv")).to_have_text("8 / 12")
    expect(card.locator("details.more-menu")).not_to_have_attribute("open", "")
    menu = more_menu(card)
    menu.get_by_role("link", name="Dupliquer…").click()
    panel = page.locator(f"#panel-{npc.pk}")
    panel.get_by_label("Nombre de copies").fill("50")
    panel.get_by_role("button", name="Dupliquer", exact=True).click()
    expect(panel.get_by_test_id("duplicate-error")).to_contain_text("entre 1 et 20")
    no_errors(page, console_errors, allowed=(f"/characters/{npc.pk}/duplicate/",))
    context.close()


def test_the_compact_rows_more_draws_the_seldom_used_part_on_a_phone(
    browser, live_server, console_errors, campaign, gm, pc, npc, artifacts, debug
):
    mode = "debug" if debug else "production"
    Membership.objects.filter(campaign=campaign, user=gm).update(dashboard_view="compact")
    Character.objects.filter(pk=pc.pk).update(flux=0)
    context, page = open_gm_dashboard(browser, live_server, console_errors, campaign, PHONE)
    # The row's controls wrap on a phone: the page never scrolls sideways (it was 610 px wide).
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    row = page.locator(f"#character-{pc.pk}")
    row.locator("details.row-menu > summary").click()
    menu = row.locator("details.row-menu .menu")
    expect(menu.locator("a[data-action=check]")).to_be_visible()  # the rule links, at once
    expect(menu.locator("[data-missing~=spend_flux]")).to_contain_text("Flux")  # then the rest
    expect(menu.get_by_role("link", name="Modifier")).to_be_visible()
    page.screenshot(path=artifacts / f"more-menu-row-phone-{mode}.png")
    no_errors(page, console_errors)
    context.close()
