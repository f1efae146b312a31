"""Steps the browser tests share."""

import re
import threading
from pathlib import Path

from django.urls import reverse
from playwright.sync_api import expect

from campaign.models import Campaign
from characters.models import Character

# The screens the browser tests open: the GM's dashboard, a smaller laptop, a phone.
GM_VIEWPORT = {"width": 1440, "height": 900}
LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

EMPTY_POLL = {"changes": [], "last_id": None}  # a live-update poll with nothing new

# Set on the page before acting: a reload would wipe it, so its survival proves none happened.
NO_RELOAD = "window.__chroniqueur_no_reload"

# Every error event htmx 2 fires (each also fires `htmx:error`), caught in the capture phase so
# that no handler stopping their propagation can hide them.
HTMX_ERRORS = """
window.__htmx_errors = [];
[
  "htmx:error", "htmx:responseError", "htmx:targetError", "htmx:oobErrorNoTarget",
  "htmx:swapError", "htmx:sendError", "htmx:sendAbort", "htmx:timeout", "htmx:onLoadError",
  "htmx:historyCacheError", "htmx:evalDisallowedError", "htmx:invalidPath", "htmx:syntax:error"
].forEach(function (name) {
  window.addEventListener(name, function (evt) {
    var detail = evt.detail || {}, target = detail.target;
    var where = target && target.id ? "#" + target.id : String(target);
    var why = detail.error ? String(detail.error) : detail.xhr ? "status " + detail.xhr.status : "";
    window.__htmx_errors.push(name + " " + where + (why ? " (" + why + ")" : ""));
  }, true);
});
"""

PASSWORD = "correct horse battery"  # tests' users (tests/conftest.py); the demo's is "demo"


def minus(number: int) -> str:
    """A number as the pages print it: "−4" with the minus sign (−), not a hyphen."""
    return f"\u2212{-number}" if number < 0 else str(number)


def log_in(page, base_url: str, username: str, password: str = PASSWORD) -> None:
    """Log `username` in through the login form; the page ends on the home page."""
    page.goto(f"{base_url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{base_url}/")


AXE = Path(__file__).resolve().parents[1] / "vendor" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")


def axe_violations(page, impacts=SERIOUS, rules=None) -> list[str]:
    """axe-core's violations on the page as it is: those of `impacts` (every one when None),
    of all rules or of `rules` only; each with its first elements and, for a contrast, the
    colours axe measured. Injected through the DevTools protocol, which the page's CSP does not
    govern, once per document."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    options = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": rules}
    result = page.evaluate("async options => (await axe.run(options)).violations", options)
    return [
        f"{v['id']} ({v['impact']}): {', '.join(_axe_node(n) for n in v['nodes'][:4])}"
        f"{f' (+{len(v["nodes"]) - 4})' if len(v['nodes']) > 4 else ''}"
        for v in result
        if impacts is None or v["impact"] in impacts
    ]


def _axe_node(node) -> str:
    data = next((c.get("data") for c in node["any"] if isinstance(c.get("data"), dict)), None)
    where = " ".join(node["target"])
    if data and "contrastRatio" in data:
        return f"{where} [{data['fgColor']} on {data['bgColor']}, {data['contrastRatio']}:1]"
    return where


class Table:
    """The GM's page and what each step must leave true."""

    def __init__(self, page, console_errors, campaign, characters, live_server):
        self.page = page
        self.console = console_errors
        self.campaign = campaign
        self.characters = characters
        self.base = live_server.url
        self.allowed: list[str] = []  # URLs answered 4xx on purpose so far
        self.step = 0

    def card(self, character):
        return self.page.locator(f"#character-{character.pk}")

    def panel(self, character=None):
        return self.page.locator(f"#panel-{character.pk if character else 'party'}")

    def result(self, character=None):
        return self.page.locator(f"#result-{character.pk if character else 'party'}")

    def expect_refusal(self, path: str):
        self.allowed.append(self.base + path)

    def quick(self, character, button: str, amount: int):
        card = self.card(character)
        card.locator("input[name=amount]").fill(str(amount))
        card.get_by_role("button", name=button, exact=True).click()

    def open_panel(self, character, link: str):
        self.card(character).get_by_role("link", name=link, exact=True).click()
        panel = self.panel(character)
        expect(panel.locator("form")).to_be_visible()
        expect(panel.locator(":focus")).to_have_count(1)  # its first field, brought into view
        self.in_view(panel.locator(":focus"), f"panel {link}")
        return panel

    def in_view(self, locator, where):
        box = locator.bounding_box()
        assert box is not None, where
        height = GM_VIEWPORT["height"]
        assert box["y"] >= 0 and box["y"] + box["height"] <= height + 1, (where, box)

    def unexpected_errors(self) -> list[str]:
        """The console's errors, but for the 4xx answers the test asked for."""
        return [
            line
            for line in self.console.errors
            if not any(
                url in line and ("status of 4" in line or line.startswith("4"))
                for url in self.allowed
            )
        ]

    def check(self, name: str, *, shown=None):
        """What every step leaves true; `shown`: the element that must be on screen."""
        self.step += 1
        page = self.page
        where = f"step {self.step} ({name})"
        assert page.evaluate(NO_RELOAD) == "still here", where
        # Whole and styled: the header, the navigation, the stylesheet's rules applied.
        expect(page.locator("header.topbar")).to_be_visible()
        expect(page.locator("nav.subnav")).to_be_visible()
        expect(page.locator("#party-bar")).to_be_visible()
        assert page.evaluate("getComputedStyle(document.querySelector('.topbar')).display") == (
            "flex"
        ), where
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == (
            "rgb(247, 245, 240)"
        ), where
        assert page.evaluate("window.__htmx_errors") == [], where
        assert self.unexpected_errors() == [], where
        # The cards show the server's numbers.
        for character in self.characters:
            row = Character.objects.get(pk=character.pk)
            card = self.card(character)
            expect(card.locator("[data-testid=pv]")).to_have_text(f"{minus(row.pv)} / {row.pv_max}")
            expect(card.locator("[data-testid=flux]")).to_have_text(f"{row.flux} / {row.flux_max}")
            assert card.get_attribute("data-version") == str(row.version), where
        if shown is not None:
            expect(shown).to_be_visible()
            self.in_view(shown, where)


