"""R33 and R9 on the GM's dashboard (1440 x 900), several actions in a row without a reload,
failing on any console error or htmx error event (tests/e2e/test_fight.py's checks):

- the fight starts in the order the GM ticks, whatever order the page lists; a character
  moved above the one whose turn it is still has their turn in that round;
- a round whose length brings an R13 waking try takes the GM's typed die on « Tour suivant »,
  and a bad one is refused in the fight section.
"""

import re

import pytest
from playwright.sync_api import expect

from campaign.models import Campaign
from journal.models import AuditEntry
from tests.e2e.pages import NO_RELOAD, Fight, open_quiet_dashboard
from tests.play.steps import at, put

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def dashboard(browser, live_server, console_errors, campaign, pc, other_pc, npc):
    context, page = open_quiet_dashboard(browser, live_server, console_errors, campaign)
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    table = Fight(page, None, console_errors, campaign, [pc, other_pc, npc], live_server, None)
    yield table
    context.close()


def _order(campaign):
    return Campaign.objects.get(pk=campaign.pk).fight["order"]


def test_r33_the_fight_starts_in_the_order_ticked_and_a_reorder_keeps_every_turn(
    dashboard, campaign, pc, other_pc, npc, artifacts
):
    table, page = dashboard, dashboard.page
    table.check("the dashboard, no fight")
    table.section.locator("summary").click()

    def tick(character, on=True):
        box = table.section.locator(f"input[name=fighters][value='{character.pk}']")
        box.check() if on else box.uncheck()

    def place(character):
        return table.section.locator(f"#fight-place-{character.pk}")

    # Ticked Isaure, the Vicomte, Gaspard: numbered 1, 2, 3 as ticked.
    for character in (pc, npc, other_pc):
        tick(character)
    for character, number in ((pc, "1"), (npc, "2"), (other_pc, "3")):
        expect(place(character)).to_have_value(number)
    # The Vicomte unticked: the gap closes; ticked again, he comes last.
    tick(npc, on=False)
    expect(place(npc)).to_have_value("")
    expect(place(other_pc)).to_have_value("2")
    tick(npc)
    expect(place(npc)).to_have_value("3")
    page.screenshot(path=artifacts / "fight-order-ticked.png", caret="initial")
    table.section.get_by_role("button", name="Commencer le combat").click()
    expect(table.result).to_contain_text("Début du combat")
    table.check("fight started in the order ticked")
    assert _order(campaign) == [str(pc.pk), str(other_pc.pk), str(npc.pk)]

    # Gaspard's turn; the Vicomte moved above him: the turn stays Gaspard's, and the
    # Vicomte still plays in round 1 (R33).
    table.click("Tour suivant")
    expect(table.section.get_by_test_id("fight-turn")).to_have_text("Au tour de\u00a0: Gaspard")
    table.check("Gaspard's turn")
    table.row(npc).get_by_role(
        "button", name="Faire jouer plus tôt\u00a0: Le Vicomte masque"
    ).click()
    expect(table.section.locator("[data-testid=fighter]").nth(1)).to_have_attribute(
        "data-character", str(npc.pk)
    )
    expect(table.section.get_by_test_id("fight-turn")).to_have_text("Au tour de\u00a0: Gaspard")
    table.check("the Vicomte moved above Gaspard")
    table.click("Tour suivant")
    expect(table.section.get_by_test_id("fight-turn")).to_have_text(
        "Au tour de\u00a0: Le Vicomte masque"
    )
    expect(table.section.get_by_test_id("fight-round")).to_have_text("Manche 1")
    table.check("the Vicomte's turn, still round 1")
    table.click("Tour suivant")
    expect(table.section.get_by_test_id("fight-round")).to_have_text("Manche 2")
    expect(table.section.get_by_test_id("fight-turn")).to_have_text("Au tour de\u00a0: Isaure")
    table.check("round 2, in the new order")
    assert table.step >= 6


@pytest.fixture
def hourly(campaign, pc):
    Campaign.objects.filter(pk=campaign.pk).update(round_seconds=3600)
    # Stabilised at 08:00: the first round's hour brings R13's waking try at 09:00.
    put(pc, vital="stabilised", pv=-1, stabilised_at=at(0), down_cause="chute")


def test_r9_r33_the_gm_types_the_die_of_a_roll_a_rounds_length_brings(
    hourly, dashboard, live_server, campaign, pc, npc, artifacts
):
    table, page = dashboard, dashboard.page
    table.section.locator("summary").click()
    table.section.locator(f"input[name=fighters][value='{npc.pk}']").check()
    table.section.get_by_role("button", name="Commencer le combat").click()
    expect(table.result).to_contain_text("Début du combat")
    table.check("a fight of one, rounds of an hour")
    dice = table.section.get_by_test_id("fight-dice")
    expect(dice).to_be_visible()

    # A word is no die: refused in the fight section, nothing written.
    table.allowed.append(f"{live_server.url}/c/{campaign.pk}/fight/next/")
    dice.fill("dix")
    table.click("Tour suivant")
    expect(table.result.get_by_test_id("fight-error")).to_contain_text("dix")
    table.check("bad dice refused")
    assert Campaign.objects.get(pk=campaign.pk).fight["round"] == 1

    # The try's D20 (18) and the sequel's D6 (3), typed: Isaure wakes (R13, R14).
    table.section.get_by_test_id("fight-dice").fill("18 3")
    table.click("Tour suivant")
    expect(table.section.get_by_test_id("fight-round")).to_have_text("Manche 2")
    expect(table.result).to_contain_text(re.compile("dés? saisis?"))
    table.check("round 2 after the typed try")
    page.screenshot(path=artifacts / "fight-typed-dice.png", caret="initial")
    roll = AuditEntry.objects.get(campaign=campaign, kind="roll", rule_id="R13")
    assert roll.typed_in and roll.roll["dice"] == [18]
    pc.refresh_from_db()
    assert pc.vital == "up"
    # Nothing due in the next round: the server’s turn as usual, the field left empty.
    expect(table.section.get_by_test_id("fight-dice")).to_have_value("")
    table.click("Tour suivant")
    expect(table.section.get_by_test_id("fight-round")).to_have_text("Manche 3")
    table.check("round 3")
