"""Before the clock moves, and a roll typed freely, in a real browser (GM at 1440x900, a
phone at 390x844, DEBUG on and off):

- the clock form says what the clock would roll and the death risk, the engine's exact figure,
  live as the GM changes the length; the night and hour-rest forms too (R11, R13, R31, R32);
- an Undo of an action with 20 changes or more asks once, in a dialog that Escape cancels and
  Enter confirms; a small Undo never asks;
- a free roll (R9) refused with its French message, then accepted, seen on the player's phone
  and in the history; a GM-only one is not seen by the player.
"""

from datetime import timedelta

import pytest
from django.db.models import F
from playwright.sync_api import expect

from characters.models import Character, Kind
from journal.models import AuditEntry
from play import services
from rules.engine import percent_text
from tests.e2e.pages import NO_RELOAD, PHONE, Table, open_context

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _forecast(panel):
    return panel.locator("[data-testid=forecast]")


def _open_party(table, link):
    table.page.locator("#party-bar").get_by_role("link", name=link, exact=True).click()
    panel = table.panel()
    expect(panel.locator("form")).to_be_visible()
    return panel


def test_r11_r32_the_clock_form_shows_the_engines_exact_death_risk(
    session_page, live_server, console_errors, campaign, pc, other_pc, artifacts, debug
):
    page = session_page
    mode = "debug" if debug else "production"
    # Isaure (VAI 1) in a coma at −3 PV: each hour from half past asks a Survie (R11).
    Character.objects.filter(pk=pc.pk).update(
        pv=-3,
        vital="coma",
        next_coma_hour=campaign.clock + timedelta(minutes=30),
        version=F("version") + 1,
    )
    page.reload()
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    table = Table(page, console_errors, campaign, [pc, other_pc], live_server)
    table.check("the dashboard")

    panel = _open_party(table, "Avancer l’horloge")
    expect(_forecast(panel)).to_contain_text("— (")  # no length yet: says what is missing
    for minutes in (120, 60, 300):
        panel.locator("input[name=minutes]").fill(str(minutes))
        (weighed,) = services.clock_forecast(campaign=campaign, action="clock", minutes=minutes)
        line = _forecast(panel).locator("[data-testid=forecast-line]")
        expect(line).to_have_text(weighed.fr)
        expect(line).to_have_attribute("data-death", percent_text(weighed.death))
    expect(_forecast(panel)).to_contain_text(
        "Isaure (coma, VAI 1) : 5 tests de Survie, risque de mort 92 %"
    )
    table.check("the clock's forecast", shown=_forecast(panel))
    page.screenshot(path=artifacts / f"forecast-{mode}-clock.png", caret="initial")
    # The GM changes their mind: an hour only, then applies it (the table's die: 15, passed).
    panel.locator("input[name=minutes]").fill("60")
    expect(_forecast(panel)).to_contain_text("1 test de Survie, risque de mort 40 %")
    panel.locator("input[name=dice]").fill("15")
    panel.get_by_role("button", name="Appliquer").click()
    expect(table.result()).to_contain_text("une heure de coma")
    table.check("the clock moved")

    # The quick « +1 h » asks first, with the same risk; Escape leaves the clock as it is.
    clock = page.locator("[data-testid=clock]")
    before = clock.inner_text()
    page.locator("#party-bar").get_by_role("button", name="+1 h").click()
    dialog = page.locator("[data-testid=confirm-dialog]")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Isaure (coma, VAI 1) : 1 test de Survie, risque de mort 40 %")
    expect(dialog).to_contain_text("Avancer l’horloge quand même ?")
    page.screenshot(path=artifacts / f"forecast-{mode}-quick-hour.png", caret="initial")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    page.wait_for_timeout(300)
    expect(clock).to_have_text(before)
    table.check("the quick hour, cancelled")

    panel = _open_party(table, "Nuit de repos")
    expect(_forecast(panel)).to_contain_text("Isaure (coma, VAI 1) : 8 tests de Survie")
    panel.locator("input[name=hours]").fill("4")
    expect(_forecast(panel)).to_contain_text("Isaure (coma, VAI 1) : 4 tests de Survie")
    expect(_forecast(panel)).to_contain_text("Gaspard (debout, VAI")
    expect(_forecast(panel)).to_contain_text("risque d’être Exténué·e")
    table.check("the night's forecast", shown=_forecast(panel))
    page.screenshot(path=artifacts / f"forecast-{mode}-night.png", caret="initial")
    panel.get_by_role("link", name="Annuler").click()

    panel = _open_party(table, "Repos d’une heure : jet")
    expect(_forecast(panel)).to_contain_text("1 test de Survie, risque de mort 40 %")
    table.check("the hour rest's forecast", shown=_forecast(panel))
    assert table.unexpected_errors() == []


