"""The sheet's live feed and offline use on a player's phone (390 x 844) while the GM plays (1440
x 900, another browser context): the live roll feed under the sheet and its toasts follow the GM's
actions in a row, never showing a GM-only roll; the player rolls; offline, the sheet stays with its
stale mark, a roll is refused with a message and nothing is sent; back online it catches up without
a reload; reloaded offline, the service worker's copy shows, marked with its age. Under DEBUG on and
off; no console error anywhere (the offline page asks for nothing it cannot get).

Live updates: under the test server (WSGI) pages poll. Its one SQLite connection is shared by
its threads, and a read while an action writes fails ("database table is locked"), which no
real server does; so the phone's polls reach the server only while the GM waits
(tests/e2e/test_fight.py's Gate), and the GM's own are answered empty. What the phone then
does with the changes (the feed refetched, the toast, the card) is the app's own code.
"""

import re

import pytest
from playwright.sync_api import expect

from characters.models import Character
from journal.models import AuditEntry
from tests.e2e.pages import NO_RELOAD, PHONE, Table, minus, open_gated_sheet, open_quiet_dashboard

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LIVE_WAIT = 15_000  # ms: the polling fallback looks every 4 s
NB = "\u00a0"
STALE = re.compile(r"^Hors ligne — données d’il y a (moins d’une minute|\d+\u00a0min)$")
# The sheets the service worker keeps, read from its caches.
KEPT_SHEETS = """(async () => {
  const kept = [];
  for (const name of await caches.keys()) {
    for (const request of await (await caches.open(name)).keys()) {
      const path = new URL(request.url).pathname;
      if (/\\/characters\\/\\d+\\/$/.test(path)) kept.push(path);
    }
  }
  return kept;
})()"""
REFUSED = (
    f"Hors ligne{NB}: rien n’a été envoyé. Rien n’est gardé pour plus tard{NB}; "
    "réessayez une fois la connexion revenue."
)


@pytest.fixture
def gm_page(browser, live_server, console_errors, campaign, pc, other_pc, debug):
    context, page = open_quiet_dashboard(browser, live_server, console_errors, campaign)
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    yield page
    context.close()


@pytest.fixture
def phone(browser, live_server, console_errors, campaign, pc):
    context, page, gate = open_gated_sheet(browser, live_server, console_errors, campaign, pc)
    # The service worker runs and keeps this sheet (its first visit) before anything else.
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=LIVE_WAIT)
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    yield context, page, gate
    context.close()


class Phone:
    """The player's sheet, and what it must show after each of the GM's steps."""

    def __init__(self, context, page, gate, pc, artifacts, mode):
        self.context, self.page, self.gate, self.pc = context, page, gate, pc
        self.artifacts, self.mode = artifacts, mode
        self.feed = page.locator("#feed")
        self.toast = page.locator("#toast")
        self.card = page.locator(f"#character-{pc.pk}")

    def entries(self):
        return self.feed.locator("[data-testid=feed-entry]")

    def follows(self, *, toast: str | None, newest: str, shot: str | None = None):
        """Let the phone poll until its feed shows `newest` first and, when `toast`, the toast
        says it; then its numbers are the database's."""
        self.gate.open.set()
        try:
            expect(self.entries().first).to_contain_text(newest, timeout=LIVE_WAIT)
            row = Character.objects.get(pk=self.pc.pk)
            expect(self.card.locator("[data-testid=pv]")).to_have_text(
                f"{minus(row.pv)} / {row.pv_max}", timeout=LIVE_WAIT
            )
            expect(self.card.locator("[data-testid=flux]")).to_have_text(
                f"{row.flux} / {row.flux_max}"
            )
            if toast is not None:
                expect(self.toast).to_have_class(re.compile(r"\bshown\b"))
                expect(self.toast.locator("[data-toast-text]")).to_contain_text(toast)
                self.toast_is_clear()
                if shot:
                    self.page.screenshot(path=self.artifacts / f"{shot}-{self.mode}.png")
            self.page.wait_for_function("() => !document.querySelector('.htmx-request')")
        finally:
            self.gate.open.clear()
        assert self.page.evaluate(NO_RELOAD) == "still here"
        assert self.page.evaluate("window.__htmx_errors") == []

    def toast_is_clear(self):
        """The toast covers neither the field in use, nor the sheet's numbers, nor the offline
        mark, and fits."""
        box = self.toast.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]
        avoid = [self.card.locator("[data-testid=pv]"), self.page.locator(":focus")]
        avoid.append(self.page.locator("#stale-mark:not(:has([data-stale-text]:empty))"))
        for locator in avoid:
            if locator.count() == 0 or not locator.first.is_visible():
                continue
            other = locator.first.bounding_box()
            apart = (
                box["x"] + box["width"] <= other["x"]
                or other["x"] + other["width"] <= box["x"]
                or box["y"] + box["height"] <= other["y"]
                or other["y"] + other["height"] <= box["y"]
            )
            assert apart, (box, other)

    def no_news_for(self, seconds: float):
        """The gate open as long as a few polls take: nothing new comes (a GM-only roll)."""
        count = self.entries().count()
        first = self.entries().first.inner_text()
        self.gate.open.set()
        try:
            self.page.wait_for_timeout(seconds * 1000)
            self.page.wait_for_function("() => !document.querySelector('.htmx-request')")
        finally:
            self.gate.open.clear()
        assert self.entries().count() == count
        assert self.entries().first.inner_text() == first


