"""Two tabs of the GM's dashboard (the table's laptop and the GM's own), following each other
through the polling fallback (the test server has no stream): each change makes the other
refetch several parts at once (the clock bar, the log, the fight section), and every one of
them must arrive. The fight's start used to be lost: htmx kept the first and the last of the
refetches sent from the page's body at once (static/live.js refetchPart). Several actions in a
row, no reload, no console or htmx error, 1440x900, DEBUG on and off."""

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import GM_VIEWPORT, NO_RELOAD, open_context

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _dashboard(browser, live_server, console_errors, campaign):
    context, page = open_context(browser, live_server, console_errors, GM_VIEWPORT, "gaelle_mj")
    page.goto(f"{live_server.url}/c/{campaign.pk}/")
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    return context, page


def test_r33_a_second_dashboard_follows_the_fight_the_clock_and_the_log(
    browser, live_server, console_errors, campaign, pc, npc, artifacts, debug
):
    mode = "debug" if debug else "production"
    table_context, table = _dashboard(browser, live_server, console_errors, campaign)
    own_context, own = _dashboard(browser, live_server, console_errors, campaign)

    # The fight starts on one: the other's section shows it, with the log and the clock bar.
    section = table.locator("#fight")
    section.locator("summary").click()
    for character in (npc, pc):
        section.locator(f"input[name=fighters][value='{character.pk}']").check()
    section.get_by_role("button", name="Commencer le combat").click()
    expect(section.get_by_test_id("fighter")).to_have_count(2)
    other = own.locator("#fight")
    expect(other.get_by_test_id("fight-round")).to_contain_text("Manche 1", timeout=15_000)
    expect(other.get_by_test_id("fighter")).to_have_count(2)
    expect(own.locator("#roll-log")).to_contain_text("combat", timeout=15_000)

    # Then turns and a blow, each followed by the other tab.
    for turn in (pc, npc):
        table.locator('[data-action="fight-next"]').click()
        expect(other.get_by_test_id("fight-turn")).to_contain_text(turn.name, timeout=15_000)
    card = table.locator(f"#character-{npc.pk}")
    card.get_by_role("button", name="Dégâts", exact=True).click()
    expect(own.locator(f"#character-{npc.pk}").get_by_test_id("pv")).to_have_text(
        "11 / 12", timeout=15_000
    )
    own.screenshot(path=artifacts / f"two-dashboards-{mode}.png")
    for page in (table, own):
        assert page.evaluate("window.__htmx_errors") == []
        assert page.evaluate(NO_RELOAD) == "still here"
    assert console_errors.errors == []
    table_context.close()
    own_context.close()
