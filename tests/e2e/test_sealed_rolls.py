"""Sealed rolls at the table: the GM (1440 x 900) rolls a test only they see; the
player's phone (390 x 844, another browser context, its sheet open) is told it was made, sealed,
with its commitment and never its result; the GM reveals it from the action's result, and the
phone, without reloading, checks the revealed roll against the commitment it kept; a second
sealed roll, revealed from the history while the phone's network hands it a tampered reveal,
fails that check with a visible French message. DEBUG on and off; under DEBUG off the phone
has no crypto.subtle (a phone on the table's network over plain http) and checks with
static/sealed.js's own SHA-256. No console or htmx error; screenshots in test-artifacts/.

Live updates: the test server polls, and its one SQLite connection is shared by its threads,
so the phone's polls go through only while the GM waits (tests/e2e/test_fight.py's Gate).
"""

import hashlib
import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from journal.models import AuditEntry
from tests.e2e.pages import GM_VIEWPORT, NO_RELOAD, PHONE, Gate, open_context

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LIVE_WAIT = 15_000  # ms: a poll every 4 s, then the refetch
NO_SUBTLE = "Object.defineProperty(window, 'isSecureContext', { get: () => false });"

# FIPS 180-4 / NIST examples, and the one-million-"a" message.
VECTORS = {
    "": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "abc": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq": (
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmn"
    "opqrsmnopqrstnopqrstu": "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
}
# Around the padding's edges (55, 56, 64 bytes) and beyond ASCII (UTF-8).
EDGES = ["x" * 55, "x" * 56, "x" * 63, "x" * 64, "x" * 65, "é", "Isaure · Survie (VAI) ≥ 10 ✓ 🎲"]


def test_the_js_sha256_gives_the_known_answers_and_agrees_with_the_browsers(
    browser, live_server, console_errors, campaign, pc
):
    context, page = open_context(browser, live_server, console_errors, PHONE, "paul_joueur")
    page.goto(f"{live_server.url}/c/{campaign.pk}/characters/{pc.pk}/")
    page.wait_for_function("() => window.chroniqueurSeal")
    for text, expected in VECTORS.items():
        assert page.evaluate("t => chroniqueurSeal.sha256(t)", text) == expected, text
    million = page.evaluate("() => chroniqueurSeal.sha256('a'.repeat(1000000))")
    assert million == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    for text in EDGES:
        expected = hashlib.sha256(text.encode()).hexdigest()
        assert page.evaluate("t => chroniqueurSeal.sha256(t)", text) == expected, text
        # localhost is a secure context: the browser's own SHA-256 says the same.
        assert page.evaluate("t => chroniqueurSeal.digest(t)", text) == expected, text
        assert page.evaluate("() => chroniqueurSeal.method") == "subtle"
    assert console_errors.errors == []
    context.close()


@pytest.fixture
def gm_page(browser, live_server, console_errors, campaign, pc, other_pc, debug):
    context, page = open_context(browser, live_server, console_errors, GM_VIEWPORT, "gaelle_mj")
    poll = reverse("campaign_events_poll", args=[campaign.pk])
    gate = Gate()  # closed: the GM's polls bring nothing unless the test opens it
    context.route(f"{live_server.url}{poll}**", gate.route)
    page.goto(f"{live_server.url}/c/{campaign.pk}/")
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    page.gate = gate
    yield page
    context.close()


class Tamper:
    """The phone's network, when the test says so, changes the revealed total of one sealed
    roll in the sheet it is sent (a forged reveal)."""

    def __init__(self):
        self.roll_id = None

    def route(self, route):
        if self.roll_id is None:
            route.continue_()
            return
        response = route.fetch()
        html = response.text()
        # The sheet's other parts, refetched beside it at once (the proposals), pass untouched.
        if f'data-sealed-roll="{self.roll_id}"' not in html:
            route.fulfill(response=response)
            return
        start = html.index(f'data-sealed-roll="{self.roll_id}"')
        head, tail = html[:start], html[start:]
        tail, changed = re.subn(
            r"&quot;total&quot;:(-?\d+)",
            lambda m: f"&quot;total&quot;:{int(m[1]) + 5}",
            tail,
            count=1,
        )
        assert changed == 1
        route.fulfill(response=response, body=head + tail)


