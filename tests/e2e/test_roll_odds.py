"""Every roll form shows its odds before rolling, at 1440x900, DEBUG on and off:
Test (R5), Chute (R27), Tomber malade (R28), Stabiliser (R12), Tentative de réveil (R13) in
the dashboard's panels, and the damage form's Survie (R10). The fall panel's odds are on
screen without scrolling.
"""

import pytest
from django.db.models import F
from playwright.sync_api import expect

from characters.models import Character
from tests.e2e.pages import NO_RELOAD, Table

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def odds_of(panel):
    return panel.locator("[data-testid=probability]")


def test_each_roll_panel_shows_its_odds_before_rolling(
    session_page, live_server, console_errors, campaign, pc, other_pc, npc, artifacts, debug
):
    page = session_page
    mode = "debug" if debug else "production"
    # Gaspard in a coma (to stabilise), the Vicomte stabilised (to wake). Isaure: VAI 1,
    # ADR 1, ESP 3, 11 PV, 2 PA; the Vicomte: VAI 3; the campaign's difficulty: 10.
    Character.objects.filter(pk=other_pc.pk).update(pv=-2, vital="coma", version=F("version") + 1)
    Character.objects.filter(pk=npc.pk).update(
        pv=-1, vital="stabilised", stabilised_at=campaign.clock, version=F("version") + 1
    )
    page.reload()
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    table = Table(page, console_errors, campaign, [pc, other_pc, npc], live_server)
    table.check("the dashboard")

    # R5: d20 + 1 >= 10 on 9..20.
    panel = table.open_panel(pc, "Test")
    expect(panel).to_contain_text("Chances de réussite")
    panel.locator("select[name=stat]").select_option("VAI")
    expect(odds_of(panel)).to_have_text("60 %")
    table.check("test odds", shown=odds_of(panel))
    panel.get_by_role("link", name="Annuler").click()
    expect(table.panel(pc)).to_be_empty()

    # R27: no Agilité test until the GM chooses it; two storeys: malus 2, d20 - 1 >= 10.
    panel = table.open_panel(pc, "Chute")
    panel.locator("input[name=storeys]").fill("2")
    expect(odds_of(panel)).to_contain_text("pas de test d’Agilité")
    panel.locator("select[name=soften]").select_option("adr_test")
    expect(odds_of(panel)).to_have_text("50 %")
    expect(panel).to_contain_text("Chances d’amortir la chute (Agilité, R27)")
    table.check("fall odds, without scrolling", shown=odds_of(panel))
    page.screenshot(path=artifacts / f"odds-{mode}-fall.png", caret="initial")
    panel.get_by_role("link", name="Annuler").click()

    # R28: Constitution, d20 + 1 >= 10.
    panel = table.open_panel(pc, "Tomber malade")
    expect(odds_of(panel)).to_have_text("60 %")
    expect(panel).to_contain_text("test de Constitution (R28)")
    table.check("illness odds", shown=odds_of(panel))
    panel.get_by_role("link", name="Annuler").click()

    # R12: Isaure (ESP 3) tends Gaspard: d20 + 3 >= 10 on 7..20; half-typed: a dash.
    panel = table.open_panel(other_pc, "Stabiliser")
    expect(odds_of(panel)).to_contain_text("—")
    panel.locator("select[name=healer]").select_option(str(pc.pk))
    expect(odds_of(panel)).to_have_text("70 %")
    panel.locator("input[name=difficulty]").fill("")
    expect(odds_of(panel)).to_contain_text("— (Difficulté")
    panel.locator("input[name=difficulty]").fill("12")
    expect(odds_of(panel)).to_have_text("60 %")
    table.check("stabilise odds", shown=odds_of(panel))
    page.screenshot(path=artifacts / f"odds-{mode}-stabilise.png", caret="initial")
    panel.get_by_role("link", name="Annuler").click()

    # R13: the Vicomte, VAI 3: d20 + 3 >= 10.
    panel = table.open_panel(npc, "Tentative de réveil")
    expect(odds_of(panel)).to_have_text("70 %")
    expect(panel).to_contain_text("Chances de se réveiller (Survie, R13)")
    table.check("waking odds", shown=odds_of(panel))
    # R14: nothing says what knocked him out, so the sequel's cause is asked for first;
    # the refusal stays in the panel and the page stays whole.
    table.expect_refusal(f"/c/{campaign.pk}/characters/{npc.pk}/act/wake/")
    panel.get_by_role("button", name="Appliquer").click()
    expect(panel).to_contain_text("écrivez le traumatisme de la séquelle")
    table.check("the sequel's cause asked for", shown=panel.locator(".errors"))
    panel.locator("input[name=sequel_cause]").fill("un coup de rapière")
    panel.get_by_role("button", name="Appliquer").click()
    expect(table.result(npc)).to_contain_text("Survie (VAI)")
    table.check("woken or not", shown=table.result(npc))

    # R10: the damage form says when damage would bring a Survie test, and its odds.
    page.goto(f"{live_server.url}/c/{campaign.pk}/characters/{pc.pk}/act/damage/")
    form = page.locator("form.action-form")
    form.locator("input[name=amount]").fill("3")
    expect(odds_of(form)).to_contain_text("pas de test de Survie")
    form.locator("input[name=amount]").fill("13")
    expect(odds_of(form)).to_have_text("60 %")
    expect(form).to_contain_text("test de Survie (R10)")
    assert page.evaluate("window.__htmx_errors") == []
    assert table.unexpected_errors() == []
    page.screenshot(path=artifacts / f"odds-{mode}-damage.png", caret="initial")
