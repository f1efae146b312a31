"""The service worker that keeps a player's sheet offline (live/offline.py, /sw.js): served
from the site's root so that its scope covers the sheets, never from a cache, under the
strict CSP, with a cache version; and the pages that register it.

The sheet offline in a browser is tests/e2e/test_phone_feed.py's.
"""

import json
import re

import pytest
from django.templatetags.static import static
from django.urls import reverse, set_script_prefix

from live import offline

pytestmark = pytest.mark.django_db


def _worker(client):
    response = client.get(reverse("service_worker"))
    return response, response.content.decode()


def _literal(script: str, name: str):
    match = re.search(rf"^var {name} = (?:new RegExp\((.*)\)|(.*));$", script, re.M)
    assert match, name
    return json.loads(match.group(1) or match.group(2))


def test_it_is_served_at_the_root_as_a_script_that_no_cache_keeps(anon_client):
    response, script = _worker(anon_client)
    assert reverse("service_worker") == "/sw.js"
    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert response["Cache-Control"] == "no-cache"
    # Its scope may be the whole site; the sheets (/c/…) are under its own directory anyway.
    assert response["Service-Worker-Allowed"] == "/"
    # The strict CSP holds for the worker as for every page: no inline, no third party.
    csp = response["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "connect-src 'self'" in csp
    assert "http" not in script.replace("self.location", "")  # nothing fetched elsewhere


def test_its_cache_carries_the_version_and_the_static_files(anon_client):
    _, script = _worker(anon_client)
    cache = _literal(script, "CACHE")
    assert cache.startswith(f"chroniqueur-sheet-v{offline.CACHE_VERSION}-")
    assert cache == offline.cache_name(offline.asset_urls())
    assets = _literal(script, "ASSETS")
    for path in ("app.css", "live.js", "offline.js", "feed.js", "django_htmx/htmx-2.min.js"):
        assert static(path) in assets
    assert _literal(script, "CACHE_PREFIX") == offline.CACHE_PREFIX
    # Older caches are deleted when this version takes over.
    assert "caches.delete(name)" in script


def test_under_production_settings_it_names_the_hashed_files(
    anon_client, settings, production_static
):
    """DEBUG off with the static files' manifest, as deployed: the worker answers (it asked
    the manifest for "" and failed with a 500) and keeps the hashed names the pages load."""
    settings.DEBUG = False
    response, script = _worker(anon_client)
    assert response.status_code == 200
    assets = _literal(script, "ASSETS")
    assert len(assets) == len(offline.ASSETS)
    assert static("app.css") in assets and re.search(
        r"/static/app\.[0-9a-f]{12}\.css$", static("app.css")
    )
    assert _literal(script, "STATIC") == "/static/"


def test_a_new_version_or_new_static_files_make_a_new_cache(monkeypatch):
    urls = offline.asset_urls()
    before = offline.cache_name(urls)
    assert offline.cache_name([*urls[:-1], "/static/app.0123456789ab.css"]) != before
    monkeypatch.setattr(offline, "CACHE_VERSION", offline.CACHE_VERSION + 1)
    assert offline.cache_name(urls) != before


def test_its_pages_are_the_sheets_and_nothing_else(anon_client, world):
    _, script = _worker(anon_client)
    pages = re.compile(_literal(script, "PAGES"))
    sheet = reverse("character", args=[world.campaign.pk, world.pc.pk])
    assert pages.search(sheet)
    for other in (
        reverse("campaign", args=[world.campaign.pk]),
        reverse("character_card", args=[world.campaign.pk, world.pc.pk]),
        reverse("character_roll", args=[world.campaign.pk, world.pc.pk]),
        reverse("campaign_events_poll", args=[world.campaign.pk]),
        reverse("history", args=[world.campaign.pk]),
    ):
        assert not pages.search(other), other
    # It answers GETs only: a POST typed offline is the page's to refuse, never queued here.
    assert 'if (request.method !== "GET") return;' in script


def test_under_a_script_prefix_its_scope_and_pages_follow(anon_client, world):
    # What the WSGI and ASGI handlers do for a site served under /jdr/ (the test client does
    # not set the prefix itself).
    set_script_prefix("/jdr/")
    try:
        response = anon_client.get("/sw.js")  # the path under the prefix
        script = response.content.decode()
    finally:
        set_script_prefix("/")
    assert response["Service-Worker-Allowed"] == "/jdr/"
    pages = re.compile(_literal(script, "PAGES"))
    assert pages.search(f"/jdr/c/{world.campaign.pk}/characters/{world.pc.pk}/")
    assert not pages.search(f"/c/{world.campaign.pk}/characters/{world.pc.pk}/")


def test_post_is_refused(anon_client):
    assert anon_client.post(reverse("service_worker")).status_code == 405


def test_every_page_forgets_kept_sheets_once_logged_out(anon_client, player_client, world):
    login = anon_client.get(reverse("login")).content.decode()
    assert re.search(r'<script src="[^"]*offline\.js" defer nonce="[^"]+" data-anonymous>', login)
    sheet = player_client.get(reverse("character", args=[world.campaign.pk, world.pc.pk]))
    html = sheet.content.decode()
    assert re.search(r'<script src="[^"]*offline\.js" defer nonce="[^"]+">', html)
    # The worker marks a sheet it answers from its cache by the first " data-offline ":
    # the sheet's own element.
    first = html.index(" data-offline ")
    assert html.rfind("<", 0, first) == html.index('<article class="sheet"')
    _, script = _worker(anon_client)
    assert 'html.replace(" data-offline ", " data-offline data-offline-copy ")' in script


def test_every_file_the_worker_keeps_exists():
    from django.contrib.staticfiles import finders

    for path in offline.ASSETS:
        assert finders.find(path), path
    assert len(offline.asset_urls()) == len(offline.ASSETS)


def test_the_sheet_loads_no_script_the_worker_does_not_keep(player_client, world):
    html = player_client.get(reverse("character", args=[world.campaign.pk, world.pc.pk]))
    scripts = re.findall(r'<script src="([^"]+)"', html.content.decode())
    assert scripts and set(scripts) <= set(offline.asset_urls())


def test_a_players_party_page_may_be_kept_and_the_gms_dashboard_may_not(
    anon_client, gm_client, player_client, world
):
    """The worker keeps a campaign's page (HOMES) only when its answer says so: a player's
    « Groupe », never the GM's dashboard at the same address."""
    _, script = _worker(anon_client)
    homes = re.compile(_literal(script, "HOMES"))
    home = reverse("campaign", args=[world.campaign.pk])
    assert homes.search(home)
    assert not homes.search(reverse("history", args=[world.campaign.pk]))
    assert not homes.search(reverse("character", args=[world.campaign.pk, world.pc.pk]))
    header = _literal(script, "KEEP_HEADER")
    assert player_client.get(home)[header] == "keep"
    assert header not in gm_client.get(home)
    html = player_client.get(home).content.decode()
    # Marked as the sheet is when the worker answers from its copy (its first " data-offline ").
    first = html.index(" data-offline ")
    assert html.rfind("<", 0, first) == html.index('<div class="player-home"')


def test_the_offline_page_is_kept_at_install_and_says_what_to_do_in_french(anon_client, world):
    _, script = _worker(anon_client)
    assert _literal(script, "OFFLINE") == reverse("offline_page") == "/offline/"
    assert "cache.addAll(ASSETS.concat([OFFLINE]))" in script
    response = anon_client.get(reverse("offline_page"), HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Pas de connexion" in html
    assert (
        "Cette page a besoin de la connexion\u00a0: elle s’ouvrira une fois le réseau revenu."
        in html
    )
    # The worker fills in the pages kept, or leaves the sentence for when there are none.
    for marker in ("<!--kept-->", "<!--kept:start-->", "<!--kept:end-->", "<!--none:start-->"):
        assert marker in html
    # The same page for everyone: nothing of a user, no script, no form.
    assert "<script" not in html and "<form" not in html and "csrf" not in html
    assert static("app.css") in html
