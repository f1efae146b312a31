"""A character down at a glance: the GM (1440x900) deals damage that takes Isaure below 0 PV
in a campaign where players roll their rules rolls (R34), so her Survie (R10) waits for her
player. Her card, then her compact row, say it with an icon and words; her player's phone
(390x844) shows the same on her sheet, and another player's phone on the party list. A
refused action (more Flux than she has) leaves it in place. DEBUG on and off; screenshots in
test-artifacts/."""

import re

import pytest
from playwright.sync_api import expect

from campaign.models import Campaign, PartyVisibility
from tests.e2e.pages import NO_RELOAD, PHONE, minus, open_context, open_quiet_dashboard

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PENDING = "à 0 PV ou moins · jet de Survie en attente"


def _phone(browser, live_server, console_errors, username, scheme="light"):
    return open_context(
        browser,
        live_server,
        console_errors,
        PHONE,
        username,
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        color_scheme=scheme,
    )


def test_a_character_below_0_pv_reads_down_on_the_card_the_row_and_the_phones(
    browser, live_server, console_errors, campaign, pc, other_pc, artifacts, debug
):
    mode = "debug" if debug else "production"
    Campaign.objects.filter(pk=campaign.pk).update(
        players_roll_rules=True, party_visibility=PartyVisibility.BARS
    )
    context, gm = open_quiet_dashboard(browser, live_server, console_errors, campaign)
    gm.evaluate(f"{NO_RELOAD} = 'still here'")
    card = gm.locator(f"#character-{pc.pk}")
    expect(card.get_by_test_id("down")).to_have_count(0)

    # A refused action, said in place: nothing down yet.
    card.locator("input[name=amount]").fill("8")
    card.get_by_role("button", name="−Flux", exact=True).click()
    expect(gm.locator(f"#panel-{pc.pk}")).to_contain_text("Isaure n’a que 7 Flux (il en faut 8).")
    expect(card.get_by_test_id("down")).to_have_count(0)
    expect(card.get_by_test_id("vital")).to_have_text("debout")

    # 16 − 2 PA: −3 PV, and the Survie waits for Isaure's player.
    card.locator("input[name=amount]").fill("16")
    card.get_by_role("button", name="Dégâts", exact=True).click()
    expect(card.get_by_test_id("pv")).to_have_text(f"{minus(-3)} / {pc.pv_max}")
    tag = card.get_by_test_id("down")
    expect(tag).to_have_text(PENDING)
    expect(tag).to_have_attribute("data-down", "pv")
    expect(tag.locator("svg.icon")).to_be_visible()
    expect(card).to_have_class(re.compile(r"\bis-down\b"))
    # The stylesheet's danger colour (light theme), and the card's stripe in it.
    assert tag.evaluate("el => getComputedStyle(el).color") == "rgb(161, 29, 29)"
    assert card.evaluate("el => getComputedStyle(el).borderLeftWidth") == "4px"
    gm.evaluate("window.scrollTo(0, 0)")
    gm.screenshot(path=artifacts / f"down-{mode}-gm-card.png", caret="initial")

    # Two damages, the refused one included, without a reload; the view switch then reloads.
    assert gm.evaluate(NO_RELOAD) == "still here"
    assert gm.evaluate("window.__htmx_errors") == []

    # The compact row says the same, capitalised, with the icon (and its title in full).
    gm.get_by_role("button", name="Compact", exact=True).click()
    row = gm.locator(f"#character-{pc.pk}[data-testid=row]")
    row_tag = row.get_by_test_id("down")
    expect(row_tag).to_have_text(PENDING[0].upper() + PENDING[1:])
    expect(row_tag.locator("svg.icon")).to_be_visible()
    expect(row.get_by_test_id("request-tag")).to_be_visible()
    gm.screenshot(path=artifacts / f"down-{mode}-gm-row.png", caret="initial")

    # Her player's phone: the sheet's card.
    phone_context, phone = _phone(browser, live_server, console_errors, "paul_joueur")
    phone.goto(f"{live_server.url}/c/{campaign.pk}/characters/{pc.pk}/")
    mine = phone.locator(f"#character-{pc.pk}")
    expect(mine.get_by_test_id("down")).to_have_text(PENDING)
    expect(mine.get_by_test_id("down").locator("svg.icon")).to_be_visible()
    phone.screenshot(path=artifacts / f"down-{mode}-phone-sheet.png", caret="initial")

    # Another player's phone, in the dark theme: the party list (its bars shown, so its PV).
    other_context, other = _phone(browser, live_server, console_errors, "olivia_joueuse", "dark")
    other.goto(f"{live_server.url}/c/{campaign.pk}/")
    member = other.locator(f"#party-{pc.pk}")
    expect(member.get_by_test_id("down")).to_have_text(PENDING)
    expect(member.get_by_test_id("down").locator("svg.icon")).to_be_visible()
    colour = member.get_by_test_id("down").evaluate("el => getComputedStyle(el).color")
    assert colour == "rgb(255, 123, 114)"  # the dark theme's danger colour
    member.scroll_into_view_if_needed()
    other.screenshot(path=artifacts / f"down-{mode}-phone-party.png", caret="initial")

    for page in (gm, phone, other):
        assert page.evaluate("window.__htmx_errors") == []
    context.close()
    phone_context.close()
    other_context.close()
    # The refused action's 400 is the answer the browser shows; nothing else may fail.
    assert [e for e in console_errors.errors if "/act/spend_flux/" not in e] == []