class Gate:
    """Lets a page's polls through to the server only when the test opens it."""

    def __init__(self):
        self.open = threading.Event()

    def route(self, route):
        if self.open.is_set():
            route.continue_()
        else:
            route.fulfill(json=EMPTY_POLL)


def open_context(
    browser, live_server, console_errors, viewport, username, *, password=PASSWORD, **options
):
    context = browser.new_context(viewport=viewport, locale="fr-FR", **options)
    context.add_init_script(HTMX_ERRORS)
    # The log's seal, which live.js checks after each change, is tests/e2e/test_seals.py's:
    # here its read could cross an action's write on the test server's one SQLite connection
    # ("database table is locked"), as the polls could.
    context.route(
        f"{live_server.url}/c/*/history/seal.json**", lambda route: route.fulfill(json={})
    )
    page = console_errors(context.new_page())
    log_in(page, live_server.url, username, password)
    return context, page


class Fight:
    """The GM's dashboard, the player's sheet, and what each step must leave true."""

    def __init__(self, gm_page, phone, console_errors, campaign, characters, live_server, gate):
        self.page, self.phone, self.console = gm_page, phone, console_errors
        self.campaign, self.characters = campaign, characters
        self.base, self.gate = live_server.url, gate
        self.allowed: list[str] = []
        self.step = 0

    @property
    def section(self):
        return self.page.locator("#fight")

    @property
    def result(self):
        return self.page.locator("#result-fight")

    def row(self, character):
        return self.page.locator(f"#fighter-{character.pk}")

    def click(self, label: str):
        self.section.get_by_role("button", name=label, exact=True).click()
        if label == "Fin du combat":  # an action that changes much at once asks first
            confirm(self.page)

    def in_view(self, locator, where):
        box = locator.bounding_box()
        assert box is not None, where
        assert box["y"] >= 0 and box["y"] + box["height"] <= GM_VIEWPORT["height"] + 1, (
            where,
            box,
        )

    def check(self, name: str):
        self.step += 1
        page, where = self.page, f"step {self.step} ({name})"
        assert page.evaluate(NO_RELOAD) == "still here", where
        expect(page.locator("header.topbar")).to_be_visible()
        expect(page.locator("#party-bar")).to_be_visible()
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == (
            "rgb(247, 245, 240)"
        ), where
        assert page.evaluate("window.__htmx_errors") == [], where
        unexpected = [
            line
            for line in self.console.errors
            if not any(
                url in line and ("status of 4" in line or line[:1] == "4") for url in self.allowed
            )
        ]
        assert unexpected == [], where
        # The section on screen, with the server's numbers.
        self.in_view(self.section, where)
        if self.result.inner_text().strip():
            self.in_view(self.result, where)
        fight = Campaign.objects.get(pk=self.campaign.pk).fight
        if fight is None:
            expect(self.section.locator("[data-testid=fighter]")).to_have_count(0)
            for character in self.characters:
                expect(page.locator(f"#character-{character.pk}")).not_to_have_class(
                    re.compile("its-turn")
                )
            return
        expect(self.section.get_by_test_id("fight-round")).to_have_text(f"Manche {fight['round']}")
        rows = self.section.locator("[data-testid=fighter]")
        expect(rows).to_have_count(len(fight["order"]))
        for place, key in enumerate(fight["order"]):
            row = rows.nth(place)
            expect(row).to_have_attribute("data-character", key)
            expect(row.get_by_test_id("actions-left")).to_have_text(
                str(fight["actions_left"][place])
            )
            expect(row.get_by_test_id("reflexes-left")).to_have_text(
                str(fight["reflexes_left"][place])
            )
            current = place == fight["turn"]
            card = page.locator(f"#character-{key}")
            if current:
                expect(row).to_have_class(re.compile(r"\bits-turn\b"))
                expect(card).to_have_class(re.compile(r"\bits-turn\b"))
            else:
                expect(row).not_to_have_class(re.compile(r"\bits-turn\b"))
                expect(card).not_to_have_class(re.compile(r"\bits-turn\b"))

    def phone_follows(self):
        """Let the player's page poll until it has caught up, then close the gate again once
        nothing of its own is in flight."""
        self.gate.open.set()

    def phone_settled(self):
        self.phone.wait_for_function("() => !document.querySelector('.htmx-request')")
        self.gate.open.clear()
        assert self.phone.evaluate("window.__htmx_errors") == []


