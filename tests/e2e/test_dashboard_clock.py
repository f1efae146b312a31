"""The campaign-level parts in a real browser: after an end of scene or a clock move, the GM's own
dashboard and every other open one show the new scene and time, without a reload.

On the test server (WSGI) the pages follow the campaign by polling; on two uvicorn processes
sharing PostgreSQL (tests/e2e/test_live.py's fixture), through the stream.
"""

import pytest
from playwright.sync_api import expect

from campaign.models import Campaign
from tests.e2e.pages import GM_VIEWPORT, NO_RELOAD, log_in

pytestmark = [pytest.mark.e2e]

LIVE_WAIT = 15_000  # ms: the polling fallback looks every 4 s


def _dashboard(browser, base_url: str, campaign_id: int, username, password, console_errors):
    context = browser.new_context(viewport=GM_VIEWPORT, locale="fr-FR")
    page = console_errors(context.new_page())
    log_in(page, base_url, username, password)
    page.goto(f"{base_url}/c/{campaign_id}/")
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    return context, page


def _end_the_scene_and_move_the_clock(gm, others):
    clock = gm.locator("[data-testid=clock]")
    expect(clock).to_contain_text("scène 1")
    for page in others:
        expect(page.locator("[data-testid=clock]")).to_contain_text("scène 1")

    gm.locator("#party-bar").get_by_role("link", name="Terminer la scène").click()
    gm.locator("#panel-party").get_by_role("button", name="Appliquer").click()
    expect(clock).to_contain_text("scène 2")  # from the action's answer
    for page in others:
        expect(page.locator("[data-testid=clock]")).to_contain_text("scène 2", timeout=LIVE_WAIT)
        expect(page.locator("#roll-log")).to_contain_text("scène : 1 → 2", timeout=LIVE_WAIT)

    before = clock.inner_text().split(" · ")[0]
    gm.locator("#party-bar").get_by_role("button", name="+1 h").click()
    expect(clock).not_to_contain_text(before)
    time = clock.inner_text().split(" · ")[0]
    assert time.endswith(f"{int(before[-5:-3]) + 1:02d}:{before[-2:]}"), (before, time)
    for page in others:
        expect(page.locator("[data-testid=clock]")).to_contain_text(time, timeout=LIVE_WAIT)
    for page in (gm, *others):
        assert page.evaluate(NO_RELOAD) == "still here"
        expect(page.locator("header.topbar")).to_be_visible()


@pytest.mark.django_db(transaction=True)
def test_the_new_scene_shows_on_the_gms_page_and_on_another_open_dashboard(
    browser, live_server, console_errors, campaign, pc, other_pc, artifacts
):
    login = ("gaelle_mj", "correct horse battery")
    first, gm = _dashboard(browser, live_server.url, campaign.pk, *login, console_errors)
    second, other = _dashboard(browser, live_server.url, campaign.pk, *login, console_errors)

    _end_the_scene_and_move_the_clock(gm, [other])
    stored = Campaign.objects.get(pk=campaign.pk)
    assert stored.scene == 2
    other.screenshot(path=artifacts / "dashboard-second-after-end-of-scene.png", caret="initial")
    assert console_errors.errors == []
    first.close()
    second.close()


@pytest.mark.django_db(transaction=True)
def test_a_late_refetch_of_the_clock_bar_does_not_put_an_older_time_back(
    browser, live_server, console_errors, campaign, pc
):
    """The end of scene's live event refetches the bar; its answer, held back here, arrives
    after the GM's next move of the clock has redrawn the bar: it is not swapped in (a refetch
    replaces the element it was asked for, which the action's answer has replaced since)."""
    login = ("gaelle_mj", "correct horse battery")
    context, gm = _dashboard(browser, live_server.url, campaign.pk, *login, console_errors)
    held = []

    def hold(route):
        if route.request.headers.get("hx-target") == "party-bar" and not held:
            held.append((route, route.fetch()))  # the bar as it is now, answered later
        else:
            route.continue_()

    gm.route(f"{live_server.url}/c/{campaign.pk}/", hold)
    gm.locator("#party-bar").get_by_role("link", name="Terminer la scène").click()
    gm.locator("#panel-party").get_by_role("button", name="Appliquer").click()
    clock = gm.locator("[data-testid=clock]")
    expect(clock).to_contain_text("scène 2")
    for _ in range(LIVE_WAIT // 100):
        if held:
            break
        gm.wait_for_timeout(100)
    assert held, "the end of scene did not refetch the clock bar"

    gm.locator("#party-bar").get_by_role("button", name="+1 h").click()
    expect(clock).to_contain_text("09:00")
    route, stale = held[0]
    assert "08:00" in stale.text()
    route.fulfill(response=stale)
    gm.wait_for_timeout(500)
    expect(clock).to_contain_text("09:00")
    assert gm.evaluate(NO_RELOAD) == "still here"
    assert console_errors.errors == []
    context.close()


def test_the_new_scene_reaches_a_dashboard_on_another_process_through_the_stream(
    browser,
    two_processes,
    console_errors,
):
    world = two_processes
    gm_url, other_url = world.urls
    login = ("mj", "demo")
    first, gm = _dashboard(browser, gm_url, world.campaign_id, *login, console_errors)
    second, other = _dashboard(browser, other_url, world.campaign_id, *login, console_errors)
    expect(other.locator("#live")).to_have_attribute("data-connected", "stream")

    _end_the_scene_and_move_the_clock(gm, [other])
    assert console_errors.errors == []
    first.close()
    second.close()
