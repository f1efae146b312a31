"""The compact dashboard at the table: ten characters on one 1440x900 screen, quick
actions many times in a row on the same rows, a refusal in place, the full damage form, the
view switched and back; DEBUG on and off, no console or htmx error."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from characters.models import Character, Kind
from journal.models import AuditEntry
from tests.e2e.pages import GM_VIEWPORT, HTMX_ERRORS, NO_RELOAD, log_in, minus

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

VIEWPORT = GM_VIEWPORT
NPC_NAMES = [
    "Brume",
    "Corentin",
    "Dame Ysolde",
    "Éloi",
    "Fenouil",
    "Garde du pont",
    "Hermine",
    "Joran",
]


@pytest.fixture
def party(campaign, pc, other_pc):
    """Isaure and Gaspard, eight NPCs, and a fight running among four of them (R33)."""
    npcs = [
        Character.objects.create(
            campaign=campaign,
            name=name,
            kind=Kind.NPC,
            stats={code: i % 3 for code in campaign.stats},
            pv=8 + i,
            pv_max=8 + i,
            flux=3,
            flux_max=3,
            pa=i % 3,
        )
        for i, name in enumerate(NPC_NAMES)
    ]
    Character.objects.filter(pk=npcs[2].pk).update(vital="dead", pv=-4)
    Character.objects.filter(pk=npcs[3].pk).update(vital="coma", pv=-1)
    order = [pc, npcs[0], other_pc, npcs[1]]
    campaign.fight = {
        "order": [c.pk for c in order],
        "round": 2,
        "turn": 1,
        "actions_left": [1, 2, 2, 2],
        "reflexes_left": [1, 0, 1, 1],
        "surprised": [],
    }
    campaign.save(update_fields=["fight"])
    return [pc, other_pc, *npcs]


def open_dashboard(browser, live_server, console_errors, campaign, *, scheme="light"):
    context = browser.new_context(viewport=VIEWPORT, locale="fr-FR", color_scheme=scheme)
    context.add_init_script(HTMX_ERRORS)
    page = console_errors(context.new_page())
    # No live updates (tests/e2e/test_live.py has them): see test_gm_session.session_page.
    poll = reverse("campaign_events_poll", args=[campaign.pk])
    context.route(
        f"{live_server.url}{poll}**",
        lambda route: route.fulfill(json={"changes": [], "last_id": None}),
    )
    log_in(page, live_server.url, "gaelle_mj")
    page.goto(f"{live_server.url}/c/{campaign.pk}/")
    return context, page


class Rows:
    def __init__(self, page, console_errors, party, base):
        self.page, self.console, self.party, self.base = page, console_errors, party, base
        self.allowed: list[str] = []
        self.step = 0

    def row(self, character):
        return self.page.locator(f"#character-{character.pk}")

    def quick(self, character, action, amount):
        row = self.row(character)
        row.locator("input[name=amount]").fill(str(amount))
        row.locator(f"button[data-action={action}]").click()

    def check(self, name, *, shown=None):
        self.step += 1
        page, where = self.page, f"step {self.step} ({name})"
        assert page.evaluate(NO_RELOAD) == "still here", where
        expect(page.locator("#party-bar")).to_be_visible()
        expect(page.locator("[data-dashboard-view=compact]")).to_be_visible()
        assert page.evaluate("window.__htmx_errors") == [], where
        unexpected = [
            line for line in self.console.errors if not any(url in line for url in self.allowed)
        ]
        assert unexpected == [], where
        for character in self.party:
            db = Character.objects.get(pk=character.pk)
            row = self.row(character)
            expect(row).to_have_attribute("data-testid", "row")
            expect(row.locator("[data-testid=pv]")).to_have_text(f"{minus(db.pv)}/{db.pv_max}")
            expect(row.locator("[data-testid=flux]")).to_have_text(f"{db.flux}/{db.flux_max}")
            assert row.get_attribute("data-version") == str(db.version), where
        if shown is not None:
            expect(shown).to_be_visible()
            box = shown.bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= VIEWPORT["height"], where


def all_rows_on_screen(page, party):
    assert page.evaluate("document.scrollingElement.scrollTop") == 0
    for character in party:
        box = page.locator(f"#character-{character.pk}").bounding_box()
        assert box is not None and box["y"] + box["height"] <= VIEWPORT["height"], (
            character.name,
            box,
        )


def test_a_gm_plays_many_actions_in_a_row_on_the_compact_rows(
    browser, live_server, console_errors, campaign, party, artifacts, debug
):
    mode = "debug" if debug else "production"
    context, page = open_dashboard(browser, live_server, console_errors, campaign)
    expect(page.locator("[data-testid=card]")).to_have_count(len(party))
    page.get_by_role("button", name="Compact", exact=True).click()
    expect(page.locator("[data-testid=row]")).to_have_count(len(party))
    expect(page.get_by_role("button", name="Compact", exact=True)).to_have_attribute(
        "aria-pressed", "true"
    )
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    rows = Rows(page, console_errors, party, live_server.url)
    rows.check("the compact dashboard")
    all_rows_on_screen(page, party)
    page.screenshot(path=artifacts / f"compact-{mode}-light.png", caret="initial")

    pc, other_pc = party[0], party[1]
    result = page.locator(f"#result-{pc.pk}")
    # Isaure: PV 11/14, Flux 7/10, PA 2. Gaspard: PV 18/18, Flux 6/6, PA 4.
    rows.quick(pc, "damage", 3)
    expect(result).to_contain_text("PV 11 → 10")
    rows.check("damage", shown=result)
    rows.quick(pc, "damage", 4)
    expect(result).to_contain_text("PV 10 → 8")
    rows.check("damage again", shown=result)
    rows.quick(pc, "heal", 1)
    expect(result).to_contain_text("PV 8 → 9")
    rows.check("heal", shown=result)
    rows.quick(pc, "spend_flux", 2)
    expect(result).to_contain_text("Flux 7 → 5")
    rows.check("spend Flux", shown=result)
    rows.quick(pc, "spend_flux", 1)
    expect(result).to_contain_text("Flux 5 → 4")
    rows.check("spend Flux again", shown=result)
    rows.quick(pc, "restore_flux", 3)
    expect(result).to_contain_text("Flux 4 → 7")
    rows.check("restore Flux", shown=result)

    # Who sees it: the GM only, and the choice stays for the next click.
    row = rows.row(other_pc)
    row.locator("select[name=visibility]").select_option("gm")
    rows.quick(other_pc, "damage", 6)
    other_result = page.locator(f"#result-{other_pc.pk}")
    expect(other_result).to_contain_text("PV 18 → 16")
    rows.check("damage seen by the GM only", shown=other_result)
    expect(row.locator("select[name=visibility]")).to_have_value("gm")
    rows.quick(other_pc, "heal", 1)
    expect(other_result).to_contain_text("PV 16 → 17")
    rows.check("heal seen by the GM only", shown=other_result)
    seen = AuditEntry.objects.filter(character_id=other_pc.pk).values_list("visibility", flat=True)
    assert set(seen) == {"gm"}
    expect(result).to_be_empty()  # only the last action keeps its result

    # Refused by the rules: the message under the row, the page whole.
    rows.allowed.append(f"/c/{campaign.pk}/characters/{pc.pk}/act/spend_flux/")
    rows.quick(pc, "spend_flux", 999)
    panel = page.locator(f"#panel-{pc.pk}")
    expect(panel).to_contain_text("Isaure n’a que 7 Flux (il en faut 999).")
    rows.check("refused Flux", shown=panel.locator(".errors"))
    page.screenshot(path=artifacts / f"compact-{mode}-refused.png", caret="initial")
    rows.quick(pc, "damage", 2)  # the row still works after a refusal
    expect(result).to_contain_text("PV 9 → 9")
    rows.check("damage after the refusal", shown=result)

    # The full damage form: ignores PA, with a cause.
    rows.row(other_pc).get_by_role("link", name="Dégâts…").click()
    other_panel = page.locator(f"#panel-{other_pc.pk}")
    expect(other_panel.locator("input[name=ignores_pa]")).to_be_visible()
    other_panel.locator("input[name=amount]").fill("3")
    other_panel.locator("input[name=ignores_pa]").check()
    other_panel.locator("input[name=cause]").fill("une flèche")
    other_panel.get_by_role("button", name="Appliquer").click()
    expect(other_result).to_contain_text("PA ignorés")
    expect(other_panel).to_be_empty()
    rows.check("full damage", shown=other_result)

    # What is missing, and why: a dead NPC offers only the revival.
    dead = party[4]
    menu = rows.row(dead).locator("details.row-menu")
    menu.locator("summary").click()
    expect(menu.locator("[data-missing~=damage]")).to_contain_text("Dame Ysolde est mort·e")
    expect(menu.locator("a[data-action=revive]")).to_be_visible()
    assert rows.row(dead).locator("button[data-action]").count() == 0
    page.screenshot(path=artifacts / f"compact-{mode}-why.png", caret="initial")
    menu.locator("summary").click()

    # Cards and back, remembered.
    page.get_by_role("button", name="Cartes", exact=True).click()
    expect(page.locator("[data-testid=card]")).to_have_count(len(party))
    page.reload()
    expect(page.locator("[data-testid=card]")).to_have_count(len(party))
    page.get_by_role("button", name="Compact", exact=True).click()
    expect(page.locator("[data-testid=row]")).to_have_count(len(party))
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    rows.quick(pc, "heal", 1)
    expect(result).to_contain_text("PV 9 → 10")
    rows.check("heal after switching back", shown=result)
    brume = party[2]  # Brume: 8/8 PV, 3/3 Flux, no PA; her turn in the fight
    brume_result = page.locator(f"#result-{brume.pk}")
    rows.quick(brume, "damage", 5)
    expect(brume_result).to_contain_text("PV 8 → 3")
    rows.check("damage on another row", shown=brume_result)
    rows.quick(brume, "spend_flux", 3)
    expect(brume_result).to_contain_text("Flux 3 → 0")
    rows.check("her last Flux", shown=brume_result)
    # R1: no Flux left, no button to spend it; R26: Exténué beside her name.
    expect(rows.row(brume).locator("button[data-action=spend_flux]")).to_have_count(0)
    expect(rows.row(brume).locator(".row-conditions")).to_contain_text("Exténué")
    rows.quick(brume, "restore_flux", 1)
    expect(brume_result).to_contain_text("Flux 0 → 1")
    rows.check("Flux back", shown=brume_result)
    page.screenshot(path=artifacts / f"compact-{mode}-after.png", caret="initial")
    assert rows.step >= 15
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots_of_cards_and_compact(
    browser, live_server, console_errors, campaign, party, artifacts, scheme
):
    context, page = open_dashboard(browser, live_server, console_errors, campaign, scheme=scheme)
    page.screenshot(
        path=artifacts / f"dashboard-cards-{scheme}.png", full_page=True, caret="initial"
    )
    page.get_by_role("button", name="Compact", exact=True).click()
    expect(page.locator("[data-testid=row]")).to_have_count(len(party))
    page.screenshot(path=artifacts / f"dashboard-compact-{scheme}.png", caret="initial")
    all_rows_on_screen(page, party)
    assert page.evaluate("window.__htmx_errors") == []
    assert console_errors.errors == []
    context.close()
