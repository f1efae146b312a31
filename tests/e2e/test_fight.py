"""A fight in rounds (R33) the way a GM runs it at the table, and a player follows it on a phone.

The GM (1440 x 900) starts a fight with three characters, reorders them, spends actions and
reflexes, is refused a spend, advances two full rounds and ends the fight, without reloading;
after each step the page is whole, no script or htmx error happened, the fight section shows
the server's numbers and is on screen without scrolling. A player (390 x 844, another browser
context) has their sheet open: "C'est votre tour" arrives by the live updates, and the
highlight moves on. Under DEBUG on and off.

Live updates: under the test server (WSGI) pages poll. Its one SQLite connection is shared by
its threads, and a poll read while an action writes fails ("database table is locked"), which
no real server does; so the player's polls are let through to the server only while the GM
waits, and the GM's own are answered empty (test_gm_session.py does the same). What the page
then does with the changes is static/live.js's own code.
"""

import re

import pytest
from playwright.sync_api import expect

from campaign.models import Campaign
from tests.e2e.pages import (
    GM_VIEWPORT,
    HTMX_ERRORS,
    NO_RELOAD,
    PHONE,
    Fight,
    confirm,
    log_in,
    open_gated_sheet,
    open_quiet_dashboard,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def gm_page(browser, live_server, console_errors, campaign, pc, other_pc, npc, debug):
    context, page = open_quiet_dashboard(browser, live_server, console_errors, campaign)
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    yield page
    context.close()


@pytest.fixture
def phone_and_gate(browser, live_server, console_errors, campaign, pc):
    context, page, gate = open_gated_sheet(browser, live_server, console_errors, campaign, pc)
    page.evaluate(f"{NO_RELOAD} = 'still here'")
    yield page, gate
    context.close()


def test_r33_a_gm_runs_a_fight_and_the_player_follows_their_turn(
    gm_page, phone_and_gate, live_server, console_errors, campaign, pc, other_pc, npc,
    artifacts, debug,
):  # fmt: skip
    phone, gate = phone_and_gate
    page = gm_page
    mode = "debug" if debug else "production"
    table = Fight(page, phone, console_errors, campaign, [pc, other_pc, npc], live_server, gate)
    strip = phone.locator("#fight-strip")
    my_card = phone.locator(f"#character-{pc.pk}")
    table.check("the dashboard, no fight")
    expect(strip).to_be_hidden()

    # Start: the three ticked, in the order listed (the Vicomte, Gaspard, Isaure).
    table.section.locator("summary").click()
    for character in (npc, other_pc, pc):
        table.section.locator(f"input[name=fighters][value='{character.pk}']").check()
    # A live refetch of the section (another tab moved the clock) keeps the form and its ticks.
    page.evaluate(
        "htmx.ajax('GET', location.pathname,"
        " {target: '#fight', select: '#fight', swap: 'outerHTML'})"
    )
    page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-settling')")
    expect(table.section.locator("details")).to_have_attribute("open", "")
    expect(table.section.locator("input[name=fighters]:checked")).to_have_count(3)
    table.section.get_by_role("button", name="Commencer le combat").click()
    expect(table.result).to_contain_text("Début du combat")
    table.check("fight started")
    assert Campaign.objects.get(pk=campaign.pk).fight["order"] == [
        str(npc.pk),
        str(other_pc.pk),
        str(pc.pk),
    ]
    expect(table.section.get_by_test_id("fight-turn")).to_have_text(
        "Au tour de\u00a0: Le Vicomte masque"
    )

    # The player's sheet learns of the fight: round 1, not their turn yet.
    table.phone_follows()
    expect(strip).to_contain_text("Manche 1")
    expect(strip).to_contain_text("Au tour de\u00a0: Le Vicomte masque")
    expect(my_card.get_by_test_id("seat")).to_contain_text("Rang 3")
    table.phone_settled()
    expect(strip.get_by_test_id("your-turn")).to_have_count(0)

    # Reorder: Isaure up, before Gaspard.
    table.row(pc).get_by_role("button", name="Faire jouer plus tôt\u00a0: Isaure").click()
    expect(table.section.locator("[data-testid=fighter]").nth(1)).to_have_attribute(
        "data-character", str(pc.pk)
    )
    table.check("Isaure moved up")

    # The Vicomte spends an action and a reflex, one tap each.
    table.row(npc).get_by_role("button", name="−1 action\u00a0: Le Vicomte masque").click()
    expect(table.row(npc).get_by_test_id("actions-left")).to_have_text("1")
    table.check("an action spent")
    table.row(npc).get_by_role("button", name="−1 réflexe\u00a0: Le Vicomte masque").click()
    expect(table.row(npc).get_by_test_id("reflexes-left")).to_have_text("0")
    table.check("a reflex spent")

    # None left: refused, the message where the GM looks, the page whole.
    table.allowed.append(f"{live_server.url}/c/{campaign.pk}/fight/{npc.pk}/spend/reflex/")
    table.row(npc).get_by_role("button", name="−1 réflexe\u00a0: Le Vicomte masque").click()
    expect(table.result.get_by_test_id("fight-error")).to_contain_text(
        "Le Vicomte masque n’a plus de réflexe cette manche (manche 1)."
    )
    table.check("a refused spend")
    page.screenshot(path=artifacts / f"fight-{mode}-refused.png", caret="initial")

    # Next turn: Isaure's. The player's phone says so, live.
    table.click("Tour suivant")
    expect(table.section.get_by_test_id("fight-turn")).to_have_text("Au tour de\u00a0: Isaure")
    table.check("Isaure's turn")
    table.phone_follows()
    expect(strip.get_by_test_id("your-turn")).to_have_text("C’est votre tour")
    expect(my_card).to_have_class(re.compile(r"\bits-turn\b"))
    expect(strip.get_by_test_id("actions-left")).to_have_text("2")
    table.phone_settled()
    assert phone.evaluate(NO_RELOAD) == "still here"
    # The highlight has room inside: its text and buttons clear of its bar and its edges.
    mine = strip.get_by_test_id("my-fighter")
    block = mine.bounding_box()
    for inner in (strip.get_by_test_id("your-turn"), mine.locator("form")):
        box = inner.bounding_box()
        assert box["x"] >= block["x"] + 12, ("left", box, block)  # 4 px bar + room
        assert box["x"] + box["width"] <= block["x"] + block["width"] - 8, ("right", box, block)
    first, last = (
        strip.get_by_test_id("your-turn").bounding_box(),
        mine.locator("form").bounding_box(),
    )
    assert (
        first["y"] >= block["y"] + 8
        and last["y"] + last["height"] <= block["y"] + block["height"] - 8
    )
    phone.screenshot(path=artifacts / f"fight-{mode}-phone-your-turn.png", full_page=True)
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # Gaspard's turn: the highlight leaves Isaure on the phone too.
    table.click("Tour suivant")
    expect(table.section.get_by_test_id("fight-turn")).to_have_text("Au tour de\u00a0: Gaspard")
    table.check("Gaspard's turn")
    table.phone_follows()
    expect(strip.get_by_test_id("fight-turn")).to_contain_text("Gaspard")
    expect(strip.get_by_test_id("your-turn")).to_have_count(0)
    expect(my_card).not_to_have_class(re.compile(r"\bits-turn\b"))
    table.phone_settled()

    # Round 2: every budget reset (R33), the Vicomte's reflex back.
    table.click("Tour suivant")
    expect(table.section.get_by_test_id("fight-round")).to_have_text("Manche 2")
    expect(table.row(npc).get_by_test_id("reflexes-left")).to_have_text("1")
    table.check("round 2")
    page.screenshot(path=artifacts / f"fight-{mode}-gm-round-2.png", caret="initial")
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=artifacts / f"fight-{mode}-gm-round-2-dark.png", caret="initial")
    page.emulate_media(color_scheme="light")
    for expected in ("Isaure", "Gaspard"):
        table.click("Tour suivant")
        expect(table.section.get_by_test_id("fight-turn")).to_have_text(
            f"Au tour de\u00a0: {expected}"
        )
        table.check(f"round 2, {expected}")
    table.click("Tour suivant")
    expect(table.section.get_by_test_id("fight-round")).to_have_text("Manche 3")
    table.check("round 3")

    table.phone_follows()
    expect(strip.get_by_test_id("fight-round")).to_have_text("Manche 3")
    table.phone_settled()

    table.click("Fin du combat")
    expect(table.result).to_contain_text("Fin du combat")
    table.check("fight ended")
    table.phone_follows()
    expect(strip).to_be_hidden()
    expect(my_card.get_by_test_id("seat")).to_have_count(0)
    table.phone_settled()
    assert table.step >= 12
    assert phone.evaluate("window.__htmx_errors") == []