def test_the_phone_follows_the_gm_in_its_feed_and_keeps_the_sheet_offline(
    gm_page, phone, live_server, console_errors, campaign, gm, pc, other_pc, artifacts, debug
):
    context, sheet, gate = phone
    mode = "debug" if debug else "production"
    table = Table(gm_page, console_errors, campaign, [pc, other_pc], live_server)
    you = Phone(context, sheet, gate, pc, artifacts, mode)
    feed_title = sheet.get_by_role("heading", name="Derniers jets et modifications")
    expect(feed_title).to_be_visible()
    expect(you.feed).to_contain_text("Rien ne s’est encore passé")
    # The toast's live region is there from the start, empty and polite.
    region = sheet.locator("#toast [role=status]")
    expect(region).to_have_attribute("aria-live", "polite")
    expect(region).to_be_empty()

    # The GM acts several times in a row; after each, the phone's feed and toast follow.
    table.quick(pc, "Dégâts", 5)  # Isaure: 2 PA, so 3 PV (R3)
    expect(table.result(pc)).to_contain_text("PV 11 → 8")
    table.check("damage")
    # A player's feed and toasts read without the rules' ids (« R3 · »: the GM's).
    you.follows(toast="dégâts : PV 11 → 8", newest="PV : 11 → 8", shot="feed-toast")
    expect(you.feed).not_to_contain_text("R3 · ")

    table.quick(pc, "−Flux", 2)
    expect(table.result(pc)).to_contain_text("Flux 7 → 5")
    table.check("spend Flux")
    you.follows(toast="Flux dépensé : Flux 7 → 5", newest="Flux : 7 → 5")
    expect(you.entries().nth(1)).to_contain_text("PV : 11 → 8")  # newest first

    # A roll the GM keeps to themselves: the phone hears that it was made, sealed, and for
    # what (journal/sealing.py, through journal.visibility), never its result.
    panel = table.open_panel(pc, "Test")
    panel.locator("select[name=stat]").select_option("VAI")
    panel.locator("input[name=skill]").fill("Discrétion")
    panel.locator("input[name=difficulty]").fill("12")
    panel.locator("select[name=visibility]").select_option("gm")
    panel.locator("input[name=dice]").fill("17")
    panel.get_by_role("button", name="Appliquer").click()
    expect(table.result(pc)).to_contain_text("Discrétion")
    table.check("a GM-only test")
    sealed = "jet scellé du MJ (test) : résultat caché jusqu’à sa révélation"
    you.follows(toast=sealed, newest=sealed)
    expect(you.feed).not_to_contain_text("Discrétion")
    expect(you.feed).not_to_contain_text("réussite")

    # Another character’s damage: the party visibility (names and vital state) hides PV.
    table.quick(other_pc, "Dégâts", 6)
    expect(table.result(other_pc)).to_contain_text("PV 18 → 16")
    table.check("damage on Gaspard")
    you.no_news_for(5)
    expect(you.feed).not_to_contain_text("Gaspard")

    panel = table.open_panel(pc, "Ajouter un état")
    panel.locator("select[name=kind]").select_option("gene")
    panel.get_by_role("button", name="Appliquer").click()
    expect(table.card(pc).locator(".conditions")).to_contain_text("Gêné")
    table.check("condition added")
    you.follows(toast="Gêné", newest="états : — → Gêné")
    # The toast goes away by itself.
    expect(you.toast).not_to_have_class(re.compile(r"\bshown\b"), timeout=15_000)
    expect(region).to_be_empty()

    # The player rolls on their phone (R9): the page answers with the roll, its feed first.
    form = sheet.locator("[data-testid=roll-form]")
    form.locator("select[name=stat]").select_option("ADR")
    form.locator("input[name=skill]").fill("Crochetage")
    form.locator("input[name=difficulty]").fill("12")
    form.locator("input[name=dice]").fill("14")
    form.get_by_role("button", name="Lancer les dés").click()
    expect(sheet.locator(".msg.roll")).to_contain_text("Crochetage (ADR)")
    expect(you.entries().first).to_contain_text("Crochetage (ADR)")
    sheet.evaluate(f"{NO_RELOAD} = 'still here'")  # the roll's answer is a new page

    table.quick(pc, "Soigner", 2)
    expect(table.result(pc)).to_contain_text("PV 8 → 10")
    table.check("heal")
    # The player is typing in the roll form when it arrives: the toast keeps off that field.
    form.locator("input[name=skill]").fill("Escal")
    you.follows(toast="soins : PV 8 → 10", newest="PV : 8 → 10", shot="feed-toast-typing")
    expect(form.locator("input[name=skill]")).to_be_focused()
    expect(form.locator("input[name=skill]")).to_have_value("Escal")
    assert sheet.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # Offline: the sheet stays, marked; a roll is refused in words, and nothing is sent.
    mark = sheet.get_by_test_id("stale-mark")
    expect(mark).to_have_text("")
    rolls = AuditEntry.objects.filter(kind="roll").count()
    context.set_offline(True)
    expect(mark).to_have_text(STALE)
    expect(mark).to_be_visible()
    if "shown" in (you.toast.get_attribute("class") or ""):
        you.toast_is_clear()  # the heal's toast, still there: off the mark
    expect(you.card.locator("[data-testid=pv]")).to_have_text("10 / 14")
    form.locator("input[name=skill]").fill("Escalade")
    form.locator("input[name=difficulty]").fill("10")
    form.locator("input[name=dice]").fill("9")
    form.get_by_role("button", name="Lancer les dés").click()
    refusal = form.get_by_test_id("offline-refusal")
    expect(refusal).to_have_text(REFUSED)
    expect(refusal).to_have_attribute("role", "alert")
    expect(form.locator("input[name=skill]")).to_have_value("Escalade")  # nothing lost
    sheet.screenshot(path=artifacts / f"feed-offline-refused-{mode}.png")  # the mark stays in view

    # Meanwhile the GM goes on; back online, the phone catches up without a reload.
    table.quick(pc, "Dégâts", 5)
    expect(table.result(pc)).to_contain_text("PV 10 → 7")
    table.check("damage while the phone is offline")
    sheet.wait_for_timeout(1000)
    assert AuditEntry.objects.filter(kind="roll").count() == rolls
    context.set_offline(False)
    you.follows(toast="dégâts : PV 10 → 7", newest="PV : 10 → 7")
    expect(mark).to_have_text("")
    expect(refusal).to_have_count(0)
    assert AuditEntry.objects.filter(kind="roll").count() == rolls  # nothing was queued

    # Reloaded offline: the service worker's copy of the sheet (as the roll left it), marked.
    context.set_offline(True)
    sheet.reload()
    expect(mark).to_have_text(STALE)
    expect(you.card.locator("[data-testid=pv]")).to_have_text("8 / 14")  # the roll's page
    expect(you.card.locator("[data-testid=flux]")).to_have_text("5 / 10")
    expect(you.entries().first).to_contain_text("Crochetage (ADR)")
    expect(sheet.locator(".msg.roll")).to_be_hidden()  # the roll's result was news then
    sheet.screenshot(path=artifacts / f"feed-offline-copy-{mode}.png")
    sheet.evaluate(f"{NO_RELOAD} = 'still here'")
    context.set_offline(False)
    you.follows(toast=None, newest="PV : 10 → 7")
    expect(you.card.locator("[data-testid=pv]")).to_have_text("7 / 14")
    expect(mark).to_have_text("")

    # Logged out, the phone forgets the sheets it kept (a shared phone shows nothing offline).
    assert sheet.evaluate(KEPT_SHEETS) == [f"/c/{campaign.pk}/characters/{pc.pk}/"]
    sheet.get_by_role("button", name="Se déconnecter").click()
    expect(sheet.get_by_role("link", name="S’inscrire").first).to_be_visible()
    sheet.wait_for_function(f"() => ({KEPT_SHEETS}).then(kept => kept.length === 0)")

    assert console_errors.errors == []
    assert table.unexpected_errors() == []
