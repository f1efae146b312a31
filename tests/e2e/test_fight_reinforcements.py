"""Reinforcements and a fleeing guard (R33), as a GM runs them at the table.

The GM (1440 x 900) duplicates « Garde » five times, starts a fight in the order ticked (three
guards and the player's character), plays round 1 with several actions without reloading,
brings a reinforcement in at round 2 at the place they choose (shown in the order, the
player's phone strip updated live), takes out a guard who flees, then the one whose turn it
is (the turn passes to the next: the player's, « C’est votre tour » on the phone). A stale
form adding a guard already in the fight is refused, its message in view. After a reload, the
order and the current turn are the same, on the dashboard and on the phone. Console and htmx
errors fail the test (tests/e2e/pages.py Fight.check). Under DEBUG on and off.

The GM's polls are answered "nothing new" and the phone's go through a Gate, as in
tests/e2e/test_fight.py (the test server's one SQLite connection).
"""

import re

import pytest
from playwright.sync_api import expect

from campaign.models import Campaign
from characters.models import Character
from journal.models import AuditEntry
from tests.e2e.pages import NO_RELOAD, Fight, more_menu, open_gated_sheet, open_quiet_dashboard

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def tables(browser, live_server, console_errors, campaign, pc, other_pc, npc, debug):
    Character.objects.filter(pk=npc.pk).update(name="Garde")
    gm_context, page = open_quiet_dashboard(browser, live_server, console_errors, campaign)
    phone_context, phone, gate = open_gated_sheet(
        browser, live_server, console_errors, campaign, pc
    )
    yield page, phone, gate
    gm_context.close()
    phone_context.close()


def fight_of(campaign):
    return Campaign.objects.get(pk=campaign.pk).fight


