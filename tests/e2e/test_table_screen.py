"""The table screen and NPCs in numbers, as a GM runs them at the table.

Three browser contexts: the GM's dashboard (1440 x 900), a player's phone (390 x 844) and the
table screen on a TV (1280 x 720) opened through the campaign's screen link, without an
account. The GM duplicates « Garde » five times (a refused count first), starts a fight with
three guards and the player's character, moves the turn and deals damage: the screen follows;
a GM-only damage and a GM-only free roll never show on it; a guard taken off the table leaves
the dashboard and the screen, comes back in play from the list and into the next fight; the
link revoked, the screen says so in French. Under DEBUG on and off.

The screen refetches its part every two seconds (static/screen.js); its requests go through a
Gate the test opens while it waits for the screen, as the phone's polls do (tests/e2e/pages.py:
on SQLite a read crossing an action's write on the test server's one connection fails, which
no real server does).
"""

import re

import pytest
from playwright.sync_api import expect

from campaign.models import Campaign, PartyVisibility
from characters.models import Character
from play.services.table import screen_link_create
from tests.e2e.pages import (
    NO_RELOAD,
    Gate,
    confirm,
    more_menu,
    open_gated_sheet,
    open_quiet_dashboard,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

TV = {"width": 1280, "height": 720}


@pytest.fixture
def table(browser, live_server, console_errors, campaign, gm, pc, other_pc, npc, debug):
    Campaign.objects.filter(pk=campaign.pk).update(party_visibility=PartyVisibility.BARS)
    Character.objects.filter(pk=npc.pk).update(name="Garde")
    token = screen_link_create(campaign_id=campaign.pk, actor=gm)
    gm_context, page = open_quiet_dashboard(browser, live_server, console_errors, campaign)
    phone_context, phone, phone_gate = open_gated_sheet(
        browser, live_server, console_errors, campaign, pc
    )
    tv_context = browser.new_context(viewport=TV, locale="fr-FR")
    tv = console_errors(tv_context.new_page())
    screen_gate = Gate()
    tv_context.route(f"{live_server.url}/screen/**/part/**", screen_gate.route_part)
    tv.goto(f"{live_server.url}/screen/{campaign.pk}/{token}/")
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    yield page, phone, phone_gate, tv, screen_gate
    for context in (gm_context, phone_context, tv_context):
        context.close()


def _route_part(self, route):
    # The screen's part, held (its last answer stands) until the test lets it through.
    if self.open.is_set():
        route.continue_()
    else:
        route.abort()


Gate.route_part = _route_part


def fight_order(campaign) -> list[str]:
    campaign.refresh_from_db()
    return [str(key) for key in campaign.fight["order"]] if campaign.fight else []


def test_the_table_screen_follows_the_fight_and_never_shows_the_gms_secrets(
    table, live_server, console_errors, campaign, pc, npc, artifacts, debug
):
    page, phone, phone_gate, tv, screen_gate = table
    mode = "debug" if debug else "production"
    allowed = []  # answers refused on purpose

    def screen_follows(check):
        """Let the screen refetch until `check` holds, then hold it again."""
        screen_gate.open.set()
        try:
            check()
        finally:
            screen_gate.open.clear()

    def unexpected():
        return [
            line
            for line in console_errors.errors
            if not any(url in line for url in allowed)
            and "net::ERR_FAILED" not in line  # the gate's held refetches
            and "Failed to fetch" not in line
        ]

    # The screen: dark, large, no control at all.
    expect(tv.get_by_test_id("screen-party")).to_contain_text(pc.name)
    assert tv.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(14, 13, 10)"
    assert tv.locator("button, input, select, textarea, form").count() == 0
    expect(tv.get_by_test_id("screen-clock")).to_contain_text("scène 1")
    assert (
        float(tv.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")) >= 20
    )

    # « Dupliquer… » from the guard's card menu: a refused count first, in the panel.
    card = page.locator(f"#character-{npc.pk}")
    more_menu(card).get_by_role("link", name="Dupliquer…").click()
    panel = page.locator(f"#panel-{npc.pk}")
    panel.get_by_label("Nombre de copies").fill("50")
    allowed.append(f"/characters/{npc.pk}/duplicate/")
    panel.get_by_role("button", name="Dupliquer", exact=True).click()
    expect(panel.get_by_test_id("duplicate-error")).to_contain_text("entre 1 et 20")
    assert page.evaluate(NO_RELOAD) == "still here"
    panel.get_by_label("Nombre de copies").fill("5")
    panel.get_by_role("button", name="Dupliquer", exact=True).click()
    expect(page.locator(".messages")).to_contain_text("5 copies ajoutées à la table")
    guards = {
        c.name: c for c in Character.objects.filter(campaign=campaign, name__startswith="Garde")
    }
    assert sorted(guards) == [f"Garde {n}" for n in range(1, 7)]
    for guard in guards.values():
        expect(page.locator(f"#character-{guard.pk}")).to_be_visible()
        assert (guard.pv, guard.flux) == (guard.pv_max, guard.flux_max)
    page.screenshot(path=artifacts / f"table-screen-gm-duplicated-{mode}.png")

    # The fight: the player's character and three guards, in the order ticked.
    fighters = [pc, guards["Garde 1"], guards["Garde 2"], guards["Garde 3"]]
    section = page.locator("#fight")
    section.locator("summary").click()
    for character in fighters:
        section.locator(f"input[name=fighters][value='{character.pk}']").check()
    section.get_by_role("button", name="Commencer le combat").click()
    expect(page.locator("#result-fight")).to_contain_text("Début du combat")
    order = fight_order(campaign)
    assert len(order) == 4

    def turn_is(key):
        fighters_shown = tv.get_by_test_id("screen-fighter")
        expect(fighters_shown).to_have_count(len(fight_order(campaign)))
        expect(tv.locator(f"[data-testid=screen-fighter][data-character='{key}']")).to_have_class(
            re.compile(r"\bits-turn\b")
        )
        expect(tv.get_by_test_id("screen-turn")).to_have_count(1)

    screen_follows(lambda: turn_is(order[0]))
    expect(tv.get_by_test_id("screen-round")).to_have_text("Manche 1")

    # The phone follows the fight too.
    phone_gate.open.set()
    expect(phone.get_by_test_id("fight-strip")).to_contain_text("Manche 1")
    phone.wait_for_function("() => !document.querySelector('.htmx-request')")
    phone_gate.open.clear()

    # The next turn: the screen's highlight moves on.
    with page.expect_response(lambda r: "/fight/next/" in r.url):
        section.get_by_role("button", name="Tour suivant").click()
    page.wait_for_function("() => !document.querySelector('.htmx-request')")
    campaign.refresh_from_db()
    current = order[int(campaign.fight["turn"])]
    assert current == order[1]
    screen_follows(lambda: turn_is(current))

    # A damage everyone sees reaches the screen's bars.
    pc_card = page.locator(f"#character-{pc.pk}")
    pc_card.locator("input[name=amount]").fill("3")
    with page.expect_response(lambda r: "/act/damage/" in r.url):
        pc_card.get_by_role("button", name="Dégâts", exact=True).click()
    expect(page.locator(f"#result-{pc.pk}")).to_contain_text("PV")
    page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-settling')")
    pc.refresh_from_db()
    told = pc.pv
    member = tv.locator(f"[data-testid=screen-member][data-character='{pc.pk}']")
    screen_follows(
        lambda: expect(member.get_by_test_id("screen-pv")).to_have_text(f"{told} / {pc.pv_max}")
    )
    tv.screenshot(path=artifacts / f"table-screen-tv-fight-{mode}.png")

    # A GM-only damage: the GM's card shows it, the screen never does.
    pc_card = page.locator(f"#character-{pc.pk}")
    pc_card.get_by_test_id("visibility").select_option("gm")
    pc_card.locator("input[name=amount]").fill("4")
    with page.expect_response(lambda r: "/act/damage/" in r.url):
        pc_card.get_by_role("button", name="Dégâts", exact=True).click()
    expect(page.locator(f"#result-{pc.pk}")).to_contain_text("PV")
    page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-settling')")
    pc.refresh_from_db()
    assert pc.pv < told
    expect(page.locator(f"#character-{pc.pk}").get_by_test_id("pv")).to_contain_text(str(pc.pv))
    screen_gate.open.set()
    # Three refetches at least, each answered with the same screen.
    with tv.expect_response(re.compile(r"/part/$")):
        pass
    tv.wait_for_timeout(4500)
    screen_gate.open.clear()
    expect(member.get_by_test_id("screen-pv")).to_have_text(f"{told} / {pc.pv_max}")
    assert str(pc.pv) not in member.inner_text()
    assert "MJ" not in tv.locator("main").inner_text()

    # A GM-only free roll (R9) for the one whose turn it is: the GM reads it, the screen never.
    shown_before = tv.locator("main").inner_html()
    page.locator("#party-bar").get_by_role("link", name="Jet libre", exact=True).click()
    free = page.locator("#panel-party")
    free.locator("input[name=expression]").fill("3d7+11")
    free.locator("select[name=character]").select_option(str(pc.pk))
    free.locator("select[name=visibility]").select_option("gm")
    free.locator("input[name=dice]").fill("1, 2, 4")
    free.get_by_role("button", name="Appliquer").click()
    expect(page.locator("#result-party")).to_contain_text("jet libre 3d7+11 → 1 + 2 + 4 + 11 = 18")
    page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-settling')")
    screen_gate.open.set()
    with tv.expect_response(re.compile(r"/part/$")):
        pass
    tv.wait_for_timeout(2500)
    screen_gate.open.clear()
    shown = tv.locator("body").inner_text()
    for secret in ("3d7", "1 + 2 + 4", "= 18", "jet libre", "Jet libre"):
        assert secret not in shown, secret
    assert tv.locator("main").inner_html() == shown_before

    # Garde 2 falls: the screen says so in words, beside an icon.
    garde2 = guards["Garde 2"]
    card2 = page.locator(f"#character-{garde2.pk}")
    card2.locator("input[name=amount]").fill("99")
    with page.expect_response(lambda r: "/act/damage/" in r.url):
        card2.get_by_role("button", name="Dégâts", exact=True).click()
    page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-settling')")
    garde2.refresh_from_db()
    assert garde2.vital != "up"
    fallen = tv.locator(f"[data-testid=screen-fighter][data-character='{garde2.pk}']")
    screen_follows(lambda: expect(fallen.get_by_test_id("screen-down")).to_be_visible())
    expect(fallen.get_by_test_id("screen-down")).to_contain_text(
        {"borrowed_time": "En sursis", "dead": "Mort", "coma": "Dans le coma"}[garde2.vital]
    )
    assert fallen.locator("svg.icon").count() == 1
    tv.screenshot(path=artifacts / f"table-screen-tv-down-{mode}.png")

    # « Retirer de la table » for Garde 2, mid-fight: off the dashboard and the screen.
    more_menu(page.locator(f"#character-{garde2.pk}")).get_by_role(
        "button", name="Retirer de la table"
    ).click()
    expect(page.locator(".messages")).to_contain_text("Garde 2 quitte la table")
    expect(page.locator(f"#character-{garde2.pk}")).to_have_count(0)
    assert str(garde2.pk) not in fight_order(campaign)
    screen_follows(
        lambda: expect(
            tv.locator(f"[data-testid=screen-fighter][data-character='{garde2.pk}']")
        ).to_have_count(0)
    )
    expect(tv.get_by_test_id("screen-fighter")).to_have_count(3)

    # Back in play from the list, then into the next fight: back on the screen.
    page.get_by_test_id("nav-off-table").click()
    listed = page.get_by_test_id("off-table-character")
    expect(listed).to_have_count(1)
    expect(listed).to_contain_text("Garde 2")
    page.screenshot(path=artifacts / f"table-screen-off-table-{mode}.png")
    listed.get_by_role("button", name="Remettre en jeu").click()
    expect(page.locator(".messages")).to_contain_text("Garde 2 est de retour en jeu")
    page.goto(f"{live_server.url}/c/{campaign.pk}/")
    expect(page.locator(f"#character-{garde2.pk}")).to_be_visible()
    page.locator("#fight").get_by_role("button", name="Fin du combat").click()
    confirm(page)
    expect(page.locator("#result-fight")).to_contain_text("Fin du combat")
    section = page.locator("#fight")
    section.locator("summary").click()
    for character in (garde2, pc):
        section.locator(f"input[name=fighters][value='{character.pk}']").check()
    section.get_by_role("button", name="Commencer le combat").click()
    expect(page.locator("#result-fight")).to_contain_text("Début du combat")
    screen_follows(lambda: turn_is(str(garde2.pk)))
    page.screenshot(path=artifacts / f"table-screen-gm-{mode}.png")
    tv.screenshot(path=artifacts / f"table-screen-tv-{mode}.png")

    # The link revoked on the settings page: the screen says so, in French.
    page.goto(f"{live_server.url}/c/{campaign.pk}/settings/")
    page.get_by_role("button", name="Révoquer le lien").click()
    expect(page.locator(".messages")).to_contain_text("ne marche plus")
    allowed.append("/part/")
    screen_follows(
        lambda: expect(tv.get_by_test_id("screen-gone")).to_contain_text(
            "Ce lien d’écran de table ne marche plus"
        )
    )
    tv.screenshot(path=artifacts / f"table-screen-tv-revoked-{mode}.png")
    page.locator("#screen").scroll_into_view_if_needed()
    page.screenshot(path=artifacts / f"table-screen-settings-{mode}.png")
    # The phone caught up with the second fight.
    phone_gate.open.set()
    expect(phone.get_by_test_id("fight-strip").locator("ol.order li")).to_have_count(2)
    phone.wait_for_function("() => !document.querySelector('.htmx-request')")
    phone_gate.open.clear()
    phone.screenshot(path=artifacts / f"table-screen-phone-{mode}.png")
    assert page.evaluate("window.__htmx_errors") == []
    assert unexpected() == []
