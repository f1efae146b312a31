"""Streams that end, in a real browser (live/stream.py `end`, static/live.js): logging out in
another tab, removal from the campaign, and an account's streams past the per-process cap.

Served by uvicorn (streams need ASGI) on PostgreSQL: tests/e2e/test_live.py's processes. The
player's phone is 390x844, the GM's screen 1440x900; no console error anywhere, and a page
whose stream ended for good asks for no other.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import GM_VIEWPORT, PHONE, confirm, log_in

pytestmark = [pytest.mark.e2e]

SCREEN = GM_VIEWPORT
NB = "\u00a0"


def _context(browser, size):
    return browser.new_context(viewport=size, locale="fr-FR")


def _stream_requests(page) -> list[str]:
    found: list[str] = []
    page.on("request", lambda r: found.append(r.url) if "/events/" in r.url else None)
    return found


def _no_new_stream_for(requests: list[str], seconds: float) -> None:
    before = len(requests)
    time.sleep(seconds)
    assert requests[before:] == [], "the page asked for the stream again"


def test_the_phone_says_so_when_its_stream_ends_and_stops_asking(
    browser,
    two_processes,
    console_errors,
    artifacts,
):
    world = two_processes
    url, gm_url = world.urls
    cid, pk = world.campaign_id, world.character_id
    sheet_url = f"{url}/c/{cid}/characters/{pk}/"

    # Logged out in another tab of the same phone: the sheet's stream ends within seconds.
    phone = _context(browser, PHONE)
    sheet = console_errors(phone.new_page())
    log_in(sheet, url, "alice", "demo")
    sheet.goto(sheet_url)
    requests = _stream_requests(sheet)
    expect(sheet.locator("#live")).to_have_attribute("data-connected", "stream")
    tab = console_errors(phone.new_page())
    tab.goto(f"{url}/")
    tab.get_by_role("button", name="Se déconnecter").click()
    status = sheet.locator("#live [role=status]")
    expect(sheet.locator("#live")).to_have_attribute("data-state", "logout", timeout=5_000)
    expect(status).to_contain_text(
        f"Vous avez été déconnecté{NB}: les mises à jour en direct sont arrêtées."
    )
    expect(status.get_by_role("link", name="Se reconnecter")).to_be_visible()
    sheet.screenshot(path=artifacts / "stream-end-logout-phone.png")
    _no_new_stream_for(requests, 3)
    phone.close()

    # Removed by the GM: the phone says so and offers the way home.
    phone = _context(browser, PHONE)
    sheet = console_errors(phone.new_page())
    log_in(sheet, url, "alice", "demo")
    sheet.goto(sheet_url)
    requests = _stream_requests(sheet)
    expect(sheet.locator("#live")).to_have_attribute("data-connected", "stream")
    screen = _context(browser, SCREEN)
    members = console_errors(screen.new_page())
    log_in(members, gm_url, "mj", "demo")
    members.goto(f"{gm_url}/c/{cid}/members/")
    members.locator("li", has_text="alice").get_by_role("button", name="Retirer").click()
    confirm(members)  # removing a member asks first
    expect(members.locator("li", has_text="alice")).to_have_count(0)
    expect(sheet.locator("#live")).to_have_attribute("data-state", "removed", timeout=5_000)
    expect(sheet.locator("#live [role=status]")).to_contain_text(
        f"Vous ne faites plus partie de cette campagne{NB}: les mises à jour en direct sont "
        "arrêtées."
    )
    link = sheet.locator("#live").get_by_role("link", name="Retour à vos campagnes")
    expect(link).to_be_visible()
    sheet.screenshot(path=artifacts / "stream-end-removed-phone.png")
    _no_new_stream_for(requests, 3)
    link.click()
    sheet.wait_for_url(f"{url}/")
    phone.close()
    assert console_errors.errors == []

    # One account's ninth stream on one process: that page polls instead, without an error,
    # and still follows the GM's actions. (A browser keeps at most six connections to one
    # server over HTTP/1.1: the GM's streams come from several browser profiles here.)
    pages = []
    for _ in range(9):
        context = _context(browser, SCREEN)
        page = console_errors(context.new_page())
        log_in(page, url, "mj", "demo")
        page.goto(f"{url}/c/{cid}/")
        pages.append(page)
    *streaming, ninth = pages
    for page in streaming:
        expect(page.locator("#live")).to_have_attribute("data-connected", "stream")
    expect(ninth.locator("#live")).to_have_attribute("data-state", "busy")
    expect(ninth.locator("#live [role=status]")).to_contain_text(
        "Ce compte suit déjà la partie en direct dans de nombreux onglets"
    )
    card = streaming[0].locator(f"#character-{pk}")
    before = card.locator("[data-testid=flux]").inner_text()
    card.locator("input[name=amount]").fill("1")
    card.get_by_role("button", name="−Flux", exact=True).click()
    expect(card.locator("[data-testid=flux]")).not_to_have_text(before)
    after = card.locator("[data-testid=flux]").inner_text()
    flux = ninth.locator(f"#character-{pk} [data-testid=flux]")
    expect(flux).to_have_text(after, timeout=10_000)
    ninth.screenshot(path=artifacts / "stream-busy-polling-screen.png")
    for page in pages:
        page.context.close()
    screen.close()
    assert console_errors.errors == []
