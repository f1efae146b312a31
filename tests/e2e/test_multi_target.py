"""Several targets at once: the GM (1440x900) selects four cards (two clicks, one of them a
shift-range, and x on the fourth), deals them damage in one action (Isaure alone falls below
0 PV and rolls her own Survie, R10, shown in the group's result), gives them all a condition
without a reload, then undoes that batch as one; a refused action (no amount) says why in
view; at last the damage is undone as one from the history. The two players' phones
(390x844) follow each step live. Then the compact view: a range of rows, healed at once.
DEBUG on and off; screenshots in test-artifacts/."""

import re

import pytest
from playwright.sync_api import expect

from campaign.models import Campaign
from characters.models import Character, Condition, Kind
from journal.models import AuditEntry
from tests.e2e.pages import (
    GM_VIEWPORT,
    NO_RELOAD,
    PHONE,
    axe_violations,
    minus,
    open_gated_sheet,
    open_quiet_dashboard,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def in_view(locator, viewport, where):
    box = locator.bounding_box()
    assert box is not None, where
    assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"] + 1, (where, box)
    assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"] + 1, (where, box)


def phone_pv(phone, character, pv):
    expect(phone.locator(f"#character-{character.pk}").get_by_test_id("pv")).to_have_text(
        f"{minus(pv)} / {character.pv_max}"
    )


def test_damage_then_a_condition_on_four_selected_cards_then_undo_as_one(
    browser, live_server, console_errors, campaign, pc, other_pc, npc, artifacts, debug
):
    mode = "debug" if debug else "production"
    Campaign.objects.filter(pk=campaign.pk).update(players_roll_rules=False)
    Character.objects.filter(pk=pc.pk).update(pv=9)
    Character.objects.filter(pk=npc.pk).update(pv=20, pv_max=20)
    guard = Character.objects.create(
        campaign=campaign, name="Garde", kind=Kind.NPC, stats=npc.stats,
        pv=15, pv_max=15, flux=2, flux_max=2,
    )  # fmt: skip
    four = [pc, other_pc, npc, guard]
    for character in four:
        character.refresh_from_db()

    context, gm = open_quiet_dashboard(browser, live_server, console_errors, campaign)
    gm.evaluate(f"{NO_RELOAD} = 'still here'")
    phone_context, phone, gate = open_gated_sheet(
        browser, live_server, console_errors, campaign, pc
    )
    phone.evaluate(f"{NO_RELOAD} = 'still here'")
    other_context, other, other_gate = _other_phone(
        browser, live_server, console_errors, campaign, other_pc
    )
    bar = gm.get_by_test_id("group-bar")
    expect(bar).to_be_hidden()

    # The slots read Garde, le Vicomte, Gaspard, Isaure (NPCs first, then by name).
    slots = gm.locator("[data-character-id]")
    order = [int(slots.nth(i).get_attribute("data-character-id")) for i in range(4)]
    assert order == [guard.pk, npc.pk, other_pc.pk, pc.pk]
    gm.get_by_label("Sélectionner Garde").check()
    expect(bar).to_be_visible()
    expect(bar.get_by_test_id("group-count")).to_have_text("1 personnage sélectionné")
    # Shift: Gaspard, and le Vicomte between them.
    gm.get_by_label("Sélectionner Gaspard").click(modifiers=["Shift"])
    expect(gm.get_by_label("Sélectionner Le Vicomte masque")).to_be_checked()
    # x on the focused card: Isaure.
    gm.locator(f"[data-character-id='{pc.pk}']").focus()
    gm.keyboard.press("x")
    expect(gm.get_by_label("Sélectionner Isaure")).to_be_checked()
    expect(bar.get_by_test_id("group-count")).to_have_text("4 personnages sélectionnés")
    in_view(bar, GM_VIEWPORT, "the bar at 1440x900")

    # A refused action: no amount. Its message in the bar, in view; nothing written.
    entries = AuditEntry.objects.count()
    bar.get_by_role("link", name="Dégâts", exact=True).click()
    form = gm.locator("#panel-group form")
    expect(form).to_contain_text("Dégâts aux personnages sélectionnés")
    form.locator("input[name=amount]").fill("")
    form.get_by_role("button", name="Appliquer").click()
    error = gm.locator("#panel-group .errors").first
    expect(error).to_contain_text("Ce champ est obligatoire.")
    in_view(error, GM_VIEWPORT, "the refusal")
    assert AuditEntry.objects.count() == entries
    gm.screenshot(path=artifacts / f"multi-{mode}-refused.png", caret="initial")

    # 12 damage, through each one's PA: Isaure (PA 2) −1, Gaspard (PA 4) 10, the others 8, 3.
    form = gm.locator("#panel-group form")
    form.locator("input[name=amount]").fill("12")
    form.locator("input[name=cause]").fill("l’explosion")
    form.get_by_role("button", name="Appliquer").click()
    result = gm.locator("#result-group")
    outcomes = result.get_by_test_id("group-outcome")
    expect(outcomes).to_have_count(4)
    isaure = result.locator(f"[data-character='{pc.pk}']")
    expect(isaure).to_contain_text(f"PV 9 → {minus(-1)}")
    expect(isaure).to_contain_text("Survie")
    expect(result.locator(f"[data-character='{other_pc.pk}']")).to_contain_text("PV 18 → 10")
    expect(result.locator(f"[data-character='{guard.pk}']")).to_contain_text("PV 15 → 3")
    expect(result.locator(f"[data-character='{guard.pk}']")).not_to_contain_text("Survie")
    expect(gm.locator("#panel-group")).to_be_empty()
    in_view(result, GM_VIEWPORT, "the group's result")
    for character, pv in ((pc, -1), (other_pc, 10), (npc, 8), (guard, 3)):
        phone_pv(gm, character, pv)
    batch = {e.batch for e in AuditEntry.objects.filter(action="damage")}
    assert len(batch) == 1
    # The boxes, the bar and its result, for a screen reader and a keyboard too.
    assert axe_violations(gm) == []
    gm.screenshot(path=artifacts / f"multi-{mode}-damage.png", caret="initial")

    # The players' phones follow, live.
    gate.open.set()
    other_gate.open.set()
    phone_pv(phone, pc, -1)
    expect(phone.locator(f"#character-{pc.pk}").get_by_test_id("down")).to_be_visible()
    phone_pv(other, other_pc, 10)
    phone.screenshot(path=artifacts / f"multi-{mode}-phone-damage.png", caret="initial")

    # The same four, without a reload: Gêné for all.
    expect(gm.locator("input[name=selected]:checked")).to_have_count(4)
    bar.get_by_role("link", name="État", exact=True).click()
    form = gm.locator("#panel-group form")
    form.locator("select[name=kind]").select_option("gene")
    form.get_by_role("button", name="Appliquer").click()
    expect(result.get_by_test_id("group-outcome")).to_have_count(4)
    for character in four:
        expect(gm.locator(f"#character-{character.pk} .conditions")).to_contain_text("Gêné")
    assert Condition.objects.filter(kind="gene").count() == 4
    expect(phone.locator(f"#character-{pc.pk} .conditions")).to_contain_text("Gêné")
    expect(other.locator(f"#character-{other_pc.pk} .conditions")).to_contain_text("Gêné")
    gm.screenshot(path=artifacts / f"multi-{mode}-condition.png", caret="initial")

    # Undone as one: the four lose it, the phones too; their PV stay as the damage left them.
    result.get_by_test_id("undo").click()
    expect(result).to_contain_text("Défait. Modifications rétablies : 4")
    for character in four:
        expect(gm.locator(f"#character-{character.pk}")).not_to_contain_text("Gêné")
    assert Condition.objects.filter(kind="gene").count() == 0
    expect(phone.locator(f"#character-{pc.pk}")).not_to_contain_text("Gêné")
    expect(other.locator(f"#character-{other_pc.pk}")).not_to_contain_text("Gêné")
    phone_pv(phone, pc, -1)
    in_view(result, GM_VIEWPORT, "the undo's result")
    gm.screenshot(path=artifacts / f"multi-{mode}-undone.png", caret="initial")
    other.screenshot(path=artifacts / f"multi-{mode}-phone-undone.png", caret="initial")

    # The GM turns to one card: the bar's result steps aside (it would cover the card's
    # answer), the four stay selected.
    gm.locator(f"#character-{guard.pk}").get_by_role("link", name="Ajouter un état").click()
    expect(gm.locator(f"#panel-{guard.pk} form")).to_be_visible()
    expect(result).to_be_empty()
    expect(bar.get_by_test_id("group-count")).to_have_text("4 personnages sélectionnés")
    in_view(gm.locator(f"#panel-{guard.pk} form"), GM_VIEWPORT, "the card's form")

    # Unselect all: the bar goes.
    bar.get_by_role("button", name="Tout désélectionner").click()
    expect(bar).to_be_hidden()
    expect(gm.locator("input[name=selected]:checked")).to_have_count(0)

    assert gm.evaluate(NO_RELOAD) == "still here"
    assert phone.evaluate(NO_RELOAD) == "still here"
    assert other.evaluate(NO_RELOAD) == "still here"
    for page in (gm, phone, other):
        assert page.evaluate("window.__htmx_errors") == []

    # The damage itself, undone as one from the history: the four get their PV back (Isaure
    # up again, her Survie undone), and the phones follow, live.
    entry = AuditEntry.objects.filter(action="damage", character=guard, field="pv").get()
    gm.goto(f"{live_server.url}/c/{campaign.pk}/history/")
    action = gm.locator("[data-testid=action]", has=gm.locator(f"#entry-{entry.pk}"))
    action.locator("summary").first.click()
    undo = gm.locator(f"#entry-{entry.pk}").get_by_role(
        "button", name=re.compile(r"^Défaire toute l’action \(\d+ modifications\)")
    )
    undo.click()
    expect(gm.locator(".messages")).to_contain_text("Défait")
    damage_batch = AuditEntry.objects.filter(batch=entry.batch)
    assert damage_batch.filter(kind="change", reverted_by__isnull=True).count() == 0
    for character, pv in ((pc, 9), (other_pc, 18), (npc, 20), (guard, 15)):
        character.refresh_from_db()
        assert character.pv == pv, character.name
    assert pc.vital == "up"
    phone_pv(phone, pc, 9)
    expect(phone.locator(f"#character-{pc.pk}").get_by_test_id("down")).to_have_count(0)
    phone_pv(other, other_pc, 18)
    assert phone.evaluate(NO_RELOAD) == "still here"
    phone.screenshot(path=artifacts / f"multi-{mode}-phone-damage-undone.png", caret="initial")

    refused = f"/c/{campaign.pk}/group/damage/"
    assert [e for e in console_errors.errors if refused not in e] == []
    context.close()
    phone_context.close()
    other_context.close()


def test_the_compact_rows_are_selected_and_healed_at_once(
    browser, live_server, console_errors, campaign, pc, other_pc, npc, artifacts, debug
):
    mode = "debug" if debug else "production"
    Character.objects.filter(pk__in=[pc.pk, other_pc.pk, npc.pk]).update(pv=5)
    context, gm = open_quiet_dashboard(browser, live_server, console_errors, campaign)
    gm.get_by_role("button", name="Compact", exact=True).click()
    expect(gm.locator("[data-testid=row]")).to_have_count(3)
    gm.evaluate(f"{NO_RELOAD} = 'still here'")
    bar = gm.get_by_test_id("group-bar")

    # Le Vicomte, then shift on Isaure: the three rows.
    gm.get_by_label("Sélectionner Le Vicomte masque").check()
    gm.get_by_label("Sélectionner Isaure").click(modifiers=["Shift"])
    expect(bar.get_by_test_id("group-count")).to_have_text("3 personnages sélectionnés")
    row = gm.locator(f"#character-{npc.pk}[data-testid=row]")
    expect(row).to_be_visible()
    bar.get_by_role("link", name="Soigner", exact=True).click()
    form = gm.locator("#panel-group form")
    form.locator("input[name=amount]").fill("4")
    form.get_by_role("button", name="Appliquer").click()
    expect(bar.get_by_test_id("group-outcome")).to_have_count(3)
    for character in (pc, other_pc, npc):
        line = gm.locator(f"#character-{character.pk}[data-testid=row]").get_by_test_id("pv")
        expect(line).to_have_text(re.compile(r"^9/"))
    in_view(bar, GM_VIEWPORT, "the bar over the rows")
    gm.screenshot(path=artifacts / f"multi-{mode}-compact.png", caret="initial")

    # On a phone-sized window the bar stays in view, its buttons within the width.
    gm.set_viewport_size(PHONE)
    in_view(bar, PHONE, "the bar at 390x844")
    in_view(bar.get_by_role("link", name="Test", exact=True), PHONE, "the last button")
    gm.screenshot(path=artifacts / f"multi-{mode}-compact-390.png", caret="initial")

    assert gm.evaluate(NO_RELOAD) == "still here"
    assert gm.evaluate("window.__htmx_errors") == []
    assert console_errors.errors == []
    context.close()


def _other_phone(browser, live_server, console_errors, campaign, character):
    """Gaspard's player on her own phone, her polls held by a Gate as the first phone's."""
    from django.urls import reverse

    from tests.e2e.pages import Gate, open_context

    context, page = open_context(
        browser, live_server, console_errors, PHONE, "olivia_joueuse",
        device_scale_factor=2, is_mobile=True, has_touch=True,
    )  # fmt: skip
    gate = Gate()
    poll = reverse("campaign_events_poll", args=[campaign.pk])
    context.route(f"{live_server.url}{poll}**", gate.route)
    page.goto(f"{live_server.url}/c/{campaign.pk}/characters/{character.pk}/")
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    return context, page, gate
