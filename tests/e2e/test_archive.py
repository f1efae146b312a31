"""The GM downloads the campaign's archive from the settings page ("own your data"),
on a laptop (1440 x 900) and a phone (390 x 844), DEBUG on and off; a player has no such
link and is refused the file. Screenshots in test-artifacts/."""

import json
from pathlib import Path

import pytest
from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper
from django.urls import reverse
from playwright.sync_api import expect

from tests.e2e.pages import GM_VIEWPORT, PHONE, log_in
from tests.play.steps import run

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"1440": GM_VIEWPORT, "390": PHONE}


@pytest.fixture(params=[True, False], ids=["debug-on", "debug-off"])
def debug(request, settings, monkeypatch):
    settings.DEBUG = request.param
    if request.param and connection.vendor == "sqlite":
        # As tests/e2e/test_gm_session.py: DEBUG's query log is not safe across the test
        # server's threads sharing one in-memory SQLite connection.
        monkeypatch.setattr(BaseDatabaseWrapper, "queries_logged", property(lambda self: False))
    return request.param


@pytest.fixture(params=list(VIEWPORTS))
def viewport(request):
    return request.param


def _page(browser, live_server, console_errors, user, viewport):
    phone = viewport == "390"
    context = browser.new_context(
        viewport=VIEWPORTS[viewport],
        device_scale_factor=2 if phone else 1,
        is_mobile=phone,
        has_touch=phone,
        locale="fr-FR",
        accept_downloads=True,
    )
    page = console_errors(context.new_page())
    log_in(page, live_server.url, user.username)
    return context, page


def test_the_gm_downloads_the_archive_and_a_player_cannot(
    browser, live_server, console_errors, world, viewport, debug, artifacts
):
    campaign = world.campaign
    run(campaign, world.gm, "damage", {"amount": "5"}, character=world.pc)
    run(campaign, world.gm, "check", {"stat": "ADR", "difficulty": "10"}, character=world.pc)
    context, page = _page(browser, live_server, console_errors, world.gm, viewport)
    page.goto(f"{live_server.url}{reverse('campaign', args=[campaign.pk])}")
    page.get_by_role("navigation", name="Campagne").get_by_role("link", name="Paramètres").click()
    section = page.locator("#archive")
    expect(section.get_by_role("heading", name="L’archive de votre campagne")).to_be_visible()
    link = section.get_by_role("link", name="Télécharger l’archive (JSON)")
    link.scroll_into_view_if_needed()
    mode = "debug" if debug else "production"
    page.screenshot(path=artifacts / f"archive-settings-{viewport}-{mode}.png")
    with page.expect_download() as download:
        link.click()
    archive = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert download.value.suggested_filename == f"chroniqueur-campaign-{campaign.pk}.json"
    assert archive["format"] == "chroniqueur-campaign-archive"
    assert archive["campaign"]["name"] == campaign.name
    assert len(archive["log"]) == campaign.log.count()
    assert archive["seal"].startswith(f"CHQ1-{campaign.pk}-")
    # The page is still there and answers: another click downloads again.
    with page.expect_download():
        link.click()
    assert console_errors.errors == []
    context.close()

    context, page = _page(browser, live_server, console_errors, world.player, viewport)
    page.goto(f"{live_server.url}{reverse('campaign', args=[campaign.pk])}")
    nav = page.get_by_role("navigation", name="Campagne")
    expect(nav.get_by_role("link", name="Paramètres")).to_have_count(0)
    response = page.request.get(
        f"{live_server.url}{reverse('campaign_archive', args=[campaign.pk])}"
    )
    assert response.status == 403
    context.close()
