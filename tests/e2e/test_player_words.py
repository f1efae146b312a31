"""What a player reads on a phone (390 x 844): a refusal without the rules' ids (« (R16) » is
the GM's reference), condition names that agree with the character (« Gênée » for « elle »),
and the true minus sign (−) in the chart. DEBUG on and off. Screenshots in test-artifacts/."""

import re

import pytest
from playwright.sync_api import expect

from campaign.models import PartyVisibility
from characters.models import Character
from tests.e2e.pages import PHONE, log_in
from tests.play.steps import put, run

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

RULE_ID = re.compile(r"\(R\d+|R\d+\)|, R\d+|\bR\d+ ·")
NO_HORIZONTAL_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"


@pytest.fixture
def phone(browser, live_server, console_errors, campaign, gm, pc, debug):
    campaign.party_visibility = PartyVisibility.BARS
    campaign.save()
    Character.objects.filter(pk=pc.pk).update(gender="elle")
    run(campaign, gm, "add_condition", {"kind": "gene"}, character=pc)
    run(campaign, gm, "add_condition", {"kind": "paralyse"}, character=pc)
    # 14 damage against 11 PV and 2 PA: PV −1, a Survie test failed (typed 1), the coma; then
    # 30 more in the coma (PV −31), and her death as the clock would bring it (R16).
    run(campaign, gm, "damage", {"amount": "14"}, character=pc, typed=[1])
    run(campaign, gm, "damage", {"amount": "30", "ignores_pa": "on"}, character=pc)
    put(pc, vital="dead")
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, locale="fr-FR"
    )
    page = console_errors(context.new_page())
    log_in(page, live_server.url, "paul_joueur")
    yield page
    context.close()


def test_r16_r22_a_player_reads_agreeing_names_true_minus_signs_and_no_rule_ids(
    phone, live_server, campaign, pc, artifacts, console_errors, debug
):
    page = phone
    mode = "debug" if debug else "prod"
    page.goto(f"{live_server.url}/c/{campaign.pk}/characters/{pc.pk}/")
    card = page.locator(f"#character-{pc.pk}")
    conditions = card.locator("ul.conditions")
    # Her conditions agree with her: « Gênée », « Paralysée », not the rules' masculine.
    expect(conditions).to_contain_text("Gênée")
    expect(conditions).to_contain_text("Paralysée")
    expect(card.locator("[data-testid=pv]")).to_contain_text("\u221231")
    page.screenshot(path=artifacts / f"player-words-sheet-390-{mode}.png", full_page=True)

    # A refusal: a proposal the rules cannot apply now (she is dead, R16), twice in a row,
    # without a reload.
    page.evaluate("window.__no_reload = true")
    form = page.locator("[data-testid=propose-form]")
    form.get_by_label("Dégâts").check()
    form.locator("input[name=amount]").fill("2")
    form.get_by_role("button", name="Envoyer au MJ").click()
    first = page.locator("[data-testid=propose] [role=alert]").first
    expect(first).to_contain_text("morte")
    assert not RULE_ID.search(first.inner_text()), first.inner_text()
    form = page.locator("[data-testid=propose-form]")
    form.get_by_label("Flux dépensé").check()
    form.locator("input[name=amount]").fill("1")
    form.get_by_role("button", name="Envoyer au MJ").click()
    refusal = page.locator("[data-testid=propose] [role=alert]").first
    expect(refusal).to_be_visible()
    said = refusal.inner_text()
    assert said.strip() and not RULE_ID.search(said), said
    assert page.evaluate("window.__no_reload === true")
    page.screenshot(path=artifacts / f"player-words-refusal-390-{mode}.png", full_page=True)
    # Nothing the player reads on her sheet names a rule.
    main = page.locator("main").inner_text()
    assert not RULE_ID.search(main), RULE_ID.search(main)

    # The chart: her PV below zero with the true minus sign, in its ticks and its table.
    page.goto(f"{live_server.url}/c/{campaign.pk}/characters/{pc.pk}/chart/")
    chart = page.locator("figure").first
    expect(chart.locator("svg .chart-tick").filter(has_text="\u221231")).to_have_count(1)
    table = chart.locator("table")
    expect(table).to_contain_text("\u22121")
    expect(table).to_contain_text("\u221231")
    assert not re.search(r"-\d", chart.inner_text())  # no hyphen for a minus
    # The legend of the marks, without the rules' ids the GM reads there.
    legend = page.locator("[data-testid=chart-legend]").first
    expect(legend).to_contain_text("coma")
    assert not RULE_ID.search(legend.inner_text()), legend.inner_text()
    assert page.evaluate(NO_HORIZONTAL_SCROLL)
    page.screenshot(path=artifacts / f"player-words-chart-390-{mode}.png", full_page=True)
    # The two refusals answered 400 (a clear message, never a 500); nothing else failed.
    refused = [e for e in console_errors.errors if "400" in e and "/propose/" in e]
    assert len([e for e in refused if e.startswith("400 ")]) == 2
    assert [e for e in console_errors.errors if e not in refused] == []
