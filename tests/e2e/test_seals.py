"""A phone that saw the log's seal warns when the log is rewound.

The player's phone (390 x 844) follows the party while the GM plays several actions: after
each, static/live.js asks whether the log still extends the seal it remembers and remembers
the new one. Then the end of the log is deleted behind the app's back and the GM plays on:
the phone, without reloading, shows a warning naming the seal it saw; accepting it follows the
log as it is now. DEBUG on and off; no console or htmx error.
"""

import pytest
from playwright.sync_api import expect

from journal import audit
from tests.e2e.pages import HTMX_ERRORS, NO_RELOAD, PHONE, log_in
from tests.helpers import delete_tail
from tests.play.steps import run

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


class Polls:
    """The page's live-update polls, held while the test itself writes: the test server shares
    one SQLite connection between its threads, and a read open during a write makes the write
    fail, which no real server does (tests/e2e/test_gm_session.py)."""

    def __init__(self):
        self.quiet = False

    def __call__(self, route):
        if self.quiet:
            route.fulfill(json={"changes": [], "last_id": None})
        else:
            route.continue_()


@pytest.fixture
def phone(browser, live_server, console_errors, campaign, gm, pc, other_pc, debug):
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, locale="fr-FR"
    )
    context.add_init_script(HTMX_ERRORS)
    polls = Polls()
    context.route(f"{live_server.url}/c/{campaign.pk}/events/**", polls)
    page = console_errors(context.new_page())
    page.polls = polls
    log_in(page, live_server.url, "paul_joueur")
    yield page
    context.close()


def remembered(page, campaign) -> str:
    return page.evaluate(f"localStorage.getItem('chroniqueur.seal.{campaign.pk}') || ''")


def play(page, campaign, gm, character, amount):
    """The GM acts (elsewhere); the phone hears of it by polling."""
    page.polls.quiet = True
    run(campaign, gm, "damage", {"amount": str(amount)}, character=character)
    page.polls.quiet = False
    return str(audit.seal_for(campaign.pk))


def test_a_phone_that_saw_a_seal_warns_after_the_log_is_rewound(
    phone,
    live_server,
    campaign,
    gm,
    pc,
    other_pc,
    artifacts,
    console_errors,
    debug,
):
    page = phone
    banner = page.locator("[data-testid=seal-warning]")
    play(page, campaign, gm, pc, 4)
    page.goto(f"{live_server.url}/c/{campaign.pk}/")
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    first = str(audit.seal_for(campaign.pk))
    page.wait_for_function(f"() => localStorage.getItem('chroniqueur.seal.{campaign.pk}')")
    assert remembered(page, campaign) == first

    # Several actions in a row: the phone follows each and remembers the newest seal.
    # (The player hears of the changes they may see: their own character's.)
    for character, amount in ((pc, 3), (pc, 4), (pc, 3)):
        seal = play(page, campaign, gm, character, amount)
        page.wait_for_function(
            f"s => localStorage.getItem('chroniqueur.seal.{campaign.pk}') === s", arg=seal
        )
        expect(banner).to_be_hidden()
    seen = remembered(page, campaign)

    # The end of the log is deleted behind the app's back, then the GM plays on.
    page.polls.quiet = True
    delete_tail(2, campaign)
    page.polls.quiet = False
    play(page, campaign, gm, pc, 3)

    expect(banner).to_be_visible(timeout=15_000)
    expect(banner).to_contain_text("Attention\u00a0: le journal de la campagne ne prolonge plus")
    expect(banner).to_contain_text("La fin du journal a été effacée.")
    expect(banner.locator("code")).to_have_text(seen)
    assert page.evaluate(NO_RELOAD) == "still here"
    box = banner.bounding_box()
    assert box["y"] < PHONE["height"] and box["x"] >= 0 and box["width"] <= PHONE["width"]
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=artifacts / f"seal-warning-390-{'debug' if debug else 'prod'}.png")
    # What it saw is kept until the person accepts the log as it is now.
    assert remembered(page, campaign) == seen

    accept = banner.get_by_role("button", name="Compris\u00a0: suivre le journal tel qu’il est")
    accept.click()
    expect(banner).to_be_hidden()
    assert remembered(page, campaign) == str(audit.seal_for(campaign.pk))
    page.reload()
    page.wait_for_function(
        f"s => localStorage.getItem('chroniqueur.seal.{campaign.pk}') === s",
        arg=str(audit.seal_for(campaign.pk)),
    )
    expect(banner).to_be_hidden()

    assert page.evaluate("window.__htmx_errors") == []
    assert console_errors.errors == []


def test_the_history_page_checks_a_pasted_seal_on_a_phone(
    phone, live_server, campaign, gm, pc, artifacts, console_errors
):
    page = phone
    play(page, campaign, gm, pc, 4)
    kept = play(page, campaign, gm, pc, 3)
    play(page, campaign, gm, pc, 5)
    page.goto(f"{live_server.url}/c/{campaign.pk}/history/")
    expect(page.locator("[data-testid=current-seal]")).to_have_text(
        str(audit.seal_for(campaign.pk))
    )
    page.get_by_label("Vérifier un ancien sceau").fill(kept)
    page.get_by_role("button", name="Vérifier", exact=True).click()
    expect(page.locator("[data-testid=seal-result]")).to_have_text(
        "Ce journal prolonge bien ce sceau."
    )
    expect(page.locator("[data-testid=seal-result]")).to_be_in_viewport()  # no scrolling
    page.screenshot(path=artifacts / "seal-history-390.png", full_page=False)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.evaluate("window.__htmx_errors") == []
    assert console_errors.errors == []
