"""A refused form's message is on screen, never under the form's sticky foot (the odds and
« Appliquer »): the GM at 1440x900 and on a 390x844 phone, several refusals in a row
without a reload, with no console or htmx error beyond the refusals' own 400s."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.e2e.pages import HTMX_ERRORS, NO_RELOAD, log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NOT_UNDER_THE_FOOT = """([message, foot]) => {
  const m = message.getBoundingClientRect(), f = foot.getBoundingClientRect();
  return {top: Math.round(m.top), bottom: Math.round(m.bottom), foot: Math.round(f.top),
          height: window.innerHeight};
}"""


@pytest.mark.parametrize(
    "viewport",
    [{"width": 1440, "height": 900}, {"width": 390, "height": 844}],
    ids=["gm", "phone"],
)
def test_a_refused_forms_message_is_not_under_its_sticky_foot(
    browser, live_server, console_errors, campaign, pc, other_pc, npc, viewport
):
    context = browser.new_context(viewport=viewport, locale="fr-FR")
    context.add_init_script(HTMX_ERRORS)
    page = console_errors(context.new_page())
    poll = reverse("campaign_events_poll", args=[campaign.pk])
    context.route(
        f"{live_server.url}{poll}**",
        lambda route: route.fulfill(json={"changes": [], "last_id": None}),
    )
    log_in(page, live_server.url, "gaelle_mj")
    page.goto(f"{live_server.url}/c/{campaign.pk}/")
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    card = page.locator(f"#character-{pc.pk}")
    panel = page.locator(f"#panel-{pc.pk}")
    foot = panel.locator(".form-end")
    # A quick action the rules refuse opens its form with the message, wherever the card was.
    # The card's foot (where its form opens) low on the screen, or just above its edge.
    for bottom in (viewport["height"] - 300, viewport["height"] - 90, viewport["height"] - 30):
        page.evaluate(
            "([id, bottom]) => window.scrollTo(0, window.scrollY + document.getElementById("
            "'character-' + id).getBoundingClientRect().bottom - bottom)",
            [pc.pk, bottom],
        )
        card.locator("input[name=amount]").fill("999")
        card.get_by_role("button", name="−Flux", exact=True).click()
        message = panel.locator(".errors").first
        expect(message).to_contain_text("(il en faut 999)")
        page.wait_for_function("() => !document.querySelector('.htmx-added, .htmx-settling')")
        box = page.evaluate(NOT_UNDER_THE_FOOT, [message.element_handle(), foot.element_handle()])
        assert box["top"] >= 0 and box["bottom"] <= box["foot"], (bottom, box)
        panel.get_by_role("link", name="Annuler").click()
        expect(panel.locator("form")).to_have_count(0)
    card.get_by_role("link", name="Test", exact=True).click()
    expect(panel.locator("form")).to_be_visible()
    panel.locator("select[name=stat]").select_option("VAI")
    panel.locator("input[name=difficulty]").fill("10")
    for dice in ("14, 3, 5", "14, 2", "abc"):
        panel.locator("input[name=dice]").fill(dice)
        panel.get_by_role("button", name="Appliquer").click()
        message = panel.locator(".errors").first
        expect(message).to_be_visible()
        page.wait_for_function("() => !document.querySelector('.htmx-added, .htmx-settling')")
        box = page.evaluate(NOT_UNDER_THE_FOOT, [message.element_handle(), foot.element_handle()])
        assert box["top"] >= 0 and box["bottom"] <= box["foot"], (dice, box)
    assert page.evaluate(NO_RELOAD) == "still here"
    assert page.evaluate("window.__htmx_errors") == []
    assert [e for e in console_errors.errors if "/act/" not in e] == []
    context.close()
