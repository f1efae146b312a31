"""A player on a phone (390 x 844): rolls a test from their sheet; the sheet, the party view
and the history fit the screen without horizontal scrolling. Screenshots in test-artifacts/."""

import pytest
from playwright.sync_api import expect

from campaign.models import PartyVisibility
from journal.models import AuditEntry
from tests.e2e.pages import PHONE, log_in
from tests.play.steps import run

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NO_HORIZONTAL_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"


@pytest.fixture
def phone(browser, live_server, console_errors, campaign, gm, pc, other_pc):
    campaign.party_visibility = PartyVisibility.BARS
    campaign.save()
    # Something to read in the history: a damage, a roll, a condition on the other character.
    run(campaign, gm, "damage", {"amount": "4"}, character=pc)
    run(
        campaign,
        gm,
        "check",
        {"stat": "VAI", "skill": "Survie", "difficulty": "12"},
        character=other_pc,
        typed=[17],
    )
    run(campaign, gm, "add_condition", {"kind": "gene"}, character=other_pc)
    context = browser.new_context(
        viewport=PHONE,
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        locale="fr-FR",
    )
    page = console_errors(context.new_page())
    log_in(page, live_server.url, "paul_joueur")
    yield page
    context.close()


def _csp_errors(console_errors):
    return [e for e in console_errors.errors if "Content Security Policy" in e]


def test_r9_a_player_rolls_a_test_on_their_phone_and_reads_the_result(
    phone, live_server, campaign, pc, artifacts, console_errors
):
    page = phone
    page.goto(f"{live_server.url}/c/{campaign.pk}/characters/{pc.pk}/")
    form = page.locator("[data-testid=roll-form]")
    form.locator("select[name=stat]").select_option("ADR")
    form.locator("input[name=skill]").fill("Crochetage")
    form.locator("input[name=difficulty]").fill("12")
    # The chance of success, asked from the server as the form changes (R5).
    expect(form.locator("[data-testid=probability]")).to_have_text("50 %")
    form.locator("input[name=dice]").fill("14")
    box = form.get_by_role("button", name="Lancer les dés").bounding_box()
    assert box["height"] >= 44 and box["width"] >= 44  # a touch target
    form.get_by_role("button", name="Lancer les dés").click()

    result = page.locator(".msg.roll")
    expect(result).to_contain_text("Isaure — Crochetage (ADR) : 14 (d20) + 1 (ADR) = 15")
    expect(result).not_to_contain_text("R5 · ")  # the GM's reference
    expect(result).to_contain_text("≥ 12 → réussite")
    entry = AuditEntry.objects.filter(kind="roll").latest("id")
    assert entry.typed_in and entry.actor.username == "paul_joueur"
    assert page.evaluate(NO_HORIZONTAL_SCROLL)
    page.screenshot(path=artifacts / "player-roll-390.png", full_page=True)
    assert _csp_errors(console_errors) == []


@pytest.mark.parametrize("where", ["sheet", "party", "history"])
def test_nothing_scrolls_sideways_at_390_px(
    phone, live_server, campaign, pc, artifacts, console_errors, where
):
    page = phone
    base = f"{live_server.url}/c/{campaign.pk}/"
    url = {"sheet": f"{base}characters/{pc.pk}/", "party": base, "history": f"{base}history/"}
    page.goto(url[where])
    if where == "history":
        # One line per action: the roll's action opened, then its full breakdown.
        action = page.locator("[data-testid=action]", has=page.locator("details.breakdown")).first
        action.locator(":scope > details > summary").click()
        details = action.locator("details.breakdown").first
        details.locator("summary").click()
        expect(details.locator("[data-testid=rolled-by]")).to_be_visible()
        expect(page.locator("[data-testid=entry]")).to_have_count(3)
    if where == "party":
        expect(page.locator("[data-testid=party]")).to_contain_text("Gaspard")
        expect(page.locator("[data-testid=party]")).to_contain_text("18 / 18")
    if where == "sheet":
        expect(page.locator(f"#character-{pc.pk} [data-testid=pv]")).to_have_text("9 / 14")
    page.screenshot(path=artifacts / f"player-{where}-390.png", full_page=True)
    assert page.evaluate(NO_HORIZONTAL_SCROLL)
    assert _csp_errors(console_errors) == []


def test_the_app_is_installable(phone, live_server):
    page = phone
    page.goto(f"{live_server.url}/")
    href = page.locator("link[rel=manifest]").get_attribute("href")
    manifest = page.request.get(f"{live_server.url}{href}").json()
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512", "any"} <= sizes
    for icon in manifest["icons"]:
        response = page.request.get(f"{live_server.url}/static/{icon['src']}")
        assert response.status == 200, icon["src"]
