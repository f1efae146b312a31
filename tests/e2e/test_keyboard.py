"""The GM's dashboard without a mouse, at 1440x900, DEBUG on and off: the skip
link, j/k and the arrows between characters, d/h/f with an amount, r with the test's odds
shown before rolling, Escape closing a panel and giving the focus back, u, c, t in a fight,
and ? for the list of shortcuts. After every step the page is whole, no console or htmx error
happened, the cards show the database's numbers and the result is on screen.
"""

import re

import pytest
from playwright.sync_api import expect

from play import services
from tests.e2e.pages import NO_RELOAD, Table

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def focused(page, selector):
    """Whether the focus is on (or inside) `selector`."""
    return page.evaluate(
        "s => { const el = document.activeElement; return !!(el && el.closest(s)); }", selector
    )


def expect_focus_in(page, selector):
    """Wait (htmx focuses an answer's autofocus once it settles) for the focus in `selector`."""
    page.wait_for_function(
        "s => { const el = document.activeElement; return !!(el && el.closest(s)); }",
        arg=selector,
        timeout=5000,
    )


def slot(page, character):
    """The character's slot on the dashboard, which the keyboard selects (focuses)."""
    return page.locator(f"[data-character-id='{character.pk}']")


def test_a_gm_plays_with_the_keyboard_only(
    session_page, live_server, console_errors, campaign, gm, pc, other_pc, artifacts, debug
):
    page = session_page
    mode = "debug" if debug else "production"
    keys = page.keyboard
    # A fight in the GM's order (R33), Gaspard first; the page as it stands.
    services.fight_start(campaign_id=campaign.pk, actor=gm, character_ids=[other_pc.pk, pc.pk])
    page.reload()
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    table = Table(page, console_errors, campaign, [pc, other_pc], live_server)
    table.check("the dashboard")

    # The skip link is the first stop of the keyboard, and lands on the first character.
    keys.press("Tab")
    skip = page.locator(".skip-link")
    expect(skip).to_be_focused()
    expect(skip).to_have_text("Aller aux personnages")
    table.in_view(skip, "the skip link")
    keys.press("Enter")
    expect(slot(page, other_pc)).to_be_focused()  # Gaspard comes before Isaure
    table.check("skip link")

    # j/k and the arrows between the characters.
    keys.press("j")
    expect(slot(page, pc)).to_be_focused()
    keys.press("k")
    expect(slot(page, other_pc)).to_be_focused()
    keys.press("ArrowDown")
    expect(slot(page, pc)).to_be_focused()
    keys.press("j")  # the last one stays selected
    expect(slot(page, pc)).to_be_focused()
    table.check("j, k and the arrows")

    # d with an amount (Isaure: PV 11/14, PA 2), then h and f the same way.
    result = table.result(pc)
    keys.press("d")
    amount = table.card(pc).locator("input[name=amount]")
    expect(amount).to_be_focused()
    keys.type("3")
    keys.press("Enter")
    expect(result).to_contain_text("PV 11 → 10")
    expect_focus_in(page, f"#result-{pc.pk}")
    table.check("d: damage", shown=result)
    page.screenshot(path=artifacts / f"keyboard-{mode}-damage.png", caret="initial")

    keys.press("h")
    expect(amount).to_be_focused()
    keys.type("2")
    keys.press("Enter")
    expect(result).to_contain_text("PV 10 → 12")
    table.check("h: heal", shown=result)

    keys.press("f")
    keys.type("2")
    keys.press("Enter")
    expect(result).to_contain_text("Flux 7 → 5")
    table.check("f: spend Flux", shown=result)

    # r: the test panel, its first field focused, its odds shown before rolling; Escape
    # closes it and gives the focus back to the character.
    panel = table.panel(pc)
    keys.press("r")
    expect(panel.locator("select[name=stat]")).to_be_focused()
    probability = panel.locator("[data-testid=probability]")
    expect(probability).to_have_text(re.compile(r"^\d+ %$"))
    table.check("r: the test's odds", shown=probability)
    page.screenshot(path=artifacts / f"keyboard-{mode}-test-odds.png", caret="initial")
    keys.press("Escape")
    expect(panel).to_be_empty()
    expect(slot(page, pc)).to_be_focused()
    table.check("Escape: panel closed")

    # r again, a typed-in die, rolled with Enter.
    keys.press("r")
    expect(panel.locator("select[name=stat]")).to_be_focused()
    keys.press("Tab")  # the skill
    keys.type("Survie")
    expect(probability).to_have_text(re.compile(r"^\d+ %$"))
    while not focused(page, f"#panel-{pc.pk} input[name=dice]"):
        keys.press("Tab")
    keys.type("14")
    keys.press("Enter")
    expect(result).to_contain_text("Survie")
    expect(panel).to_be_empty()
    table.check("r: a test rolled", shown=result)

    # u: the last change undone, from the keyboard.
    keys.press("d")
    keys.type("5")
    keys.press("Enter")
    expect(result).to_contain_text("PV 12 → 9")
    table.check("d again", shown=result)
    keys.press("u")
    expect(table.card(pc).locator("[data-testid=pv]")).to_have_text("12 / 14")
    table.check("u: undone", shown=result)

    # c: a condition, chosen and applied from the keyboard.
    keys.press("c")
    kind = panel.locator("select[name=kind]")
    expect(kind).to_be_focused()
    keys.press("Tab")
    expect(panel.get_by_role("button", name="Appliquer")).to_be_focused()
    keys.press("Enter")
    expect(table.card(pc).locator(".conditions")).to_contain_text("Ébranlé")
    table.check("c: a condition", shown=result)

    # t: the fight's next turn, Gaspard's to Isaure's; the selection follows the turn.
    keys.press("k")
    expect(slot(page, other_pc)).to_be_focused()
    turn = page.locator("[data-testid=fight-turn]")
    expect(turn).to_contain_text("Gaspard")
    keys.press("t")
    expect(turn).to_contain_text("Isaure")
    seat = table.card(pc).locator("[data-testid=seat]")
    expect(seat).to_contain_text("C’est son tour")
    expect(slot(page, pc)).to_be_focused()
    table.check("t: next turn", shown=seat)

    # ?: the shortcuts, in French; Escape closes them and the focus comes back.
    focus_before = page.evaluate("() => document.activeElement.outerHTML.slice(0, 80)")
    keys.press("?")
    help_dialog = page.get_by_test_id("keys-help")
    expect(help_dialog).to_be_visible()
    expect(help_dialog).to_contain_text("Raccourcis clavier")
    expect(help_dialog).to_contain_text("Défaire la dernière modification")
    table.in_view(help_dialog, "the help")
    page.screenshot(path=artifacts / f"keyboard-{mode}-help.png", caret="initial")
    keys.press("j")  # no shortcut under the dialog
    keys.press("Escape")
    expect(help_dialog).to_be_hidden()
    assert page.evaluate("() => document.activeElement.outerHTML.slice(0, 80)") == focus_before
    table.check("?: help")

    # Typing in a field never fires a shortcut.
    keys.press("Escape")
    keys.press("r")
    expect(panel.locator("select[name=stat]")).to_be_focused()
    keys.press("Tab")
    keys.type("jduk")
    expect(panel.locator("input[name=skill]")).to_have_value("jduk")
    assert focused(page, f"#panel-{pc.pk}")
    keys.press("Escape")
    expect(panel).to_be_empty()
    expect(slot(page, pc)).to_be_focused()
    table.check("typing is not a shortcut")
    page.screenshot(path=artifacts / f"keyboard-{mode}-end.png", caret="initial")


