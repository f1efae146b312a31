"""The demo campaign in a real browser: the GM's dashboard, a player's sheet on a phone."""

import io

import pytest
from django.core.management import call_command

from tests.e2e.pages import LAPTOP, PHONE, log_in

pytestmark = pytest.mark.e2e


@pytest.fixture
def demo(live_server):
    call_command("seed_demo", stdout=io.StringIO())
    return live_server.url


def _log_in(page, base_url, username):
    log_in(page, base_url, username, "demo")
    assert page.locator(".topnav .who").inner_text() == username


def test_the_demo_gm_sees_four_cards(browser, demo, artifacts, console_errors):
    context = browser.new_context(viewport=LAPTOP)
    page = console_errors(context.new_page())
    _log_in(page, demo, "mj")
    page.click("main a[href^='/c/']")
    page.wait_for_selector("article.card")
    cards = page.locator("article.card")
    assert cards.count() == 4
    names = sorted(cards.locator("h2").all_inner_texts())
    assert names == ["Aveline", "Bastien", "Corentin", "Le Bandit borgne"]
    page.screenshot(path=artifacts / "gm-dashboard.png", full_page=True)
    assert console_errors.errors == []
    context.close()


def test_a_demo_player_reads_their_sheet_on_a_phone(browser, demo, artifacts, console_errors):
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    page = console_errors(context.new_page())
    _log_in(page, demo, "alice")
    page.click("main a[href^='/c/']")
    page.click("main a.button:has-text('Aveline')")
    page.wait_for_selector("article.sheet")
    assert page.locator("article.sheet h1").inner_text() == "Aveline"
    assert page.locator("[data-testid=pv]").first.inner_text() == "14 / 14"
    no_horizontal_scroll = page.evaluate(
        "document.documentElement.scrollWidth <= window.innerWidth"
    )
    page.screenshot(path=artifacts / "player-sheet-390.png", full_page=True)
    assert no_horizontal_scroll
    assert console_errors.errors == []
    context.close()
