"""A GM who cancels a panel and at once opens another on the same card keeps the new one: the
late answer of « Annuler » never empties the panel opened after it (hx-sync on the panel:
the newer request replaces the one on its way). At 1440x900, DEBUG on and off."""

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import NO_RELOAD, Table

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# The « Annuler » links' requests leave 1.5 s late, as on a slow phone line or a busy server.
SLOW_CANCEL = """
(() => {
  const send = XMLHttpRequest.prototype.send;
  const open = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, url) {
    this.__slow = /\\/c\\/\\d+\\/?(\\?|$)/.test(String(url).replace(/^https?:\\/\\/[^/]+/, ""));
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    if (!this.__slow) return send.apply(this, arguments);
    const xhr = this, args = arguments;
    window.setTimeout(() => {
      try { send.apply(xhr, args); } catch (e) { /* aborted meanwhile */ }
    }, 1500);
  };
})();
"""


def test_a_cancel_answered_late_does_not_close_the_panel_opened_after_it(
    session_page, live_server, console_errors, campaign, pc, other_pc, debug
):
    page = session_page
    page.context.add_init_script(SLOW_CANCEL)
    page.reload()
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    table = Table(page, console_errors, campaign, [pc, other_pc], live_server)
    for first, then in [("Test", "Chute"), ("Chute", "Tomber malade"), ("Tomber malade", "Test")]:
        panel = table.open_panel(pc, first)
        cancel = panel.get_by_role("link", name="Annuler")
        cancel_url = cancel.get_attribute("hx-get")
        cancel.click()
        # At once, before the cancel's answer: the next panel of the same card.
        table.card(pc).get_by_role("link", name=then, exact=True).click()
        expect(panel.locator("form")).to_be_visible()
        page.wait_for_timeout(2000)  # the late cancel would have landed by now
        expect(panel.locator("form")).to_be_visible()
        expect(panel.locator("form")).to_contain_text(
            {"Chute": "Chute", "Tomber malade": "malade", "Test": "Difficulté"}[then]
        )
        assert cancel_url
    assert page.evaluate(f"{NO_RELOAD}") == "still here"
    table.check("after three panels opened over a late cancel")
