"""The GM's dashboard in a real browser: an action applied with htmx, without a page reload."""

import pytest
from playwright.sync_api import expect

from play.services import runner
from rules import engine
from tests.e2e.pages import HTMX_ERRORS, LAPTOP, NO_RELOAD, log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def server_dice(monkeypatch):
    """The live server runs in this process: script its rolls (logged as server rolls)."""

    def script(*values):
        monkeypatch.setattr(
            runner, "dice_source", lambda typed: engine.ScriptedDice(values, typed_in=False)
        )

    return script


@pytest.fixture
def gm_page(browser, live_server, console_errors, campaign, pc, other_pc):
    context = browser.new_context(viewport=LAPTOP, locale="fr-FR")
    page = console_errors(context.new_page())
    log_in(page, live_server.url, "gaelle_mj")
    page.goto(f"{live_server.url}/c/{campaign.pk}/")
    # Set before any action: a page reload would wipe it.
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    yield page
    context.close()


def test_r10_damage_to_zero_shows_the_survie_roll_and_the_new_card_without_reload(
    gm_page, pc, server_dice, artifacts, console_errors
):
    page = gm_page
    server_dice(15)
    card = page.locator(f"#character-{pc.pk}")
    expect(card.locator("[data-testid=pv]")).to_have_text("11 / 14")
    expect(card.locator("[data-testid=vital]")).to_have_text("debout")

    # 13 damage − 2 PA = 11: PV 11 → 0, and R10's Survie (VAI) at once: 15 + 1 = 16 ≥ 10.
    card.locator("input[name=amount]").fill("13")
    card.get_by_role("button", name="Dégâts", exact=True).click()

    explanation = page.locator(f"#result-{pc.pk} [data-testid=explanation]")
    expect(explanation).to_contain_text("R3 · Isaure — 13 dégâts − 2 PA = 11 ; PV 11 → 0")
    expect(explanation).to_contain_text(
        "R10 · Isaure — Survie (VAI) : 15 (d20) + 1 (VAI) = 16 ≥ 10 → réussite"
    )
    card = page.locator(f"#character-{pc.pk}")
    expect(card.locator("[data-testid=pv]")).to_have_text("0 / 14")
    expect(card.locator("[data-testid=vital]")).to_have_text(
        "en sursis (coma imminent) · coma prévu le jour 1 à 08:10"
    )
    expect(card.locator(".conditions")).to_contain_text("Exténué")
    expect(page.locator("#roll-log")).to_contain_text("Survie (VAI)")
    assert page.evaluate(NO_RELOAD) == "still here"
    page.screenshot(path=artifacts / "dashboard-damage-to-zero.png", full_page=True)
    assert console_errors.errors == []


def test_a_refused_action_shows_its_message_in_the_cards_panel_without_reload(
    gm_page, pc, artifacts, console_errors
):
    page = gm_page
    card = page.locator(f"#character-{pc.pk}")
    card.locator("input[name=amount]").fill("8")
    card.get_by_role("button", name="−Flux", exact=True).click()

    panel = page.locator(f"#panel-{pc.pk}")
    expect(panel).to_contain_text("Isaure n’a que 7 Flux (il en faut 8).")
    expect(card.locator("[data-testid=flux]")).to_have_text("7 / 10")
    assert page.evaluate(NO_RELOAD) == "still here"
    page.screenshot(path=artifacts / "dashboard-refused-action.png", full_page=True)
    # The 400 is the answer the browser shows; nothing else may fail.
    assert [e for e in console_errors.errors if "400" not in e] == []


def test_an_action_panel_works_again_and_again_and_closes_after_success(
    gm_page, pc, console_errors
):
    """The panel's links inherited the card's outerHTML swap: the first one replaced the panel
    itself, so its form stayed open and every later link and message had no target."""
    page = gm_page
    page.add_init_script(HTMX_ERRORS)
    page.reload()
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    card = page.locator(f"#character-{pc.pk}")
    panel = page.locator(f"#panel-{pc.pk}")
    for stat in ("VAI", "ADR"):
        card.get_by_role("link", name="Test", exact=True).click()
        panel.locator("select[name=stat]").select_option(stat)
        panel.locator("input[name=dice]").fill("12")
        panel.get_by_role("button", name="Appliquer").click()
        expect(panel).to_be_empty()
        expect(page.locator("#roll-log")).to_contain_text(f"{stat} : 12 (d20)")

    card.get_by_role("link", name="Chute", exact=True).click()
    panel.locator("input[name=dice]").fill("abc")
    panel.get_by_role("button", name="Appliquer").click()
    expect(panel.locator(".errors").first).to_be_visible()  # the message, in the panel
    panel.get_by_role("link", name="Annuler").click()
    expect(panel).to_be_empty()
    card.get_by_role("link", name="Ajouter un état", exact=True).click()
    expect(panel.locator("select[name=kind]")).to_be_visible()
    assert page.evaluate("window.__htmx_errors") == []
    assert page.evaluate(NO_RELOAD) == "still here"
    assert [e for e in console_errors.errors if "400" not in e] == []
