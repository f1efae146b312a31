"""NPC templates in the browser: the GM saves a guard's stat block from its
card's menu (« Enregistrer comme modèle »), finds it in the list, is refused a count too large
(the message beside the form, in view), then spawns three guards, which the dashboard shows at
full PV, numbered after the « Garde » on the table; then types a template from the blank form
(a name taken refused first). 1440 x 900, DEBUG on and off, no console or htmx error."""

import pytest
from playwright.sync_api import expect

from characters.models import Character
from tests.e2e.pages import more_menu, open_quiet_dashboard

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_guard_saved_as_a_template_is_spawned_in_numbers(
    browser, live_server, console_errors, campaign, pc, npc, artifacts, debug
):
    mode = "debug" if debug else "production"
    Character.objects.filter(pk=npc.pk).update(name="Garde")
    context, page = open_quiet_dashboard(browser, live_server, console_errors, campaign)
    card = page.locator(f"#character-{npc.pk}")
    more_menu(card).get_by_role("button", name="Enregistrer comme modèle").click()
    expect(page.locator(".messages")).to_contain_text("Modèle « Garde » enregistré")
    templates = page.get_by_test_id("npc-template")
    expect(templates).to_have_count(1)
    expect(templates.first).to_contain_text("Garde")
    expect(templates.first).to_contain_text(f"PV max {npc.pv_max}")

    allowed = ("/spawn/", "/templates/new/")
    templates.first.get_by_label("Nombre de copies").fill("50")
    templates.first.get_by_role("button", name="Ajouter à la table").click()
    error = page.get_by_test_id("spawn-error")
    expect(error).to_have_text("Choisissez entre 1 et 20 copies.")
    box = error.bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= 900
    page.screenshot(path=artifacts / f"npc-templates-{mode}-refused.png")

    page.get_by_test_id("npc-template").first.get_by_label("Nombre de copies").fill("3")
    page.get_by_test_id("npc-template").first.get_by_role(
        "button", name="Ajouter à la table"
    ).click()
    expect(page.locator(".messages")).to_contain_text("3 copies ajoutées à la table")
    # « Garde » is on the table: it counts as the 1, keeps its name, the new ones follow it.
    spawned = Character.objects.filter(
        campaign=campaign, name__in=["Garde 2", "Garde 3", "Garde 4"]
    )
    assert spawned.count() == 3
    assert Character.objects.get(pk=npc.pk).name == "Garde"
    for guard in spawned:
        expect(page.locator(f"#character-{guard.pk}").get_by_test_id("pv").first).to_contain_text(
            f"{npc.pv_max} / {npc.pv_max}"
        )
    page.screenshot(path=artifacts / f"npc-templates-{mode}-spawned.png")

    # A template typed from a blank form: a name taken is refused beside the field, then saved.
    page.goto(f"{live_server.url}/c/{campaign.pk}/templates/")
    blank = page.get_by_test_id("npc-template-new")
    blank.locator("summary").click()
    blank.get_by_label("Nom").fill("garde")
    blank.get_by_label("PV max").fill("9")
    blank.get_by_label("Flux max").fill("0")
    blank.get_by_role("button", name="Enregistrer le modèle").click()
    blank = page.get_by_test_id("npc-template-new")
    expect(blank).to_contain_text("Un modèle « Garde » existe déjà")
    expect(blank.get_by_label("PV max")).to_have_value("9")
    page.screenshot(path=artifacts / f"npc-templates-{mode}-blank-refused.png", full_page=True)
    blank.get_by_label("Nom").fill("Archer")
    blank.get_by_role("button", name="Enregistrer le modèle").click()
    expect(page.locator(".messages")).to_contain_text("Modèle « Archer » enregistré")
    expect(page.get_by_test_id("npc-template")).to_have_count(2)
    assert page.evaluate("window.__htmx_errors") == []
    unexpected = [
        line
        for line in console_errors.errors
        if not (any(url in line for url in allowed) and ("status of 4" in line or line[:1] == "4"))
    ]
    assert unexpected == []
    context.close()
