"""« À terre en premier » on the GM's dashboard: the characters down come
first, the toggle says it is on, and the address keeps it through a reload. 1440 x 900, DEBUG
on and off, no console or htmx error."""

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import open_quiet_dashboard
from tests.play.steps import put

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_characters_down_come_first_and_stay_first_after_a_reload(
    browser, live_server, console_errors, campaign, pc, other_pc, npc, artifacts, debug
):
    mode = "debug" if debug else "production"
    put(other_pc, pv=-2, vital="coma")
    context, page = open_quiet_dashboard(browser, live_server, console_errors, campaign)
    slots = page.locator("#characters [data-character-id]")
    expect(slots.first).not_to_have_attribute("data-character-id", str(other_pc.pk))
    toggle = page.get_by_test_id("down-first")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(slots.first).to_have_attribute("data-character-id", str(other_pc.pk))
    assert page.url.endswith("?down=first")
    page.screenshot(path=artifacts / f"down-first-{mode}.png")
    # Someone falls mid-fight: the card stays under the GM's cursor, the page says the order
    # is out of date, and the GM puts it right when she chooses, without a reload.
    resort = page.get_by_test_id("down-first-resort")
    expect(resort).to_be_hidden()
    page.evaluate("window.__no_reload = 'still here'")
    before = slots.evaluate_all("els => els.map(e => e.dataset.characterId)")
    assert before[-1] != str(other_pc.pk)
    falling = page.locator(f"#character-{before[-1]}")
    falling.locator("input[name=amount]").fill("99")
    with page.expect_response(lambda r: "/act/damage/" in r.url):
        falling.get_by_role("button", name="Dégâts", exact=True).click()
    expect(falling.get_by_test_id("down")).to_be_visible()
    expect(resort).to_be_visible()
    expect(resort).to_have_text("Remonter ceux à terre")
    assert slots.evaluate_all("els => els.map(e => e.dataset.characterId)") == before
    page.screenshot(path=artifacts / f"down-first-out-of-order-{mode}.png")
    resort.click()
    expect(resort).to_be_hidden()
    after = slots.evaluate_all("els => els.map(e => e.dataset.characterId)")
    assert after == [before[0], before[-1], *before[1:-1]]
    assert page.evaluate("window.__no_reload") == "still here"
    page.reload()
    expect(slots.first).to_have_attribute("data-character-id", str(other_pc.pk))
    assert slots.evaluate_all("els => els.map(e => e.dataset.characterId)") == after
    expect(page.get_by_test_id("down-first")).to_have_attribute("aria-pressed", "true")
    page.get_by_test_id("down-first").click()
    expect(page.get_by_test_id("down-first")).to_have_attribute("aria-pressed", "false")
    expect(slots.first).not_to_have_attribute("data-character-id", str(other_pc.pk))
    assert page.evaluate("window.__htmx_errors") == []
    assert console_errors.errors == []
    context.close()
