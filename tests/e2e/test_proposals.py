"""Players propose, the GM approves (play/proposals.py), in two browsers: the player's phone
(390 x 844) proposes damage, Flux spent and a condition from the sheet, with a half-typed
form and a refusal of the rules among them; the GM (1440 x 900) sees the count arrive on the
card and the list, approves one, edits then approves another, refuses the third with a word,
and is refused by the rules when the character changed since; the phone shows each outcome.
Neither page reloads; under DEBUG on and off.

Live updates: under the test server pages poll, through a gate each, as tests/e2e/
test_fight.py explains (its one SQLite connection is shared by its threads). The real stream
between two processes is the last test's (PostgreSQL only).
"""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from characters.models import Character
from play.models import Proposal
from tests.e2e.pages import (
    GM_VIEWPORT,
    HTMX_ERRORS,
    NO_RELOAD,
    PHONE,
    Gate,
    log_in,
    minus,
    open_context,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NO_HORIZONTAL_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"


@pytest.fixture
def two_pages(browser, live_server, console_errors, campaign, pc, other_pc, debug):
    gm_context, gm = open_context(browser, live_server, console_errors, GM_VIEWPORT, "gaelle_mj")
    phone_context, phone = open_context(
        browser,
        live_server,
        console_errors,
        PHONE,
        "paul_joueur",
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    gates = Gate(), Gate()
    poll = f"{live_server.url}{reverse('campaign_events_poll', args=[campaign.pk])}**"
    gm_context.route(poll, gates[0].route)
    phone_context.route(poll, gates[1].route)
    gm.goto(f"{live_server.url}/c/{campaign.pk}/")
    phone.goto(f"{live_server.url}/c/{campaign.pk}/characters/{pc.pk}/")
    for page in (gm, phone):
        page.evaluate(f"{NO_RELOAD} = 'still here'")
    yield gm, phone, gates
    gm_context.close()
    phone_context.close()


class Table:
    def __init__(self, gm, phone, gates, console_errors, campaign, pc, live_server):
        self.gm, self.phone, self.gates = gm, phone, gates
        self.console, self.campaign, self.pc = console_errors, campaign, pc
        self.base = live_server.url
        self.allowed: list[str] = []
        self.step = 0

    @property
    def card(self):
        return self.gm.locator(f"#character-{self.pc.pk}")

    @property
    def listing(self):
        return self.gm.locator("#proposals")

    @property
    def form(self):
        return self.phone.locator("[data-testid=propose-form]")

    @property
    def mine(self):
        return self.phone.locator(f"#proposals-{self.pc.pk}")

    def refusal(self, path):
        self.allowed.append(self.base + path)

    def follow(self, page):
        """Let the page poll until `expect`s are met: `settled` closes the gate again."""
        self.gates[page is self.phone].open.set()

    def settled(self, page):
        page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-settling')")
        self.gates[page is self.phone].open.clear()

    def propose(self, what: str, **fields):
        form = self.form
        form.get_by_label(what, exact=True).check()
        for name, value in fields.items():
            field = form.locator(f"[name={name}]")
            if name == "kind":
                field.select_option(value)
            elif name == "ignores_pa":
                field.check()
            else:
                field.fill(value)
        form.get_by_role("button", name="Envoyer au MJ").click()

    def check(self, name: str):
        self.step += 1
        where = f"step {self.step} ({name})"
        for page in (self.gm, self.phone):
            assert page.evaluate(NO_RELOAD) == "still here", where
            assert page.evaluate("window.__htmx_errors") == [], where
            expect(page.locator("header.topbar")).to_be_visible()
        unexpected = [
            line
            for line in self.console.errors
            if not any(
                url in line and ("status of 4" in line or line[:1] == "4") for url in self.allowed
            )
        ]
        assert unexpected == [], where
        assert self.phone.evaluate(NO_HORIZONTAL_SCROLL), where
        row = Character.objects.get(pk=self.pc.pk)
        expect(self.card.get_by_test_id("pv")).to_have_text(f"{minus(row.pv)} / {row.pv_max}")
        expect(self.card.get_by_test_id("flux")).to_have_text(f"{row.flux} / {row.flux_max}")
        if self.listing.is_visible():
            # Close to the top of the dashboard, under the clock: no long scroll to reach it.
            box = self.listing.bounding_box()
            assert box is not None and box["y"] < GM_VIEWPORT["height"] / 2, (where, box)


def test_a_player_proposes_and_the_gm_approves_edits_and_refuses(
    two_pages, live_server, console_errors, campaign, pc, artifacts, debug
):
    gm, phone, gates = two_pages
    mode = "debug" if debug else "production"
    table = Table(gm, phone, gates, console_errors, campaign, pc, live_server)
    propose_path = f"/c/{campaign.pk}/characters/{pc.pk}/propose/"
    table.check("the dashboard and the sheet")
    expect(table.card.get_by_test_id("proposals-count")).to_have_count(0)

    # Half-typed: damage with a cause but no amount. The message in the form, what was typed
    # kept; nothing sent.
    table.refusal(propose_path)
    table.propose("Dégâts subis", cause="piège à flèches")
    expect(table.form).to_contain_text("Dites combien (un nombre entier de 1 à 999).")
    expect(table.form.locator("[name=cause]")).to_have_value("piège à flèches")
    expect(table.form.locator("[name=amount]")).to_be_focused()
    assert Proposal.objects.count() == 0
    table.check("a half-typed proposal")
    phone.screenshot(path=artifacts / f"proposals-{mode}-phone-half-typed.png", full_page=True)

    # Refused by the rules (R1): more Flux than Isaure has.
    table.propose("Flux dépensé", amount="50")
    expect(table.form).to_contain_text(re.compile(r"Isaure n[’']a que 7 Flux \(il en faut 50\)\."))
    table.check("more Flux than there is")

    # Three proposals in a row: damage (amount, cause, note), Flux, a condition.
    table.propose("Dégâts subis", amount="5", cause="piège à flèches", note="J’ai lu la rune.")
    expect(phone.get_by_test_id("proposal-sent")).to_have_text("Proposition envoyée au MJ.")
    expect(table.mine.get_by_test_id("my-proposal")).to_have_count(1)
    expect(table.mine).to_contain_text("En attente du MJ")
    # Nothing changed before approval: the card as it was (the check reads the database).
    table.check("damage proposed")

    # The GM's card counts it, live; the list shows it near the top.
    table.follow(gm)
    expect(table.card.get_by_test_id("proposals-count")).to_have_text("1 proposition")
    expect(table.listing.get_by_test_id("proposal")).to_have_count(1)
    expect(table.listing).to_contain_text("Dégâts : 5 (piège à flèches)")
    expect(table.listing).to_contain_text("J’ai lu la rune.")
    table.settled(gm)
    table.check("the GM sees the count arrive")

    # The GM starts typing a word to refuse the first one, and does not send it yet.
    word = table.listing.locator("input[name=reply]").first
    word.fill("Peut-être…")
    table.propose("Flux dépensé", amount="3", note="Un sort de lumière.")
    expect(table.mine.get_by_test_id("my-proposal")).to_have_count(2)
    table.propose("Un état", kind="gene", note="Mon bras est pris.")
    expect(table.mine.get_by_test_id("my-proposal")).to_have_count(3)
    table.check("two more proposed")
    phone.screenshot(path=artifacts / f"proposals-{mode}-phone-sent.png", full_page=True)
    table.follow(gm)
    expect(table.card.get_by_test_id("proposals-count")).to_have_text("3 propositions")
    expect(table.listing.get_by_test_id("proposal")).to_have_count(3)
    table.settled(gm)
    # The list came again, live; the half-typed word is still there, and still unsent.
    expect(table.listing.locator("input[name=reply]").first).to_have_value("Peut-être…")
    table.listing.locator("input[name=reply]").first.fill("")
    table.check("three waiting")
    gm.screenshot(path=artifacts / f"proposals-{mode}-gm-waiting.png")
    gm.emulate_media(color_scheme="dark")
    gm.screenshot(path=artifacts / f"proposals-{mode}-gm-waiting-dark.png")
    gm.emulate_media(color_scheme="light")

    items = table.listing.get_by_test_id("proposal")
    result = gm.locator(f"#result-{pc.pk}")

    # Approved as proposed: the GM's damage, 5 minus 2 PA (R3).
    items.nth(0).get_by_role("button", name="Approuver").click()
    expect(result).to_contain_text("PV 11 → 8")
    expect(items).to_have_count(2)
    expect(table.card.get_by_test_id("proposals-count")).to_have_text("2 propositions")
    table.check("damage approved")

    # Edited then approved: the GM's own Flux form, filled in with the proposal.
    items.nth(0).get_by_role("link", name="Modifier, puis approuver").click()
    panel = gm.locator(f"#panel-{pc.pk}")
    expect(panel).to_contain_text("Proposition de paul_joueur")
    amount = panel.locator("input[name=amount]")
    expect(amount).to_have_value("3")
    # Emptied by mistake: refused in the panel, which stays open.
    table.refusal(f"/c/{campaign.pk}/proposals/{Proposal.objects.get(action='spend_flux').pk}/")
    amount.fill("")
    panel.get_by_role("button", name="Appliquer").click()
    expect(panel.locator(".errors")).to_be_visible()
    table.check("an edit refused")
    panel.locator("input[name=amount]").fill("2")
    panel.get_by_role("button", name="Appliquer").click()
    expect(result).to_contain_text("Flux 7 → 5")
    expect(panel.locator("form")).to_have_count(0)
    expect(items).to_have_count(1)
    table.check("Flux edited, then approved")

    # Refused, with a word.
    items.nth(0).locator("input[name=reply]").fill("Tu as esquivé de justesse.")
    items.nth(0).get_by_role("button", name="Refuser").click()
    expect(table.listing).to_be_hidden()
    expect(table.card.get_by_test_id("proposals-count")).to_have_count(0)
    table.check("condition refused")
    gm.screenshot(path=artifacts / f"proposals-{mode}-gm-decided.png")

    # The phone learns each outcome live: the numbers, the statuses, the GM's word.
    table.follow(phone)
    my_card = phone.locator(f"#character-{pc.pk}")
    expect(my_card.get_by_test_id("pv")).to_have_text("8 / 14")
    expect(my_card.get_by_test_id("flux")).to_have_text("5 / 10")
    statuses = table.mine.get_by_test_id("my-proposal")
    expect(statuses.nth(0)).to_contain_text("Refusée")
    expect(statuses.nth(0).get_by_test_id("reply")).to_have_text(
        "Le MJ\u00a0: «\u00a0Tu as esquivé de justesse.\u00a0»"
    )
    expect(statuses.nth(1)).to_contain_text("Approuvée")
    expect(statuses.nth(1)).to_contain_text("Appliquée ainsi\u00a0: Flux dépensé : 2")
    expect(statuses.nth(2)).to_contain_text("Approuvée")
    table.settled(phone)
    table.check("the phone shows the outcomes")
    phone.screenshot(path=artifacts / f"proposals-{mode}-phone-outcomes.png", full_page=True)

    # The character changed since the proposal: the rules refuse it at approval, in place.
    table.propose("Flux dépensé", amount="5")
    expect(table.mine.get_by_test_id("my-proposal")).to_have_count(4)
    table.follow(gm)
    expect(items).to_have_count(1)
    table.settled(gm)
    table.card.locator("input[name=amount]").fill("4")
    table.card.get_by_role("button", name="−Flux", exact=True).click()
    expect(result).to_contain_text("Flux 5 → 1")
    late = Proposal.objects.get(status="pending")
    table.refusal(f"/c/{campaign.pk}/proposals/{late.pk}/approve/")
    items.nth(0).get_by_role("button", name="Approuver").click()
    expect(table.listing.get_by_test_id("proposal-error")).to_have_text(
        re.compile(r"Isaure n[’']a que 1 Flux \(il en faut 5\)\.")
    )
    assert Proposal.objects.get(pk=late.pk).status == "pending"
    table.check("approval refused by the rules")
    gm.screenshot(path=artifacts / f"proposals-{mode}-gm-refused-by-rules.png")
    items.nth(0).get_by_role("button", name="Refuser").click()
    expect(table.listing).to_be_hidden()
    table.check("refused without a word")

    # Sent by mistake: the player withdraws it before the GM decides; the GM's list drops it.
    table.propose("Flux dépensé", amount="1")
    table.follow(gm)
    expect(items).to_have_count(1)
    table.settled(gm)
    withdraw = table.mine.get_by_test_id("proposal-withdraw")
    expect(withdraw).to_have_count(1)
    withdraw.click()
    expect(table.mine.get_by_test_id("my-proposal").nth(0)).to_contain_text("Retirée")
    expect(table.mine.get_by_test_id("proposal-withdraw")).to_have_count(0)
    table.follow(gm)
    expect(table.listing).to_be_hidden()
    expect(table.card.get_by_test_id("proposals-count")).to_have_count(0)
    table.settled(gm)
    assert Proposal.objects.filter(status="pending").count() == 0
    table.check("withdrawn by the player")
    phone.screenshot(path=artifacts / f"proposals-{mode}-phone-withdrawn.png", full_page=True)
    assert table.step >= 13


def test_the_count_reaches_the_gm_and_the_outcome_the_phone_through_the_stream(
    browser, two_processes, console_errors, artifacts
):
    """The real stream (uvicorn, PostgreSQL's NOTIFY): the player proposes on one process; the
    GM's dashboard on the other gets the card with its count (pushed though the character's
    version did not move) and the list; the GM refuses, and the phone reads the word."""
    world = two_processes
    gm_url, player_url = world.urls
    cid, mine = world.campaign_id, world.character_id
    phone_context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, locale="fr-FR"
    )
    phone_context.add_init_script(HTMX_ERRORS)
    phone = console_errors(phone_context.new_page())
    log_in(phone, player_url, "alice", "demo")
    phone.goto(f"{player_url}/c/{cid}/characters/{mine}/")
    gm_context = browser.new_context(viewport=GM_VIEWPORT, locale="fr-FR")
    gm_context.add_init_script(HTMX_ERRORS)
    gm = console_errors(gm_context.new_page())
    log_in(gm, gm_url, "mj", "demo")
    gm.goto(f"{gm_url}/c/{cid}/")
    for page in (gm, phone):
        expect(page.locator("#live")).to_have_attribute("data-connected", "stream")
        page.evaluate(f"{NO_RELOAD} = 'still here'")
    card = gm.locator(f"#character-{mine}")
    version = card.get_attribute("data-version")

    form = phone.get_by_test_id("propose-form")
    form.get_by_label("Dégâts subis", exact=True).check()
    form.locator("[name=amount]").fill("2")
    form.locator("[name=cause]").fill("une ronce")
    form.get_by_role("button", name="Envoyer au MJ").click()
    expect(card.get_by_test_id("proposals-count")).to_have_text("1 proposition")
    assert card.get_attribute("data-version") == version
    listing = gm.locator("#proposals")
    expect(listing.get_by_test_id("proposal")).to_have_count(1)
    listing.locator("input[name=reply]").fill("La ronce ne pique pas.")
    listing.get_by_role("button", name="Refuser").click()
    expect(listing).to_be_hidden()
    expect(card.get_by_test_id("proposals-count")).to_have_count(0)
    expect(phone.get_by_test_id("reply")).to_contain_text("La ronce ne pique pas.")
    phone.screenshot(path=artifacts / "proposals-live-phone.png", full_page=True)
    for page in (gm, phone):
        assert page.evaluate(NO_RELOAD) == "still here"
        assert page.evaluate("window.__htmx_errors") == []
    assert console_errors.errors == []
    gm_context.close()
    phone_context.close()