def test_r33_reinforcements_join_in_round_2_and_a_guard_flees(
    tables, live_server, console_errors, campaign, pc, other_pc, npc, artifacts, debug
):
    page, phone, gate = tables
    mode = "debug" if debug else "production"
    strip = phone.locator("#fight-strip")

    # « Dupliquer… » ×5 from the guard's card: Garde 1 … Garde 6, full PV.
    card = page.locator(f"#character-{npc.pk}")
    more_menu(card).get_by_role("link", name="Dupliquer…").click()
    panel = page.locator(f"#panel-{npc.pk}")
    panel.get_by_label("Nombre de copies").fill("5")
    panel.get_by_role("button", name="Dupliquer", exact=True).click()
    expect(page.locator(".messages")).to_contain_text("5 copies ajoutées à la table")
    guards = {
        c.name: c for c in Character.objects.filter(campaign=campaign, name__startswith="Garde")
    }
    assert sorted(guards) == [f"Garde {n}" for n in range(1, 7)]
    assert all(g.pv == g.pv_max for g in guards.values())
    g1, g2, g3, g4 = (guards[f"Garde {n}"] for n in range(1, 5))
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    phone.evaluate(f"{NO_RELOAD} = 'still here'")
    table = Fight(page, phone, console_errors, campaign, [pc, *guards.values()], live_server, gate)
    table.check("five guards added")

    # The fight in the order ticked: Garde 2, Isaure, Garde 1, Garde 3.
    table.section.locator("summary").click()
    ticked = [g2, pc, g1, g3]
    for character in ticked:
        table.section.locator(f"input[name=fighters][value='{character.pk}']").check()
    table.section.get_by_role("button", name="Commencer le combat").click()
    expect(table.result).to_contain_text("Début du combat")
    table.check("fight started")
    assert fight_of(campaign)["order"] == [str(c.pk) for c in ticked]

    # Round 1: spends and turns, one after the other, no reload.
    table.row(g2).get_by_role("button", name="−1 action\u00a0: Garde 2").click()
    expect(table.row(g2).get_by_test_id("actions-left")).to_have_text("1")
    table.check("Garde 2 spends an action")
    for expected in ("Isaure", "Garde 1", "Garde 3"):
        table.click("Tour suivant")
        expect(table.section.get_by_test_id("fight-turn")).to_have_text(
            f"Au tour de\u00a0: {expected}"
        )
        table.check(f"round 1, {expected}")
        if expected == "Garde 1":
            table.row(g1).get_by_role("button", name="−1 réflexe\u00a0: Garde 1").click()
            expect(table.row(g1).get_by_test_id("reflexes-left")).to_have_text("0")
            table.check("Garde 1 spends a reflex")
    table.click("Tour suivant")
    expect(table.section.get_by_test_id("fight-round")).to_have_text("Manche 2")
    expect(table.section.get_by_test_id("fight-turn")).to_have_text("Au tour de\u00a0: Garde 2")
    table.check("round 2, Garde 2's turn")

    # Round 2: Garde 4 arrives, second in the order, right after the current turn.
    join = table.section.get_by_test_id("fight-join")
    expect(join.get_by_role("button", name="Ajouter au combat")).to_be_visible()
    table.in_view(join, "the join form on screen")
    offered = join.locator("option").evaluate_all("options => options.map(o => o.textContent)")
    assert "Garde 4" in offered and "Garde 2" not in offered and "Isaure" not in offered
    join.get_by_test_id("fight-join-who").select_option(label="Garde 4")
    join.get_by_test_id("fight-join-place").fill("2")
    join.get_by_role("button", name="Ajouter au combat").click()
    expect(table.result).to_contain_text("Garde 4 rejoint le combat à la place 2")
    expect(table.result).to_contain_text("son tour viendra dans cette manche")
    expect(table.section.locator("[data-testid=fighter]").nth(1)).to_have_attribute(
        "data-character", str(g4.pk)
    )
    expect(table.row(g4).locator(".place")).to_have_text("2")
    expect(table.section.get_by_test_id("fight-turn")).to_have_text("Au tour de\u00a0: Garde 2")
    # The place typed is not kept for the next one; Garde 4 is no longer offered.
    expect(join.get_by_test_id("fight-join-place")).to_have_value("")
    expect(join.locator("option", has_text="Garde 4")).to_have_count(0)
    table.check("Garde 4 joins at place 2")
    page.screenshot(path=artifacts / f"fight-reinforcements-{mode}-joined.png", caret="initial")
    entry = AuditEntry.objects.filter(campaign=campaign, field="fight").latest("id")
    assert (entry.action, entry.rule_id) == ("fight_join", "R33")

    # The phone's strip follows, live: Garde 4 second in the order.
    table.phone_follows()
    order = strip.locator("ol.order li")
    expect(order).to_have_count(5)
    expect(order.nth(1)).to_have_text("Garde 4")
    expect(strip.get_by_test_id("fight-round")).to_have_text("Manche 2")
    table.phone_settled()
    phone.screenshot(path=artifacts / f"fight-reinforcements-{mode}-phone-joined.png")

    # Garde 4 plays this round, right after Garde 2.
    table.click("Tour suivant")
    expect(table.section.get_by_test_id("fight-turn")).to_have_text("Au tour de\u00a0: Garde 4")
    table.check("Garde 4's turn")

    # Garde 3 flees (not their turn): out of the order, the turn stays.
    table.row(g3).get_by_role("button", name="Retirer du combat\u00a0: Garde 3").click()
    expect(table.row(g3)).to_have_count(0)
    expect(table.result).to_contain_text("Garde 3 quitte le combat")
    expect(table.section.get_by_test_id("fight-turn")).to_have_text("Au tour de\u00a0: Garde 4")
    table.check("Garde 3 fled")
    # Garde 4 flees on their own turn: the turn passes to the next, Isaure.
    table.row(g4).get_by_role("button", name="Retirer du combat\u00a0: Garde 4").click()
    expect(table.row(g4)).to_have_count(0)
    expect(table.section.get_by_test_id("fight-turn")).to_have_text("Au tour de\u00a0: Isaure")
    table.check("Garde 4 fled on their turn")
    assert fight_of(campaign)["order"] == [str(g2.pk), str(pc.pk), str(g1.pk)]
    table.phone_follows()
    expect(strip.get_by_test_id("your-turn")).to_have_text("C’est votre tour")
    expect(strip.locator("ol.order li")).to_have_count(3)
    table.phone_settled()
    assert phone.evaluate(NO_RELOAD) == "still here"

    # A stale form (another tab, before Garde 2 was counted in): refused, its message in view.
    table.allowed.append(f"{live_server.url}/c/{campaign.pk}/fight/join/")
    page.evaluate(
        """([pk]) => {
          const select = document.querySelector('[data-testid=fight-join-who]');
          select.add(new Option('Garde 2', pk));
          select.value = pk;
        }""",
        [str(g2.pk)],
    )
    join.get_by_role("button", name="Ajouter au combat").click()
    error = table.result.get_by_test_id("fight-error")
    expect(error).to_contain_text("Garde 2 est déjà dans le combat.")
    table.in_view(error, "the refusal on screen")
    table.check("a stale join refused")
    assert fight_of(campaign)["order"] == [str(g2.pk), str(pc.pk), str(g1.pk)]
    page.screenshot(path=artifacts / f"fight-reinforcements-{mode}-refused.png", caret="initial")
    assert table.step >= 12

    # A reload keeps the order and the turn, on the dashboard and on the phone.
    page.reload()
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    rows = table.section.locator("[data-testid=fighter]")
    expect(rows).to_have_count(3)
    for place, character in enumerate((g2, pc, g1)):
        expect(rows.nth(place)).to_have_attribute("data-character", str(character.pk))
    expect(table.section.get_by_test_id("fight-round")).to_have_text("Manche 2")
    expect(table.section.get_by_test_id("fight-turn")).to_have_text("Au tour de\u00a0: Isaure")
    expect(table.row(pc)).to_have_class(re.compile(r"\bits-turn\b"))
    table.check("after a reload")
    gate.open.set()
    phone.reload()
    expect(strip.get_by_test_id("your-turn")).to_have_text("C’est votre tour")
    expect(strip.locator("ol.order li")).to_have_text(["Garde 2", "Isaure", "Garde 1"])
    phone.wait_for_function("() => !document.querySelector('.htmx-request')")
    gate.open.clear()
    page.screenshot(path=artifacts / f"fight-reinforcements-{mode}-reloaded.png", caret="initial")
    phone.screenshot(path=artifacts / f"fight-reinforcements-{mode}-phone-reloaded.png")
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert phone.evaluate("window.__htmx_errors") == []