def _big_night(campaign, gm, count=10):
    """Ten tired guards sleep a full night: PV and Flux each, and the clock: 21 changes."""
    guards = [
        Character.objects.create(
            campaign=campaign,
            name=f"Garde {n}",
            kind=Kind.NPC,
            stats={"VAI": 1},
            pv=2,
            pv_max=10,
            flux=1,
            flux_max=6,
        )
        for n in range(1, count + 1)
    ]
    return guards


def test_a_big_undo_asks_once_enter_confirms_escape_cancels_a_small_one_never_asks(
    session_page, live_server, console_errors, campaign, pc, other_pc, artifacts, debug
):
    page = session_page
    mode = "debug" if debug else "production"
    guards = _big_night(campaign, None)
    page.reload()
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    table = Table(page, console_errors, campaign, [pc, other_pc, *guards], live_server)
    dialog = page.locator("[data-testid=confirm-dialog]")

    # A small action: its Undo goes at once.
    table.quick(pc, "Dégâts", 3)
    expect(table.result(pc)).to_contain_text("PV 11 → 10")
    table.result(pc).get_by_role("button", name="Défaire").click()
    expect(dialog).to_be_hidden()
    expect(table.card(pc).locator("[data-testid=pv]")).to_have_text("11 / 14")
    table.check("a small undo, no question")

    panel = _open_party(table, "Nuit de repos")
    panel.get_by_role("button", name="Appliquer").click()
    result = table.result()
    expect(result).to_contain_text("la nuit rend 4 PV")
    table.check("the night of twelve sleepers")
    night = AuditEntry.objects.filter(action="night", kind="change")
    assert night.count() >= 20

    undos = AuditEntry.objects.filter(action="undo").count()
    undo = result.get_by_role("button", name="Défaire")
    undo.click()
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Défaire toute l’action : ")
    expect(dialog).to_contain_text("modifications d’un coup ?")
    page.screenshot(path=artifacts / f"confirm-{mode}-big-undo.png", caret="initial")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    page.wait_for_timeout(300)
    assert AuditEntry.objects.filter(action="undo").count() == undos
    expect(table.card(guards[0]).locator("[data-testid=pv]")).to_have_text("6 / 10")

    undo.click()
    expect(dialog).to_be_visible()
    page.keyboard.press("Enter")
    expect(dialog).to_be_hidden()
    expect(table.card(guards[0]).locator("[data-testid=pv]")).to_have_text("2 / 10")
    assert AuditEntry.objects.filter(action="undo").count() == undos + night.count()
    table.check("the big undo, confirmed once")
    assert table.unexpected_errors() == []


