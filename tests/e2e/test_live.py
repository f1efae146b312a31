"""Live updates across processes, in a real browser: two uvicorn processes on one PostgreSQL.

The GM acts on one process; the player's sheet, open on the other, follows without a reload,
and catches up on what happened while it was offline.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import LAPTOP, PHONE, log_in, minus

pytestmark = [pytest.mark.e2e]


def _vitals(db_url: str, character_id: int) -> tuple[str, str]:
    import psycopg

    with psycopg.connect(db_url.replace("postgres://", "postgresql://", 1)) as conn:
        pv, pv_max, flux, flux_max = conn.execute(
            "SELECT pv, pv_max, flux, flux_max FROM characters_character WHERE id = %s",
            [character_id],
        ).fetchone()
    return f"{minus(pv)} / {pv_max}", f"{flux} / {flux_max}"


def _login(browser, base_url: str, username: str, console_errors):
    context = browser.new_context(viewport=LAPTOP, locale="fr-FR")
    page = console_errors(context.new_page())
    log_in(page, base_url, username, "demo")
    return context, page


def test_the_players_sheet_on_another_process_follows_the_gm_and_catches_up_after_offline(
    browser, two_processes, console_errors, artifacts
):
    world = two_processes
    gm_url, player_url = world.urls
    cid, pk = world.campaign_id, world.character_id

    player_context, sheet = _login(browser, player_url, "alice", console_errors)
    sheet.goto(f"{player_url}/c/{cid}/characters/{pk}/")
    sheet.evaluate("window.__no_reload = 'still here'")
    card_requests = []
    sheet.on("request", lambda r: card_requests.append(r.url) if r.url.endswith("/card/") else 0)
    expect(sheet.locator("#live")).to_have_attribute("data-connected", "stream")
    card = sheet.locator(f"#character-{pk}")
    pv, flux = _vitals(world.db, pk)
    expect(card.locator("[data-testid=pv]")).to_have_text(pv)

    gm_context, dashboard = _login(browser, gm_url, "mj", console_errors)
    dashboard.goto(f"{gm_url}/c/{cid}/")
    gm_card = dashboard.locator(f"#character-{pk}")
    second = console_errors(gm_context.new_page())
    second.goto(f"{gm_url}/c/{cid}/")
    expect(second.locator("#live")).to_have_attribute("data-connected", "stream")
    second_card = second.locator(f"#character-{pk}")

    def gm_acts(button: str, amount: str) -> tuple[str, str]:
        before = _vitals(world.db, pk)
        gm_card.locator("input[name=amount]").fill(amount)
        gm_card.get_by_role("button", name=button, exact=True).click()
        deadline = time.monotonic() + 10
        while _vitals(world.db, pk) == before and time.monotonic() < deadline:
            time.sleep(0.05)
        after = _vitals(world.db, pk)
        assert after != before, f"{button} changed nothing"
        # The answer (or the stream) redraws the GM's card after the commit: the next action
        # types into the new card, not into one about to be replaced.
        expect(gm_card.locator("[data-testid=pv]")).to_have_text(after[0])
        expect(gm_card.locator("[data-testid=flux]")).to_have_text(after[1])
        return after

    # The second dashboard has an amount typed in the card, not yet sent.
    second_card.locator("input[name=amount]").fill("7")

    # Aveline has 2 PA: 5 damage takes 3 PV, through the GM's process only.
    pv, flux = gm_acts("Dégâts", "5")
    expect(card.locator("[data-testid=pv]")).to_have_text(pv)
    expect(card).to_have_class("card vital-up live-changed")
    expect(sheet.locator("#live-announcer")).to_contain_text("Aveline")
    # The stream brought the card's HTML: the sheet did not have to ask for it.
    assert card_requests == []

    # A second dashboard of the GM's got the card from the stream too, and its form works
    # (the pushed HTML carries that page's CSRF token).
    expect(second_card.locator("[data-testid=pv]")).to_have_text(pv)
    # What was typed there survived the new card, and so did the focus.
    expect(second_card.locator("input[name=amount]")).to_have_value("7")
    expect(second_card.locator("input[name=amount]")).to_be_focused()
    before = _vitals(world.db, pk)
    second_card.locator("input[name=amount]").fill("4")
    second_card.get_by_role("button", name="Dégâts", exact=True).click()
    expect(second_card.locator("[data-testid=pv]")).not_to_have_text(pv)
    pv, flux = _vitals(world.db, pk)
    assert (pv, flux) != before
    expect(card.locator("[data-testid=pv]")).to_have_text(pv)

    assert console_errors.errors == []

    # Offline: what the GM does meanwhile shows once the phone is back. (Chromium's offline
    # mode may keep the open stream; whatever does not arrive through it is refetched, and
    # failed refetches are retried until they land.)
    # The sheet says how old its data is (static/offline.js), and its feed catches up too.
    player_context.set_offline(True)
    mark = sheet.get_by_test_id("stale-mark")
    expect(mark).to_contain_text("Hors ligne — données d’il y a")
    pv, _ = gm_acts("Dégâts", "4")
    _, flux = gm_acts("−Flux", "2")
    player_context.set_offline(False)
    expect(card.locator("[data-testid=pv]")).to_have_text(pv, timeout=20_000)
    expect(card.locator("[data-testid=flux]")).to_have_text(flux, timeout=20_000)
    feed = sheet.locator("#feed [data-testid=feed-entry]")
    expect(feed.first).to_contain_text(_flux_to(flux), timeout=20_000)
    expect(mark).to_have_text("")
    _only_network_errors(console_errors)

    # The player's process goes away (the stream with it) while the GM makes two changes:
    # the page says it is disconnected, and once the process is back, EventSource reconnects
    # with Last-Event-ID and the stream replays both from the audit log.
    world.stop(1)
    expect(sheet.locator("#live")).not_to_have_attribute("data-state", "ok")
    expect(mark).to_contain_text("Hors ligne — données d’il y a")
    expect(sheet.locator("#live [role=status]")).to_contain_text("Mises à jour en direct")
    pv, _ = gm_acts("Dégâts", "3")
    _, flux = gm_acts("−Flux", "1")
    card_requests.clear()
    world.start(1)
    expect(card.locator("[data-testid=pv]")).to_have_text(pv, timeout=20_000)
    expect(card.locator("[data-testid=flux]")).to_have_text(flux, timeout=20_000)
    expect(sheet.locator("#live")).to_have_attribute("data-state", "ok")
    # The server away, the sheet said how old its data was; the feed caught up with the rest.
    expect(feed.first).to_contain_text(_flux_to(flux), timeout=20_000)
    expect(mark).to_have_text("")
    # Caught up from the log (ids only): the card refetched its own partial.
    assert card_requests != []
    assert sheet.evaluate("window.__no_reload") == "still here"
    sheet.screenshot(path=artifacts / "live-sheet-after-reconnect.png", full_page=True)
    # The GM's last answer is swapped before the page closes (a page closed under a swap
    # logs htmx:oobErrorNoTarget for each of its parts).
    expect(gm_card.locator("[data-testid=flux]")).to_have_text(flux)
    expect(dashboard.locator(".htmx-request")).to_have_count(0)
    gm_context.close()
    player_context.close()
    _only_network_errors(console_errors)


def _flux_to(flux: str):
    """The feed's sentence of a Flux change ending at the card's `flux` ("5 / 10")."""
    return re.compile(rf"Flux : \d+ → {flux.split(' / ')[0]}\b")


def _only_network_errors(console_errors) -> None:
    """While offline or disconnected, the browser logs the requests that failed; nothing else."""
    network = ("net::ERR_", "htmx:sendError", "htmx:afterRequest")
    others = [
        e
        for e in console_errors.errors
        if not any(n in e for n in network) and not _stream_failure_logged_by_htmx(e)
    ]
    assert others == [], console_errors.errors
    console_errors.errors.clear()


def _stream_failure_logged_by_htmx(error: str) -> bool:
    """htmx logs its error events; the SSE extension's htmx:sseError carries the EventSource's
    error event as its `error`, which the console shows as "[object Event]"."""
    return error.startswith("[object Event] (") and "/static/django_htmx/htmx-2" in error


def _version(db_url: str, character_id: int) -> str:
    import psycopg

    with psycopg.connect(db_url.replace("postgres://", "postgresql://", 1)) as conn:
        return str(
            conn.execute(
                "SELECT version FROM characters_character WHERE id = %s", [character_id]
            ).fetchone()[0]
        )


def test_players_homes_get_the_changed_rows_from_the_stream_without_asking(
    browser, two_processes, console_errors, artifacts
):
    """Two players' homes (« Groupe ») on 390x844 phones, on the other process: the GM's
    damage to Aveline reaches her owner's own list and the other player's party rows as the
    pushed rows (live/stream.py, `rows`), highlighted, with no request for the page again."""
    world = two_processes
    gm_url, player_url = world.urls
    cid, pk = world.campaign_id, world.character_id
    homes = {}
    asked = []
    import psycopg

    # Under « PV et Flux » the other player is told of every blow (journal/visibility.py).
    with psycopg.connect(world.db.replace("postgres://", "postgresql://", 1)) as conn:
        conn.execute("UPDATE campaign_campaign SET party_visibility = 'bars' WHERE id = %s", [cid])
    for username in ("alice", "bruno"):
        context = browser.new_context(viewport=PHONE, locale="fr-FR", is_mobile=True)
        page = console_errors(context.new_page())
        log_in(page, player_url, username, "demo")
        page.on("request", lambda r: asked.append(r.url) if r.headers.get("hx-request") else 0)
        page.goto(f"{player_url}/c/{cid}/")
        page.evaluate("window.__no_reload = 'still here'")
        expect(page.locator("#live")).to_have_attribute("data-connected", "stream")
        homes[username] = (context, page)
    gm_context, dashboard = _login(browser, gm_url, "mj", console_errors)
    dashboard.goto(f"{gm_url}/c/{cid}/")
    gm_card = dashboard.locator(f"#character-{pk}")
    for amount in ("5", "4"):  # Aveline has 2 PA: each takes PV
        before = _version(world.db, pk)
        gm_card.locator("input[name=amount]").fill(amount)
        gm_card.get_by_role("button", name="Dégâts", exact=True).click()
        deadline = time.monotonic() + 10
        while _version(world.db, pk) == before and time.monotonic() < deadline:
            time.sleep(0.05)
        version = _version(world.db, pk)
        assert version != before
        own = homes["alice"][1].locator(f"#own-{pk}")
        row = homes["bruno"][1].locator(f"#party-{pk}")
        expect(own).to_have_attribute("data-version", version)
        expect(row).to_have_attribute("data-version", version)
        expect(row.get_by_test_id("pv")).to_have_text(_vitals(world.db, pk)[0])
        expect(homes["bruno"][1].locator("#live-announcer")).to_contain_text("Aveline")
        expect(gm_card.locator("[data-testid=pv]")).to_have_text(_vitals(world.db, pk)[0])
    # The rows came with the stream: neither home asked for its lists again.
    assert asked == []
    homes["bruno"][1].screenshot(path=artifacts / "live-home-pushed-row.png", full_page=True)
    # The GM gives Corentin to Bruno: the row pushed is one of his own list now, which his
    # page shows in the party: it redraws both lists (once), and Alice's keeps it in the party.
    with psycopg.connect(world.db.replace("postgres://", "postgresql://", 1)) as conn:
        corentin, bruno = conn.execute(
            "SELECT c.id, u.id FROM characters_character c, auth_user u "
            "WHERE c.name = 'Corentin' AND c.campaign_id = %s AND u.username = 'bruno'",
            [cid],
        ).fetchone()
    dashboard.goto(f"{gm_url}/c/{cid}/characters/{corentin}/edit/")
    dashboard.select_option("#id_owner", str(bruno))
    dashboard.get_by_role("button", name="Enregistrer", exact=True).click()
    dashboard.wait_for_load_state()
    bruno_home = homes["bruno"][1]
    expect(bruno_home.locator(f"#own-{corentin}")).to_contain_text("Corentin")
    expect(bruno_home.locator(f"#party-{corentin}")).to_have_count(0)
    expect(homes["alice"][1].locator(f"#party-{corentin}")).to_contain_text("bruno")
    assert len(asked) == 1 and asked[0].endswith(f"/c/{cid}/")  # Bruno's lists, once
    # A row pushed after the lists were drawn stays when their answer comes late: here a row
    # of a version still to come, then the lists asked for again.
    alice_home = homes["alice"][1]
    alice_home.evaluate(f"document.getElementById('own-{pk}').setAttribute('data-version', '9999')")
    alice_home.evaluate("document.getElementById('own-characters').dataset.before = 'swap'")
    alice_home.evaluate(
        "htmx.ajax('GET', location.pathname, "
        "{target: '#own-characters', select: '#own-characters', swap: 'outerHTML'})"
    )
    expect(alice_home.locator(f"#party-{corentin}")).to_contain_text("bruno")
    expect(alice_home.locator("#own-characters")).to_contain_text("Aveline")
    expect(alice_home.locator("#own-characters[data-before]")).to_have_count(0)  # swapped
    expect(alice_home.locator(f"#own-{pk}")).to_have_attribute("data-version", "9999")
    for _, page in homes.values():
        assert page.evaluate("window.__no_reload") == "still here"
        assert page.evaluate("window.__htmx_errors || []") == []
    expect(dashboard.locator(".htmx-request")).to_have_count(0)
    assert console_errors.errors == []
    gm_context.close()
    for context, _ in homes.values():
        context.close()