def test_escape_gives_the_focus_back_to_the_link_that_opened_the_panel(
    session_page, live_server, console_errors, campaign, pc, other_pc
):
    page = session_page
    table = Table(page, console_errors, campaign, [pc, other_pc], live_server)
    link = table.card(other_pc).get_by_role("link", name="Chute", exact=True)
    link.focus()
    page.keyboard.press("Enter")
    panel = table.panel(other_pc)
    expect(panel.locator("input[name=storeys]")).to_be_focused()
    page.keyboard.press("Escape")
    expect(panel).to_be_empty()
    expect(table.card(other_pc).get_by_role("link", name="Chute", exact=True)).to_be_focused()
    table.check("Escape after Enter on a link")


@pytest.fixture
def compact_view(campaign, gm):
    """The GM's dashboard set to the compact view before any page opens: written while a page
    was loading, the test's write and the test server's reads shared SQLite's one connection
    ("database table is locked")."""
    from campaign.models import Membership

    Membership.objects.filter(campaign=campaign, user=gm).update(dashboard_view="compact")


# `compact_view` comes before `session_page`: pytest sets fixtures up in the order asked.
def test_the_compact_view_answers_the_same_keys(
    compact_view, session_page, live_server, console_errors, campaign, pc, other_pc, artifacts
):
    page = session_page
    expect(page.locator("#characters")).to_have_attribute("data-dashboard-view", "compact")
    table = Table(page, console_errors, campaign, [pc, other_pc], live_server)
    keys = page.keyboard
    page.locator(".skip-link").focus()
    keys.press("Enter")
    expect(slot(page, other_pc)).to_be_focused()
    keys.press("j")
    expect(slot(page, pc)).to_be_focused()
    keys.press("d")
    expect(table.card(pc).locator("input[name=amount]")).to_be_focused()
    keys.type("3")
    keys.press("Enter")
    expect(table.result(pc)).to_contain_text("PV 11 → 10")
    expect(table.card(pc).locator("[data-testid=pv]")).to_have_text("10/14")
    table.in_view(table.result(pc), "compact: d")
    keys.press("r")
    probability = table.panel(pc).locator("[data-testid=probability]")
    expect(probability).to_have_text(re.compile(r"^\d+ %$"))
    table.in_view(probability, "compact: r")
    keys.press("Escape")
    expect(table.panel(pc)).to_be_empty()
    expect(slot(page, pc)).to_be_focused()
    assert page.evaluate("window.__htmx_errors") == []
    assert console_errors.errors == []
    assert page.evaluate(NO_RELOAD) == "still here"
    page.screenshot(path=artifacts / "keyboard-compact.png", caret="initial")