@pytest.fixture
def phone(browser, live_server, console_errors, campaign, pc, debug):
    options = {"device_scale_factor": 2, "is_mobile": True, "has_touch": True}
    context, page = open_context(
        browser, live_server, console_errors, PHONE, "paul_joueur", **options
    )
    if not debug:
        context.add_init_script(NO_SUBTLE)  # plain http on the table's network: no crypto.subtle
    gate = Gate()
    poll = reverse("campaign_events_poll", args=[campaign.pk])
    context.route(f"{live_server.url}{poll}**", gate.route)
    tamper = Tamper()
    context.route(f"{live_server.url}/c/{campaign.pk}/characters/{pc.pk}/", tamper.route)
    page.goto(f"{live_server.url}/c/{campaign.pk}/characters/{pc.pk}/")
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    page.gate, page.tamper = gate, tamper
    yield page
    context.close()


def _follow(phone):
    """Let the phone poll until `done` holds, then close the gate once it is quiet."""
    phone.gate.open.set()


def _settle(phone):
    phone.wait_for_function("() => !document.querySelector('.htmx-request')")
    phone.gate.open.clear()
    assert phone.evaluate("window.__htmx_errors") == []


def _sealed_test(page, pc, die: str, skill: str):
    """The GM rolls a test for Isaure that only the GM sees (the panel's visibility)."""
    card = page.locator(f"#character-{pc.pk}")
    card.get_by_role("link", name="Test", exact=True).click()
    panel = page.locator(f"#panel-{pc.pk}")
    expect(panel.locator("form")).to_be_visible()
    panel.locator("select[name=stat]").select_option("INS")
    panel.locator("input[name=skill]").fill(skill)
    panel.locator("input[name=difficulty]").fill("12")
    panel.locator("select[name=visibility]").select_option("gm")
    panel.locator("input[name=dice]").fill(die)
    panel.get_by_role("button", name="Appliquer").click()
    result = page.locator(f"#result-{pc.pk}")
    expect(result).to_contain_text(skill)
    return AuditEntry.objects.filter(kind="roll", character=pc).latest("id")


def _page_is_whole(page, console_errors, allowed=()):
    assert page.evaluate(NO_RELOAD) == "still here"
    expect(page.locator("header.topbar")).to_be_visible()
    assert page.evaluate("window.__htmx_errors") == []
    unexpected = [e for e in console_errors.errors if not any(url in e for url in allowed)]
    assert unexpected == []


