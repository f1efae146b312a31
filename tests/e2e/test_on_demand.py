"""What a card, a compact row and the fight section draw only when the GM asks for it, played
as at the table without reloading: the card's panel links (opened by static/panels.js, one
listener instead of an hx-get each) one after the other, a quick action between them; the
fight's start form, drawn when its section opens, refused with nobody ticked, then started in
the order ticked; on a 390x844 phone, the compact row's « Plus… » drawing its rule links and
opening a panel from there. DEBUG on and off, no console or htmx error, no reload."""

import pytest
from playwright.sync_api import expect

from campaign.models import Campaign, Membership
from tests.e2e.pages import GM_VIEWPORT, PHONE, no_errors, open_gm_dashboard

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_cards_panels_and_the_fight_start_drawn_when_asked(
    browser, live_server, console_errors, campaign, pc, other_pc, npc, artifacts, debug
):
    mode = "debug" if debug else "production"
    context, page = open_gm_dashboard(browser, live_server, console_errors, campaign, GM_VIEWPORT)
    card, panel = page.locator(f"#character-{pc.pk}"), page.locator(f"#panel-{pc.pk}")
    section = page.locator("#fight")
    # Neither the start form nor its candidates are in the page until the GM opens it.
    expect(section.locator("input[name=fighters]")).to_have_count(0)
    assert card.locator("nav.more a[hx-get]").count() == 0  # one listener for the links
    page.screenshot(path=artifacts / f"on-demand-dashboard-{mode}.png")

    # Panels one after the other, then a quick action, then another panel: each in its place.
    card.get_by_role("link", name="Test", exact=True).click()
    expect(panel.locator("form")).to_contain_text("Difficulté")
    card.get_by_role("link", name="Ajouter un état", exact=True).click()
    expect(panel.locator("select[name=kind]")).to_be_visible()
    panel.get_by_role("link", name="Annuler").click()
    expect(panel).to_be_empty()
    card.locator("input[name=amount]").fill("3")  # Isaure's PA 2 take the first two (R3)
    card.get_by_role("button", name="Dégâts", exact=True).click()
    expect(page.locator(f"#result-{pc.pk}")).to_contain_text("PV 11 → 10")
    expect(card.get_by_test_id("pv")).to_have_text("10 / 14")
    card.get_by_role("link", name="Chute", exact=True).click()
    expect(panel.locator("form")).to_contain_text("Chute")
    assert page.url.endswith(f"/c/{campaign.pk}/")  # no link followed

    # The fight's start: drawn when opened, refused with nobody ticked, then started.
    section.locator("summary").click()
    boxes = section.locator("input[name=fighters]")
    expect(boxes).to_have_count(3)
    section.get_by_role("button", name="Commencer le combat").click()
    expect(page.locator("#result-fight")).to_contain_text("Cochez au moins un personnage")
    section.locator(f"input[name=fighters][value='{npc.pk}']").check()
    section.locator(f"input[name=fighters][value='{pc.pk}']").check()
    expect(section.locator(f"#fight-place-{pc.pk}")).to_have_value("2")
    page.screenshot(path=artifacts / f"on-demand-fight-start-{mode}.png")
    section.get_by_role("button", name="Commencer le combat").click()
    expect(page.locator("#result-fight")).to_contain_text("Début du combat")
    assert Campaign.objects.get(pk=campaign.pk).fight["order"] == [str(npc.pk), str(pc.pk)]
    no_errors(page, console_errors, allowed=(f"/c/{campaign.pk}/fight/start/",))
    context.close()


def test_the_compact_rows_more_draws_its_links_and_opens_a_panel_on_a_phone(
    browser, live_server, console_errors, campaign, gm, pc, other_pc, artifacts, debug
):
    mode = "debug" if debug else "production"
    Membership.objects.filter(campaign=campaign, user=gm).update(dashboard_view="compact")
    context, page = open_gm_dashboard(browser, live_server, console_errors, campaign, PHONE)
    row, panel = page.locator(f"#character-{pc.pk}"), page.locator(f"#panel-{pc.pk}")
    page.screenshot(path=artifacts / f"on-demand-rows-phone-{mode}.png")
    expect(row.locator("a[data-action=check]")).to_have_count(0)  # drawn when opened
    row.locator("input[name=amount]").fill("3")  # Isaure's PA 2 take the first two (R3)
    row.get_by_role("button", name="Dégâts").click()
    expect(row.get_by_test_id("pv")).to_have_text("10/14")
    row.locator("details.row-menu > summary").click()
    menu = row.locator("details.row-menu .menu")
    menu.get_by_role("link", name="Test", exact=True).click()
    expect(panel.locator("form")).to_contain_text("Difficulté")
    # The chosen link closed its menu at once (not the next live redraw of the row, which
    # an expect's wait would let come): the panel is not left under it.
    assert row.locator("details.row-menu[open]").count() == 0
    assert not menu.is_visible()
    panel.get_by_role("button", name="Appliquer").scroll_into_view_if_needed()
    expect(panel.get_by_role("button", name="Appliquer")).to_be_in_viewport()
    page.screenshot(path=artifacts / f"on-demand-row-panel-phone-{mode}.png")
    # The full damage form, a link of the row itself (static/panels.js), replaces it.
    row.get_by_role("link", name="Dégâts…").click()
    expect(panel.locator("input[name=cause]")).to_be_visible()
    row.locator("input[name=amount]").fill("1")
    row.get_by_role("button", name="Soigner").click()
    expect(row.get_by_test_id("pv")).to_have_text("11/14")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    no_errors(page, console_errors)
    context.close()