def open_quiet_dashboard(browser, live_server, console_errors, campaign):
    """The GM's dashboard at 1440x900, its polls answered "nothing new": it changes only
    through the GM's own actions."""
    context, page = open_context(browser, live_server, console_errors, GM_VIEWPORT, "gaelle_mj")
    poll = reverse("campaign_events_poll", args=[campaign.pk])
    context.route(f"{live_server.url}{poll}**", lambda route: route.fulfill(json=EMPTY_POLL))
    page.goto(f"{live_server.url}/c/{campaign.pk}/")
    return context, page


def open_gated_sheet(browser, live_server, console_errors, campaign, pc):
    """The player's sheet on a 390x844 phone, its polls held by a Gate the test opens."""
    context, page = open_context(
        browser,
        live_server,
        console_errors,
        PHONE,
        "paul_joueur",
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    gate = Gate()
    poll = reverse("campaign_events_poll", args=[campaign.pk])
    context.route(f"{live_server.url}{poll}**", gate.route)
    page.goto(f"{live_server.url}/c/{campaign.pk}/characters/{pc.pk}/")
    return context, page, gate


def confirm(page, answer: str = "Enter"):
    """The one question an action that changes much at once asks (static/confirm.js): Enter
    confirms, Escape cancels; the dialog closes either way."""
    from playwright.sync_api import expect

    dialog = page.locator("[data-testid=confirm-dialog]")
    expect(dialog).to_be_visible()
    page.keyboard.press(answer)
    expect(dialog).to_be_hidden()


def more_menu(card):
    """Open a card's « Plus… » and wait for it to be drawn (play/views.py character_menu):
    edit, duplicate, an NPC's template and « Retirer de la table », why actions are missing."""
    card.locator("details.more-menu > summary").click()
    menu = card.locator("details.more-menu .menu")
    expect(menu.locator("a").first).to_be_visible()
    return menu


def open_gm_dashboard(browser, live_server, console_errors, campaign, viewport):
    """The GM's dashboard of `campaign` in a new context at `viewport`, marked so that a reload
    shows (`no_errors`)."""
    context, page = open_context(browser, live_server, console_errors, viewport, "gaelle_mj")
    page.goto(f"{live_server.url}/c/{campaign.pk}/")
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    return context, page


def no_errors(page, console_errors, allowed=()):
    """No htmx error event, no console error but those naming one of `allowed` (a refusal's
    4xx), and no reload since `open_gm_dashboard`."""
    assert page.evaluate("window.__htmx_errors") == []
    assert [e for e in console_errors.errors if not any(a in e for a in allowed)] == []
    assert page.evaluate(NO_RELOAD) == "still here"
