"""The service worker that keeps a player's sheet readable offline (static/offline.js
registers it from the sheet).

Served by this view at the site's root (`/sw.js`), not from /static/: a worker controls only
the pages under its own address, and the sheets are under /c/. A template, so that it names
the static files as `{% static %}` does (hashed names under DEBUG off) and the pages' address
under the script prefix. It caches the sheet pages it is asked to keep, a player's « Groupe »
page (whose answer carries `KEEP_HEADER`: the GM's dashboard has the same address and is not
kept), the static files and the offline page (`offline_page`), and answers from that cache only
when the network fails: any other page then gets the offline page, which says the page needs
the connection and links to the pages kept, rather than the browser's error page. It never
touches a POST, so nothing is queued for later.

CACHE_VERSION: raise it when the worker's way of caching changes; the cache's name also
carries a digest of the static files' names, so a deployment with new files starts a new
cache, and the worker deletes the older ones when it takes over.
"""

from __future__ import annotations

import hashlib
import json
import re

from django.contrib.staticfiles.storage import staticfiles_storage
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import get_script_prefix, reverse
from django.views.decorators.http import require_GET

from play.views import OFFLINE_COPY_HEADER

CACHE_VERSION = 2
CACHE_PREFIX = "chroniqueur-sheet-"
# The header a page answers with when the worker may keep it (a player's « Groupe » page).
KEEP_HEADER = OFFLINE_COPY_HEADER

# What a sheet needs to show and follow the game: kept at install.
ASSETS = (
    "app.css",
    "live.js",
    "offline.js",
    "feed.js",
    "sealed.js",
    "requests.js",
    "confirm.js",
    "panels.js",
    "django_htmx/htmx-2.min.js",
    "django_htmx/ext/hx-sse-2.min.js",
    "manifest.webmanifest",
    "icons/icon.svg",
    "icons/icon-192.png",
)


def asset_urls() -> list[str]:
    urls = []
    for path in ASSETS:
        try:
            urls.append(static(path))
        except ValueError:
            # Not in the static files' manifest (DEBUG off): the worker still keeps it when a
            # page loads it; tests/live/test_offline.py fails on any such name.
            continue
    return urls


def cache_name(urls: list[str]) -> str:
    digest = hashlib.sha256("\n".join(urls).encode()).hexdigest()[:10]
    return f"{CACHE_PREFIX}v{CACHE_VERSION}-{digest}"


@require_GET
def service_worker(request):
    urls = asset_urls()
    prefix = get_script_prefix()
    response = render(
        request,
        "live/sw.js",
        {
            # JSON: each value is a JavaScript literal in the template.
            "cache": json.dumps(cache_name(urls)),
            "cache_prefix": json.dumps(CACHE_PREFIX),
            "assets": json.dumps(urls),
            # The sheet pages (play/urls.py "character"), under the script prefix.
            "pages": json.dumps("^" + re.escape(prefix) + r"c/\d+/characters/\d+/$"),
            # A campaign's page: a player's « Groupe », kept when it answers with KEEP_HEADER.
            "homes": json.dumps("^" + re.escape(prefix) + r"c/\d+/$"),
            "keep_header": json.dumps(KEEP_HEADER),
            "offline": json.dumps(reverse("offline_page")),
            # The storage's base, not static(""): the manifest has no entry for "" (DEBUG off).
            "static_prefix": json.dumps(staticfiles_storage.base_url),
        },
        content_type="text/javascript; charset=utf-8",
    )
    # A worker's script is checked for a new version at each visit: never from a cache.
    response["Cache-Control"] = "no-cache"
    response["Service-Worker-Allowed"] = prefix
    return response


@require_GET
def offline_page(request):
    """The page the service worker shows for a page opened offline that it has not kept: kept
    at its install, with the links to the pages kept filled in by the worker. No script, no
    form and nothing of the user: it is the same for whoever is logged in."""
    return render(request, "live/offline.html")
