"""The history tells what stands, one line per action (journal/standing.py, journal/lines.py,
journal/recap.py), on a laptop (1440 x 900) and a phone (390 x 844), DEBUG on and off.

The scenario: Isaure and Gaspard fall into the coma far below 0 PV; the clock moves 3 h and
both die (R11, R16); the GM undoes the clock. The recap then says nobody died, the history
strikes the clock's action and says « annulée par #N » on each of its changes, the screen
holds at least 12 actions (6 on the phone), an action opens to show its entries. Screenshots
in test-artifacts/. No console or htmx error.
"""

import pytest
from playwright.sync_api import expect

from characters.models import Character
from journal.models import EntryKind, PlaySession
from play import services
from tests.e2e.pages import HTMX_ERRORS, axe_violations, log_in
from tests.play.steps import run

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SCREENS = {
    "laptop": ({"width": 1440, "height": 900}, 12),
    "phone": ({"width": 390, "height": 844}, 6),
}

# The actions whose line starts inside the first screen.
ON_SCREEN = """() => [...document.querySelectorAll('[data-testid=action]')]
  .filter(a => a.getBoundingClientRect().bottom <= window.innerHeight).length"""


def night(campaign, gm, pc, other_pc):
    """An evening: small actions, then the coma and the deaths, then the undo."""
    for _ in range(6):
        run(campaign, gm, "spend_flux", {"amount": "1"}, character=other_pc)
        run(campaign, gm, "restore_flux", {"amount": "1"}, character=other_pc)
    run(campaign, gm, "damage", {"amount": "30", "cause": "un éboulement"}, character=pc, typed=[1])
    run(campaign, gm, "damage", {"amount": "40"}, character=other_pc, typed=[1])
    clock = run(campaign, gm, "clock", {"minutes": "180"}, typed=[1, 1])
    assert set(Character.objects.values_list("vital", flat=True)) == {"dead"}
    change = next(e for e in clock.entries if e.kind == EntryKind.CHANGE)
    services.entry_undo(
        campaign_id=campaign.pk, actor=gm, entry_id=change.pk, whole_action=True, force=True
    )
    return clock


@pytest.mark.parametrize("screen", SCREENS)
def test_r16_the_history_and_the_recap_show_what_stands(
    screen,
    browser,
    live_server,
    console_errors,
    campaign,
    gm,
    pc,
    other_pc,
    artifacts,
    debug,
):
    clock = night(campaign, gm, pc, other_pc)
    session = PlaySession.objects.get(campaign=campaign)
    viewport, at_least = SCREENS[screen]
    phone = screen == "phone"
    context = browser.new_context(
        viewport=viewport,
        locale="fr-FR",
        is_mobile=phone,
        has_touch=phone,
        device_scale_factor=2 if phone else 1,
    )
    context.add_init_script(HTMX_ERRORS)
    context.route(f"{live_server.url}/c/{campaign.pk}/events/**", lambda r: r.fulfill(json={}))
    page = console_errors(context.new_page())
    log_in(page, live_server.url, gm.username)
    mode = f"{screen}-debug-{'on' if debug else 'off'}"

    page.goto(f"{live_server.url}/c/{campaign.pk}/history/")
    expect(page.get_by_test_id("action").first).to_be_visible()
    page.screenshot(path=artifacts / f"history-story-{mode}.png", full_page=False)
    assert page.evaluate(ON_SCREEN) >= at_least
    filters = page.get_by_test_id("history-filters")
    if phone:
        expect(filters).to_be_hidden()  # folded: the first screen is for the actions
    else:
        expect(filters).to_be_visible()
    page.screenshot(path=artifacts / f"history-story-{mode}.png", full_page=False)

    # The clock's action is struck; opened, each change says which undo took it back.
    struck = page.locator(f"#action-{clock.entries[0].pk}")
    expect(struck.get_by_test_id("action-undone")).to_be_visible()
    struck.locator(":scope > details > summary").click()
    first = struck.locator(f"#entry-{clock.entries[0].pk}")
    expect(first).to_be_visible()
    expect(struck.get_by_test_id("undone-mark").first).to_contain_text("annulée par #")
    page.screenshot(path=artifacts / f"history-story-open-{mode}.png", full_page=False)
    assert axe_violations(page) == []

    # The filters still work on actions, folded or not.
    if phone:
        page.get_by_test_id("filters-fold").locator(":scope > summary").click()
    filters.get_by_label("Personnage").select_option(label="Gaspard")
    filters.get_by_role("button", name="Filtrer").click()
    expect(page.get_by_test_id("action").first).to_contain_text("Gaspard")

    page.goto(f"{live_server.url}/c/{campaign.pk}/history/sessions/{session.pk}/recap/")
    events = page.get_by_test_id("recap-event")
    expect(events).to_have_count(2)
    expect(page.get_by_test_id("recap-events")).not_to_contain_text("meurt")
    expect(page.get_by_test_id("recap-characters")).to_contain_text("dans le coma")
    page.screenshot(path=artifacts / f"recap-story-{mode}.png", full_page=True)
    assert axe_violations(page) == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.evaluate("window.__htmx_errors") == []
    assert console_errors.errors == []
    context.close()


def test_a_players_history_on_a_phone_opens_on_the_actions_with_the_filters_folded(
    browser, live_server, console_errors, campaign, gm, player, pc, other_pc, artifacts, debug
):
    """A player's history at 390 x 844: the filters folded (« Filtres », closed) so that six
    actions or more show on the first screen; open once a filter is in use."""
    for _ in range(5):
        run(campaign, gm, "spend_flux", {"amount": "1"}, character=pc)
        run(campaign, gm, "restore_flux", {"amount": "1"}, character=pc)
    viewport, at_least = SCREENS["phone"]
    context = browser.new_context(
        viewport=viewport, locale="fr-FR", is_mobile=True, has_touch=True, device_scale_factor=2
    )
    context.add_init_script(HTMX_ERRORS)
    context.route(f"{live_server.url}/c/{campaign.pk}/events/**", lambda r: r.fulfill(json={}))
    page = console_errors(context.new_page())
    log_in(page, live_server.url, player.username)
    page.goto(f"{live_server.url}/c/{campaign.pk}/history/")
    expect(page.get_by_test_id("action").first).to_be_visible()
    fold = page.get_by_test_id("filters-fold")
    expect(fold.locator(":scope > summary")).to_have_text("Filtres")
    expect(fold).not_to_have_attribute("open", "")
    expect(page.get_by_test_id("history-filters")).to_be_hidden()
    assert page.evaluate(ON_SCREEN) >= at_least
    page.screenshot(path=artifacts / f"history-player-phone-debug-{'on' if debug else 'off'}.png")
    # A filter in use (the sheet's « Historique de ce personnage »): the fold opens on it.
    page.goto(f"{live_server.url}/c/{campaign.pk}/history/?character={pc.pk}")
    expect(fold).to_have_attribute("open", "")
    expect(page.get_by_test_id("history-filters").get_by_label("Personnage")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.evaluate("window.__htmx_errors") == []
    assert console_errors.errors == []
    context.close()