def test_r5_a_sealed_roll_reaches_the_phone_sealed_and_its_reveal_is_checked_there(
    gm_page, phone, live_server, console_errors, campaign, pc, artifacts, debug
):
    page, mode = gm_page, ("debug" if debug else "production")
    sealed_rolls = phone.locator(f"#sealed-rolls-{pc.pk}")
    expect(sealed_rolls.get_by_test_id("sealed-entry")).to_have_count(0)

    # 1. A test only the GM sees: the GM's result offers to reveal it.
    entry = _sealed_test(page, pc, "15", "Guet")
    seal = entry.roll["seal"]
    result = page.locator(f"#result-{pc.pk}")
    reveal_button = result.get_by_role(
        "button", name=f"Révéler aux joueurs le jet scellé n° {entry.pk}"
    )
    expect(reveal_button).to_be_visible()
    _page_is_whole(page, console_errors)
    page.screenshot(path=artifacts / f"sealed-{mode}-gm-rolled.png", caret="initial")

    # 2. The phone hears of it: sealed, its commitment kept, nothing of the result.
    _follow(phone)
    box = sealed_rolls.locator(f"[data-sealed-roll='{entry.pk}']")
    expect(box).to_have_attribute("data-seal-state", "sealed", timeout=LIVE_WAIT)
    _settle(phone)
    expect(box.get_by_test_id("commitment")).to_have_text(seal["commitment"][:16] + "…")
    expect(sealed_rolls).to_contain_text("jet scellé du MJ (test)")
    kept = phone.evaluate(f"JSON.parse(localStorage.getItem('chroniqueur.sealed.{campaign.pk}'))")
    assert kept == {str(entry.pk): seal["commitment"]}
    html = phone.content()
    for secret in ("Guet", seal["salt"], "15 (d20)", "data-opening"):
        assert secret not in html, secret
    _page_is_whole(phone, console_errors)
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    phone.screenshot(path=artifacts / f"sealed-{mode}-phone-sealed.png", full_page=True)

    # 3. The GM reveals it from the result; the phone checks it against what it kept.
    log_reveal = page.locator("#roll-log").get_by_test_id("reveal")
    expect(log_reveal).to_have_count(1)  # the dashboard's log offers it too
    reveal_button.click()
    expect(result.get_by_test_id("reveal-answer")).to_contain_text(
        f"Jet n° {entry.pk} révélé aux joueurs"
    )
    # The dashboard's log follows by itself: revealed, nothing left to reveal there.
    _follow(page)
    expect(log_reveal).to_have_count(0, timeout=LIVE_WAIT)
    expect(page.locator("#roll-log")).to_contain_text("Révélé")
    _settle(page)
    _page_is_whole(page, console_errors)
    page.screenshot(path=artifacts / f"sealed-{mode}-gm-revealed.png", caret="initial")
    _follow(phone)
    expect(box).to_have_attribute("data-seal-state", "verified", timeout=LIVE_WAIT)
    _settle(phone)
    total = entry.roll["total"]
    expect(box.get_by_test_id("seal-check")).to_have_text(
        f"Vérifié sur cet appareil : le résultat révélé (total {total}) est bien celui qui "
        "avait été scellé avant la révélation."
    )
    expect(sealed_rolls).to_contain_text("Guet")
    assert phone.evaluate("chroniqueurSeal.method") == ("subtle" if debug else "own")
    _page_is_whole(phone, console_errors)
    phone.screenshot(path=artifacts / f"sealed-{mode}-phone-verified.png", full_page=True)

    # 4. Another sealed roll; the phone keeps its commitment.
    second = _sealed_test(page, pc, "4", "Pister")
    _page_is_whole(page, console_errors)
    _follow(phone)
    second_box = sealed_rolls.locator(f"[data-sealed-roll='{second.pk}']")
    expect(second_box).to_have_attribute("data-seal-state", "sealed", timeout=LIVE_WAIT)
    _settle(phone)

    # 5. The GM reveals it from the history; the phone is handed a forged result: the check
    # fails, in words, and the first roll still checks.
    phone.tamper.roll_id = second.pk
    page.goto(f"{live_server.url}/c/{campaign.pk}/history/")
    history_entry = page.locator(f"#entry-{second.pk}")
    expect(history_entry.get_by_test_id("sealed-roll")).to_contain_text("Scellé")
    history_entry.get_by_role("button", name="Révéler aux joueurs").click()
    expect(page.locator(f"#entry-{second.pk}").get_by_test_id("reveal-answer")).to_contain_text(
        f"Jet n° {second.pk} révélé aux joueurs"
    )
    page.reload()
    expect(page.locator(f"#entry-{second.pk}").get_by_test_id("sealed-roll")).to_contain_text(
        "Révélé"
    )
    expect(page.locator(f"#entry-{second.pk}")).to_contain_text("Pister")
    page.screenshot(path=artifacts / f"sealed-{mode}-gm-history.png", full_page=False)
    _follow(phone)
    expect(second_box).to_have_attribute("data-seal-state", "failed", timeout=LIVE_WAIT)
    _settle(phone)
    failure = second_box.get_by_test_id("seal-check")
    expect(failure).to_have_text(
        "Vérification ÉCHOUÉE : ce résultat ne correspond pas à l’engagement du jet scellé. "
        "Il a pu être modifié après coup."
    )
    expect(failure).to_have_attribute("role", "alert")
    expect(failure).to_be_visible()
    expect(box).to_have_attribute("data-seal-state", "verified")
    assert phone.evaluate(NO_RELOAD) == "still here"
    assert phone.evaluate("window.__htmx_errors") == []
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    failure.scroll_into_view_if_needed()
    phone.screenshot(path=artifacts / f"sealed-{mode}-phone-tampered.png", full_page=True)
    assert console_errors.errors == []

    # 6. The history, as the server really has it, on the same phone: both rolls check, each
    # shown sealed-then-revealed, with its reveal entry.
    phone.tamper.roll_id = None
    phone.goto(f"{live_server.url}/c/{campaign.pk}/history/")
    for roll in (entry, second):
        sealed_entry = phone.locator(f"#entry-{roll.pk}")
        expect(sealed_entry.locator("[data-sealed-roll]")).to_have_attribute(
            "data-seal-state", "verified"
        )
    expect(phone.locator(f"#entry-{second.pk}")).to_contain_text("Pister")
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    phone.screenshot(path=artifacts / f"sealed-{mode}-phone-history.png", full_page=True)
    assert console_errors.errors == []