def test_r33_the_turn_reaches_a_phone_on_another_process_through_the_stream(
    browser, two_processes, console_errors, artifacts
):
    """The real stream (uvicorn, PostgreSQL's NOTIFY): the GM passes the turn on one process;
    the player's phone on the other gets its card (pushed: its seat moved, though no entry
    names it) and its fight strip."""
    import psycopg

    world = two_processes
    gm_url, player_url = world.urls
    cid, mine = world.campaign_id, world.character_id
    with psycopg.connect(world.db.replace("postgres://", "postgresql://", 1)) as conn:
        (other,) = conn.execute(
            "SELECT id FROM characters_character WHERE campaign_id = %s AND id <> %s "
            "AND vital <> 'dead' ORDER BY id LIMIT 1",
            [cid, mine],
        ).fetchone()
    phone_context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, locale="fr-FR"
    )
    phone_context.add_init_script(HTMX_ERRORS)
    phone = console_errors(phone_context.new_page())
    log_in(phone, player_url, "alice", "demo")
    phone.goto(f"{player_url}/c/{cid}/characters/{mine}/")
    phone.evaluate(f"{NO_RELOAD} = 'still here'")
    expect(phone.locator("#live")).to_have_attribute("data-connected", "stream")
    gm_context = browser.new_context(viewport=GM_VIEWPORT, locale="fr-FR")
    gm_context.add_init_script(HTMX_ERRORS)
    page = console_errors(gm_context.new_page())
    log_in(page, gm_url, "mj", "demo")
    page.goto(f"{gm_url}/c/{cid}/")
    section = page.locator("#fight")
    section.locator("summary").click()
    for pk in (mine, other):
        section.locator(f"input[name=fighters][value='{pk}']").check()
    section.get_by_role("button", name="Commencer le combat").click()
    rows = section.locator("[data-testid=fighter]")
    expect(rows).to_have_count(2)
    order = [rows.nth(i).get_attribute("data-character") for i in range(2)]
    strip, card = phone.locator("#fight-strip"), phone.locator(f"#character-{mine}")
    expect(strip).to_contain_text("Manche 1")

    def turn_is_mine(yes: bool):
        if yes:
            expect(strip.get_by_test_id("your-turn")).to_have_text("C’est votre tour")
            expect(card).to_have_class(re.compile(r"\bits-turn\b"))
        else:
            expect(strip.get_by_test_id("your-turn")).to_have_count(0)
            expect(card).not_to_have_class(re.compile(r"\bits-turn\b"))

    turn_is_mine(order[0] == str(mine))
    for round_, place in ((1, 1), (2, 0), (2, 1)):
        section.get_by_role("button", name="Tour suivant").click()
        expect(section.get_by_test_id("fight-round")).to_have_text(f"Manche {round_}")
        expect(strip.get_by_test_id("fight-round")).to_have_text(f"Manche {round_}")
        turn_is_mine(order[place] == str(mine))
    phone.screenshot(path=artifacts / "fight-live-phone.png", full_page=True)
    section.get_by_role("button", name="Fin du combat").click()
    confirm(page)
    expect(strip).to_be_hidden()
    expect(card).not_to_have_class(re.compile(r"\bits-turn\b"))
    assert phone.evaluate(NO_RELOAD) == "still here"
    assert phone.evaluate("window.__htmx_errors") == []
    assert page.evaluate("window.__htmx_errors") == []
    assert console_errors.errors == []
    gm_context.close()
    phone_context.close()
