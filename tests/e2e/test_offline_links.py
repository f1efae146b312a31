"""Offline, the sheet's own links on a 390x844 phone open a readable page, never the browser's
error page: « Groupe » the copy the service worker kept of it (the last one the player saw,
marked with its age), every other page (the history, the dice, the members…) the worker's
small page that says the page needs the connection and links back to the sheet and the other
pages kept on the phone. Under DEBUG on and off (the hashed static files); no console error.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import NO_RELOAD, open_gated_sheet

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LIVE_WAIT = 15_000
STALE = re.compile(r"^Hors ligne — données d’il y a (moins d’une minute|\d+\u00a0min)$")
# The pages the service worker keeps, read from its caches.
KEPT = """(async () => {
  const kept = [];
  for (const name of await caches.keys()) {
    for (const request of await (await caches.open(name)).keys()) {
      kept.push(new URL(request.url).pathname);
    }
  }
  return kept;
})()"""


def test_offline_every_link_of_the_sheet_opens_a_readable_page(
    browser, live_server, console_errors, campaign, pc, other_pc, debug, artifacts
):
    mode = "debug" if debug else "production"
    context, page, _gate = open_gated_sheet(browser, live_server, console_errors, campaign, pc)
    base = live_server.url
    home, sheet = f"/c/{campaign.pk}/", f"/c/{campaign.pk}/characters/{pc.pk}/"
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=LIVE_WAIT)
    # « Groupe » seen once, then back to the sheet: both kept, with the offline page.
    nav = page.get_by_role("navigation", name="Campagne")
    nav.get_by_role("link", name="Groupe", exact=True).click()
    expect(page.locator("#own-characters")).to_contain_text("Isaure")
    page.get_by_role("link", name="Isaure").click()
    expect(page.locator("h1")).to_have_text("Isaure")
    # (wait_for_function does not wait for a promise's value: the caches are read here.)
    for _ in range(LIVE_WAIT // 250):
        if {home, sheet, "/offline/"} <= set(page.evaluate(KEPT)):
            break
        page.wait_for_timeout(250)
    assert {home, sheet, "/offline/"} <= set(page.evaluate(KEPT))
    links = page.eval_on_selector_all(
        "a[href]",
        "els => els.filter(a => a.checkVisibility())"
        ".map(a => [a.textContent.trim(), a.getAttribute('href')])"
        ".filter(([, href]) => href.startsWith('/'))",
    )
    hrefs = {href for _, href in links}
    # The sheet's navigation and its own links: all of them are tried below.
    assert {home, f"/c/{campaign.pk}/history/", f"/c/{campaign.pk}/members/", "/"} <= hrefs
    assert any(href.startswith(f"/c/{campaign.pk}/history/?character=") for href in hrefs)

    # Online, the worker lets every other page through as it is, a redirect included
    # (APPEND_SLASH sends /history to /history/).
    page.goto(f"{base}/c/{campaign.pk}/history")
    expect(page).to_have_url(f"{base}/c/{campaign.pk}/history/")
    expect(page.get_by_role("heading", name="Historique", exact=True)).to_be_visible()
    page.goto(f"{base}{sheet}")
    # The sheet has read its odds before the network goes (a read cut in flight fails, logged).
    expect(page.get_by_test_id("probability")).to_contain_text("%")

    context.set_offline(True)
    tried = set()
    for text, href in links:
        if href in tried or href == sheet:
            continue
        tried.add(href)
        page.goto(f"{base}{sheet}")  # the sheet's copy, offline
        expect(page.get_by_test_id("stale-mark")).to_have_text(STALE)
        page.evaluate(f"{NO_RELOAD} = 'still here'")
        page.locator(f'a[href="{href}"]').first.click()
        page.wait_for_load_state()
        where = f"{text} ({href})"
        assert page.url.startswith(base), where  # not chrome-error://
        assert page.evaluate(f"typeof {NO_RELOAD}") == "undefined", where  # a page was opened
        expect(page.locator("header.topbar .brand")).to_have_text("Chroniqueur")
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == (
            "rgb(247, 245, 240)"
        ), where  # styled: the stylesheet came from the worker's cache
        if href == home:
            # The last « Groupe » the player saw, marked as old.
            expect(page.get_by_test_id("stale-mark")).to_have_text(STALE)
            expect(page.locator("#own-characters")).to_contain_text("Isaure")
            expect(page.get_by_test_id("party")).to_contain_text("Gaspard")
            page.screenshot(path=artifacts / f"offline-party-{mode}.png")
            continue
        offline = page.get_by_test_id("offline-page")
        expect(offline.get_by_role("heading", level=1)).to_have_text("Pas de connexion")
        expect(offline).to_contain_text(
            "Cette page a besoin de la connexion\u00a0: elle s’ouvrira une fois le réseau revenu."
        )
        kept = offline.get_by_test_id("kept-pages").get_by_role("link")
        # The sheet the link was followed from first, then « Groupe ».
        expect(kept).to_have_count(2)
        expect(kept.first).to_have_text(f"Isaure · {campaign.name}")
        expect(kept.first).to_have_attribute("href", sheet)
        expect(kept.nth(1)).to_have_attribute("href", home)
        expect(kept.nth(1)).to_have_text(f"Groupe · {campaign.name}")
        if href.startswith(f"/c/{campaign.pk}/history/"):
            page.screenshot(path=artifacts / f"offline-page-{mode}.png")
    assert len(tried) >= 5

    # From the offline page, back to the sheet's copy.
    kept.first.click()
    expect(page.locator("h1")).to_have_text("Isaure")
    expect(page.get_by_test_id("stale-mark")).to_have_text(STALE)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    # The copy asked nothing of the server (its odds wait for it): no failed read logged.
    odds = page.get_by_test_id("probability")
    expect(odds).to_be_empty()
    assert page.evaluate("window.__htmx_errors") == []
    assert console_errors.errors == []
    # Back online: the server answers, and the odds held meanwhile are read once.
    context.set_offline(False)
    expect(odds).to_contain_text("%", timeout=20_000)
    assert page.evaluate("window.__htmx_errors") == []
    assert console_errors.errors == []
    context.close()