def test_r9_a_free_roll_refused_then_accepted_seen_on_the_phone_and_in_history(
    session_page, browser, live_server, console_errors, campaign, pc, other_pc, artifacts, debug
):
    page = session_page
    mode = "debug" if debug else "production"
    table = Table(page, console_errors, campaign, [pc, other_pc], live_server)
    party = f"/c/{campaign.pk}/party/free_roll/"

    panel = _open_party(table, "Jet libre")
    table.expect_refusal(party)
    panel.locator("input[name=expression]").fill("2d")
    panel.get_by_role("button", name="Appliquer").click()
    expect(table.panel()).to_contain_text("il manque le nombre de faces après « d »")
    panel = table.panel()
    panel.locator("input[name=expression]").fill("1000d6")
    panel.get_by_role("button", name="Appliquer").click()
    expect(table.panel()).to_contain_text("au plus 100 dés en un jet (1000 demandés)")
    table.check("free roll refused", shown=table.panel().locator(".errors").first)
    page.screenshot(path=artifacts / f"free-roll-{mode}-refused.png", caret="initial")

    panel = table.panel()
    panel.locator("input[name=expression]").fill("2d6+3")
    panel.locator("select[name=character]").select_option(str(pc.pk))
    panel.locator("select[name=visibility]").select_option("everyone")
    panel.locator("input[name=dice]").fill("4, 2")
    panel.get_by_role("button", name="Appliquer").click()
    expect(table.result()).to_contain_text("Isaure — jet libre 2d6+3 → 4 + 2 + 3 = 9")
    expect(page.locator("#roll-log")).to_contain_text("Jet libre 2d6+3 → 4 + 2 + 3 = 9")
    table.check("free roll for everyone")

    panel = _open_party(table, "Jet libre")
    panel.locator("input[name=expression]").fill("1d20+VAI")
    panel.locator("select[name=character]").select_option(str(pc.pk))
    panel.locator("select[name=visibility]").select_option("gm")
    panel.locator("input[name=dice]").fill("17")
    panel.get_by_role("button", name="Appliquer").click()
    expect(table.result()).to_contain_text("jet libre 1d20+VAI → 17 + 1 (VAI) = 18")
    table.check("free roll for the GM only")
    page.screenshot(path=artifacts / f"free-roll-{mode}-gm.png", caret="initial")

    # The player's phone: the roll for everyone, the GM's sealed; then one of their own.
    context, phone = open_context(browser, live_server, console_errors, PHONE, "paul_joueur")
    phone.goto(f"{live_server.url}/c/{campaign.pk}/characters/{pc.pk}/")
    feed = phone.locator("[data-testid=feed]")
    expect(feed).to_contain_text("Jet libre 2d6+3 → 4 + 2 + 3 = 9")
    expect(feed).to_contain_text("jet scellé du MJ (jet libre)")
    expect(feed).not_to_contain_text("= 18")
    form = phone.locator("[data-testid=free-roll-form]")
    form.locator("input[name=expression]").fill("d0")
    form.get_by_role("button", name="Lancer les dés").click()
    expect(phone.locator("[data-testid=free-roll-form]")).to_contain_text(
        "un dé a de 2 à 1000 faces (pas 0)"
    )
    form = phone.locator("[data-testid=free-roll-form]")
    form.locator("input[name=expression]").fill("1d8+1")
    form.locator("input[name=dice]").fill("5")
    form.get_by_role("button", name="Lancer les dés").click()
    expect(phone.locator("[data-testid=feed]")).to_contain_text("Jet libre 1d8+1 → 5 + 1 = 6")
    phone.screenshot(
        path=artifacts / f"free-roll-{mode}-phone.png", caret="initial", full_page=True
    )
    phone.goto(f"{live_server.url}/c/{campaign.pk}/history/")
    history = phone.locator("main")
    expect(history).to_contain_text("Jet libre 2d6+3 → 4 + 2 + 3 = 9")
    expect(history).to_contain_text("Jet libre 1d8+1 → 5 + 1 = 6")
    expect(history).not_to_contain_text("17 + 1 (VAI) = 18")
    assert phone.evaluate("window.__htmx_errors") == []
    context.close()

    page.goto(f"{live_server.url}/c/{campaign.pk}/history/")
    expect(page.locator("main")).to_contain_text("Jet libre 1d20+VAI → 17 + 1 (VAI) = 18")
    expect(page.locator("main")).to_contain_text("Jet libre 1d8+1 → 5 + 1 = 6")
    assert table.unexpected_errors() == [
        line for line in console_errors.errors if "/characters/" in line and "400" in line
    ]
