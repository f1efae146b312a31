"""The pictures and the dice's story in a browser (journal/charts.py, journal/stats.py): a
character's chart, the party's small multiples and the statistics page, at 1440x900 and on a
390x844 phone, with no console or htmx error and nothing wider than the screen."""

import pytest
from playwright.sync_api import expect

from play import services
from tests.e2e.pages import GM_VIEWPORT, HTMX_ERRORS, PHONE, log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SCREENS = {"desktop": GM_VIEWPORT, "phone": PHONE}


def evening(campaign, pc, other_pc, gm):
    """An evening: Isaure hit to 0 PV (R10), into the coma, stabilised, then awake with a
    sequel as the clock runs (R13); Gaspard spends Flux and is Gêné for a while; a night; and
    a hundred and more tests, the GM's typed in from a die loaded on 20, the server's fair."""
    hour = 60

    def clock(minutes):
        services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=minutes, dice=[])

    services.character_damage(character_id=pc.pk, actor=gm, amount=4, ignores_pa=True)
    clock(hour)
    services.flux_spend(character_id=other_pc.pk, actor=gm, amount=3)
    services.condition_add(character_id=other_pc.pk, actor=gm, kind="gene")
    clock(hour)
    services.character_damage(character_id=pc.pk, actor=gm, amount=9, ignores_pa=True, dice=[3])
    clock(30)
    services.character_stabilise(character_id=pc.pk, actor=gm, healer_esp=4, dice=[18])
    # Her first waking try succeeds (R13; a sequel on PUI, R14): awake before the night, whose
    # rest gives her Flux back (R17), so each of her lines has a step.
    services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=2 * hour, dice=[20, 2])
    services.condition_remove(character_id=other_pc.pk, actor=gm, kind="gene")
    clock(hour)
    services.party_night_rest(campaign_id=campaign.pk, actor=gm, hours=8)
    stat = next(iter(campaign.stats))
    for i in range(130):
        face = 20 if i % 7 == 0 else i % 20 + 1
        services.character_check(character_id=other_pc.pk, actor=gm, stat=stat, dice=[face])
    for _ in range(40):
        services.character_check(character_id=pc.pk, actor=gm, stat=stat, skill="Survie")


def _page(browser, live_server, console_errors, screen, username):
    context = browser.new_context(viewport=SCREENS[screen], locale="fr-FR")
    context.add_init_script(HTMX_ERRORS)
    page = console_errors(context.new_page())
    log_in(page, live_server.url, username)
    return context, page


def _clean(page, console_errors, screen):
    assert console_errors.errors == []
    assert page.evaluate("window.__htmx_errors") == []
    # Nothing wider than the screen: the charts scale, the tables scroll in their own box.
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREENS[screen]["width"]


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_the_charts_and_the_dice_story_read_on_a_laptop_and_a_phone(
    browser, live_server, console_errors, campaign, pc, other_pc, gm, artifacts, screen
):
    evening(campaign, pc, other_pc, gm)
    context, page = _page(browser, live_server, console_errors, screen, "gaelle_mj")
    base = f"{live_server.url}/c/{campaign.pk}"

    page.goto(f"{base}/characters/{pc.pk}/chart/")
    chart = page.get_by_test_id("chart")
    expect(chart.locator("svg.chart-svg")).to_be_visible()
    expect(chart.locator(".chart-pv .chart-step")).to_have_count(1)
    expect(chart.locator(".chart-flux .chart-step")).to_have_count(1)
    for kind in ("zero", "coma", "stabilised", "up", "sequel", "rest"):
        expect(chart.locator(f".moment-{kind}").first).to_be_attached()
    box = chart.locator("svg").bounding_box()
    assert box["width"] <= SCREENS[screen]["width"] and box["height"] > 100
    page.screenshot(path=artifacts / f"story-{screen}-character-chart.png", full_page=True)
    chart.screenshot(path=artifacts / f"story-{screen}-chart-only.png")
    chart.get_by_text("La courbe en tableau").click()
    expect(chart.locator("table")).to_contain_text("séquelle")
    _clean(page, console_errors, screen)

    page.goto(f"{base}/party-chart/")
    expect(page.get_by_test_id("party-charts").get_by_test_id("chart")).to_have_count(2)
    expect(page.get_by_test_id("luck-table")).to_contain_text("gaelle_mj")
    page.screenshot(path=artifacts / f"story-{screen}-party.png", full_page=True)
    _clean(page, console_errors, screen)

    page.goto(f"{base}/statistics/")
    faces = page.get_by_test_id("stats-faces")
    # 130 typed-in rolls, one in seven a 20: the GM's die is loaded; 40 server rolls: too few.
    typed = faces.get_by_test_id("histogram").nth(1)
    expect(typed).to_have_attribute("data-verdict", "suspicious")
    expect(typed.get_by_test_id("verdict")).to_contain_text("Suspect")
    server = faces.get_by_test_id("histogram").nth(0)
    expect(server).to_have_attribute("data-verdict", "none")
    expect(server.get_by_test_id("verdict")).to_contain_text("Pas encore de verdict")
    expect(page.get_by_test_id("stats-rollers")).to_contain_text("gaelle_mj")
    page.screenshot(path=artifacts / f"story-{screen}-statistics.png", full_page=True)
    _clean(page, console_errors, screen)

    page.goto(f"{base}/characters/{pc.pk}/")
    expect(page.get_by_test_id("character-chart")).to_be_visible()
    _clean(page, console_errors, screen)
    context.close()
