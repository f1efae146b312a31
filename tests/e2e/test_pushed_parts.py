"""A fight (R33) followed by the parts the stream pushes (live/stream.py, `parts`), in a real
browser on a real stream (uvicorn on PostgreSQL), under DEBUG on and off.

The GM (1440 x 900) starts a fight, passes turns, deals a blow and moves the clock, without
reloading; a second dashboard of the GM's and a player's phone (390 x 844: her home and her
sheet) follow. The fight section, the clock bar and the log of the second dashboard, the
player's fight strips and her sheet's feed change with each action, and none of these pages
asks for those parts (no GET aimed at them, none of the feed's URL: they came with the
stream), no script or htmx error happened.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from types import SimpleNamespace

import dj_database_url
import pytest
from playwright.sync_api import expect

from bench.lib.server import stop as stop_processes
from tests.e2e.conftest import (
    DATABASE_URL,
    ON_POSTGRES,
    ROOT,
    _drop_database,
    _free_port,
    _fresh_database,
    _wait_healthy,
)
from tests.e2e.pages import GM_VIEWPORT, HTMX_ERRORS, NO_RELOAD, PHONE, confirm, log_in

pytestmark = [pytest.mark.e2e]
PARTS = ("fight", "fight-strip", "roll-log", "party-bar", "feed")


@pytest.fixture(scope="module", params=[True, False], ids=["debug-on", "debug-off"])
def served(request, tmp_path_factory):
    """The demo, served by one uvicorn process with DEBUG on or off (production's settings:
    hashed static files, no debug page), on a database of its own."""
    if not ON_POSTGRES:
        pytest.skip("needs PostgreSQL (DATABASE_URL=postgres://…): the stream LISTENs")
    debug = request.param
    base = dj_database_url.parse(DATABASE_URL)
    name = f"{base['NAME']}_parts_e2e{os.environ.get('PYTEST_XDIST_WORKER', '')}"
    url = _fresh_database(base, name)
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DEBUG": "true" if debug else "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "SECURE_SSL_REDIRECT": "false",
        "LOG_LEVEL": "WARNING",
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--noinput", "-v0"], env=env, cwd=ROOT, check=True)
    subprocess.run([*manage, "seed_demo"], env=env, cwd=ROOT, check=True, capture_output=True)
    if not debug:
        collect = [*manage, "collectstatic", "--noinput", "-v0"]
        subprocess.run(collect, env=env, cwd=ROOT, check=True)
    port = _free_port()
    log = tmp_path_factory.mktemp("uvicorn") / "uvicorn.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
         "--port", str(port), "--lifespan", "off", "--timeout-graceful-shutdown", "1"],
        env=env, cwd=ROOT, stdout=log.open("a"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        origin = f"http://127.0.0.1:{port}"
        _wait_healthy(origin, proc, log)
        import psycopg

        with psycopg.connect(url.replace("postgres://", "postgresql://", 1)) as conn:
            campaign_id, character_id = conn.execute(
                "SELECT c.campaign_id, c.id FROM characters_character c "
                "JOIN auth_user u ON u.id = c.owner_id WHERE u.username = 'alice'"
            ).fetchone()
            # Her character's sheet shows the strip of her combatant; every blow is told.
            conn.execute(
                "UPDATE campaign_campaign SET party_visibility = 'bars' WHERE id = %s",
                [campaign_id],
            )
        yield SimpleNamespace(
            url=origin, db=url, campaign_id=campaign_id, character_id=character_id, debug=debug
        )
    finally:
        stop_processes([proc])
        _drop_database(base, name)


def _head(db: str) -> int:
    import psycopg

    with psycopg.connect(db.replace("postgres://", "postgresql://", 1)) as conn:
        return conn.execute("SELECT max(id) FROM journal_auditentry").fetchone()[0]


def test_r33_the_fight_the_clock_and_the_log_come_pushed_to_a_dashboard_and_a_phone(
    browser, served, console_errors, artifacts
):
    cid, pk, origin = served.campaign_id, served.character_id, served.url
    asked: list[str] = []  # GETs aimed at a pushed part, by page

    def watch(page, who: str):
        console_errors(page)
        page.on(
            "request",
            lambda r: (
                asked.append(f"{who} {r.method} {r.url} {r.headers.get('hx-target')}")
                if r.headers.get("hx-target") in PARTS or r.url.endswith("/feed/")
                else None
            ),
        )
        return page

    def open_page(context, who: str, path: str):
        page = watch(context.new_page(), who)
        page.goto(f"{origin}{path}")
        page.evaluate(f"{NO_RELOAD} = 'still here'")
        expect(page.locator("#live")).to_have_attribute("data-connected", "stream")
        return page

    gm = browser.new_context(viewport=GM_VIEWPORT, locale="fr-FR")
    gm.add_init_script(HTMX_ERRORS)
    log_in(watch(gm.new_page(), "login"), origin, "mj", "demo")
    acting = open_page(gm, "dashboard", f"/c/{cid}/")
    watching = open_page(gm, "second dashboard", f"/c/{cid}/")
    phone = browser.new_context(viewport=PHONE, locale="fr-FR", is_mobile=True)
    phone.add_init_script(HTMX_ERRORS)
    log_in(watch(phone.new_page(), "login"), origin, "alice", "demo")
    home = open_page(phone, "home", f"/c/{cid}/")
    sheet = open_page(phone, "sheet", f"/c/{cid}/characters/{pk}/")
    pages = {"dashboard": acting, "second dashboard": watching, "home": home, "sheet": sheet}

    def settled(name: str):
        head = _head(served.db)
        # Every page shows the log's newest entry: the second dashboard its log, the rest
        # their stream's position (the pushed parts follow the change on the same stream).
        expect(watching.locator("#roll-log")).to_have_attribute("data-log-id", str(head))
        for page in pages.values():
            page.wait_for_function("() => !document.querySelector('.htmx-request')")
        turn = acting.locator("#fight [data-testid=fight-turn]")
        if turn.count():
            text = turn.inner_text()
            expect(watching.locator("#fight [data-testid=fight-turn]")).to_have_text(text)
            expect(home.locator("#fight-strip [data-testid=fight-turn]")).to_have_text(text)
            expect(sheet.locator("#fight-strip [data-testid=fight-turn]")).to_have_text(text)
        clock = acting.locator("#party-bar [data-testid=clock]").inner_text()
        expect(watching.locator("#party-bar [data-testid=clock]")).to_have_text(clock)
        for who, page in pages.items():
            assert page.evaluate(NO_RELOAD) == "still here", f"{who} reloaded ({name})"
            errors = page.evaluate("window.__htmx_errors")
            assert errors == [], f"{who}: {errors} ({name})"
        assert console_errors.errors == [], name
        assert asked == [], f"{name}: parts asked for instead of pushed: {asked}"

    # The GM starts a fight with every character that may fight.
    section = acting.locator("#fight")
    section.locator("summary").click()
    boxes = section.locator("input[name=fighters]")
    expect(boxes.first).to_be_visible()  # the start form, drawn when opened
    for i in range(boxes.count()):
        boxes.nth(i).check()
    section.get_by_role("button", name="Commencer le combat").click()
    expect(acting.locator("#result-fight")).to_contain_text("Début du combat")
    expect(home.locator("#fight-strip")).to_contain_text("Manche 1")
    expect(sheet.locator("#fight-strip [data-testid=my-fighter]")).to_have_count(1)
    settled("fight started")

    for turn in range(3):
        before = acting.locator("#fight [data-testid=fight-turn]").inner_text()
        acting.locator("#fight").get_by_role("button", name="Tour suivant").click()
        expect(acting.locator("#fight [data-testid=fight-turn]")).not_to_have_text(before)
        settled(f"turn {turn + 2}")

    # A blow on the player's character, from her card: the log and her strip follow.
    card = acting.locator(f"#character-{pk}")
    card.locator("input[name=amount]").fill("5")
    card.get_by_role("button", name="Dégâts", exact=True).click()
    expect(watching.locator("#roll-log li").first).to_contain_text("Aveline")
    # Her sheet's feed shows the blow, pushed too.
    expect(sheet.locator("#feed")).to_have_attribute("data-log-id", str(_head(served.db)))
    settled("a blow")

    # The clock: the second dashboard's bar and everyone's fight parts are pushed.
    clock = acting.locator("#party-bar [data-testid=clock]").inner_text()
    acting.locator("#party-bar").get_by_role("button", name="+10 min").click()
    if acting.locator("[data-testid=confirm-dialog]").is_visible():
        confirm(acting)  # someone could die on the way (R11): the GM confirms
    expect(acting.locator("#party-bar [data-testid=clock]")).not_to_have_text(clock)
    settled("the clock moved")

    mode = "debug" if served.debug else "production"
    watching.screenshot(path=artifacts / f"pushed-parts-dashboard-{mode}.png")
    home.screenshot(path=artifacts / f"pushed-parts-phone-{mode}.png", full_page=True)
    gm.close()
    phone.close()
