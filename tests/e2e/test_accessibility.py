"""axe-core (tests/vendor/axe-core, through tests/e2e/pages.py's axe_violations) on the pages a
table uses, in light and dark, on the GM's screen (1440 x 900) and a phone (390 x 844): no
serious or critical violation, and no landmark that shares its role and name with another
(the cards' and rows' « Autres actions » were one each).

The pages: the dashboard in both views (cards, compact), also mid-action (a quick action's
result, an action's form, a row's menu open), a character's sheet as the GM and as its player,
the history and the members page. The table is the demo's, in play, so that what marks a page
is on it when axe reads it: a fight running (its turn highlighted), a character in a coma, a
GM-only change and a sealed roll in the log and the sheet's feed, a roll waiting for a player,
a proposal waiting for the GM, an open invitation.

Each page is loaded once per screen and read in both themes, switched in place (the stylesheet
follows `prefers-color-scheme`). DEBUG on at both sizes; production settings (hashed static
files) on the phone. Screenshots of each page and theme in test-artifacts/ (DEBUG on).
"""

import io

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from campaign.models import Campaign, Invitation, Role
from characters.models import Character
from play import services
from play.proposals import proposal_make
from play.requests import roll_request_create
from tests.e2e.pages import EMPTY_POLL, GM_VIEWPORT, PHONE, SERIOUS, axe_violations, open_context
from tests.play.steps import run

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SCREENS = {
    "1440x900": {"viewport": GM_VIEWPORT},
    "390x844": {"viewport": PHONE, "is_mobile": True, "has_touch": True, "device_scale_factor": 2},
}
THEMES = ("light", "dark")
DEMO_PASSWORD = "demo"  # play/management/commands/seed_demo.py


def table_in_play():
    """The demo campaign a few minutes into play. Returns it and its characters by name."""
    call_command("seed_demo", stdout=io.StringIO())
    campaign = Campaign.objects.get(name="Les Ruines d’Ysmir")
    who = {c.name: c for c in Character.objects.filter(campaign=campaign)}
    gm = campaign.memberships.get(role=Role.GM).user
    aveline, bastien, corentin = who["Aveline"], who["Bastien"], who["Corentin"]
    run(campaign, gm, "damage", {"amount": "3", "cause": "une flèche"}, character=aveline)
    run(campaign, gm, "damage", {"amount": "5"}, character=aveline, visibility="gm")
    check = {"stat": "INS", "skill": "Guet", "difficulty": "12"}
    run(campaign, gm, "check", check, character=aveline, typed=[14], visibility="gm")  # sealed
    run(campaign, gm, "damage", {"amount": "15"}, character=corentin, typed=[1])
    assert Character.objects.get(pk=corentin.pk).vital == "coma"
    fighters = [aveline.pk, bastien.pk, who["Le Bandit borgne"].pk]
    services.fight_start(campaign_id=campaign.pk, actor=gm, character_ids=fighters)
    roll_request_create(character_id=bastien.pk, actor=gm, stat="ADR", difficulty=10)
    proposal_make(
        character_id=aveline.pk,
        actor=aveline.owner,
        action="spend_flux",
        arguments={"amount": 2},
        note="Un sort de lumière.",
    )
    Invitation.objects.create(campaign=campaign, role=Role.PLAYER, created_by=gm)
    return campaign, who


def landmark_twins(page) -> list[str]:
    """axe's landmark-unique (a moderate finding): two landmarks of one role and one name."""
    return axe_violations(page, impacts=None, rules=["landmark-unique"])


@pytest.mark.parametrize(
    ("screen", "debug"),
    [("1440x900", True), ("390x844", True), ("390x844", False)],
    ids=["1440x900-debug-on", "390x844-debug-on", "390x844-debug-off"],
    indirect=["debug"],
)
def test_axe_finds_no_serious_violation_on_the_tables_pages(
    screen, debug, browser, live_server, console_errors, artifacts
):
    campaign, who = table_in_play()
    aveline, bastien = who["Aveline"], who["Bastien"]
    base = live_server.url
    mode = f"{screen}-debug-{'on' if debug else 'off'}"
    found: dict[str, list[str]] = {}

    def read(page, name):
        """Both themes of the page as loaded: axe's findings, a screenshot of each."""
        expect(page.locator("main")).to_be_visible()
        for theme in THEMES:
            page.emulate_media(color_scheme=theme)
            if debug:
                shot = artifacts / f"axe-{name}-{theme}-{screen}.png"
                page.screenshot(path=shot, full_page=True, scale="css")
            found[f"{name} {theme}"] = axe_violations(page, impacts=SERIOUS)
        found[f"{name} landmarks"] = landmark_twins(page)

    def open_as(username):
        context, page = open_context(
            browser, live_server, console_errors, password=DEMO_PASSWORD,
            username=username, **SCREENS[screen],
        )  # fmt: skip
        # No live updates: the page stays as loaded while axe reads it.
        poll = f"{base}/c/{campaign.pk}/events/**"
        context.route(poll, lambda route: route.fulfill(json=EMPTY_POLL))
        return context, page

    context, page = open_as("mj")
    page.goto(f"{base}/c/{campaign.pk}/")
    expect(page.get_by_test_id("card")).to_have_count(4)
    expect(page.locator("#roll-log .gm-only .tag").first).to_have_text("MJ uniquement")
    read(page, "dashboard-cards")
    # Mid-action: a quick action's result (its explanation, its undo) and an action's form.
    card = page.locator(f"#character-{bastien.pk}")
    card.get_by_role("button", name="Dégâts", exact=True).click()
    expect(page.locator(f"#result-{bastien.pk} .explanation")).to_be_visible()
    page.locator(f"#character-{aveline.pk}").get_by_role("link", name="Test", exact=True).click()
    expect(page.locator(f"#panel-{aveline.pk} form")).to_be_visible()
    read(page, "dashboard-cards-acting")
    page.locator("button[data-view=compact]").click()
    expect(page.get_by_test_id("row")).to_have_count(4)
    read(page, "dashboard-compact")
    page.locator(f"#character-{bastien.pk} .row-menu > summary").click()
    expect(page.locator(f"#character-{bastien.pk} .row-menu .menu")).to_be_visible()
    read(page, "dashboard-compact-menu")
    page.goto(f"{base}/c/{campaign.pk}/characters/{aveline.pk}/")
    expect(page.locator("#feed .gm-only").first).to_be_visible()
    read(page, "sheet-gm")
    page.goto(f"{base}/c/{campaign.pk}/history/")
    read(page, "history")
    page.goto(f"{base}/c/{campaign.pk}/members/")
    read(page, "members")
    context.close()

    context, page = open_as("alice")
    page.goto(f"{base}/c/{campaign.pk}/characters/{aveline.pk}/")
    expect(page.get_by_test_id("feed")).to_contain_text("jet scellé")
    read(page, "sheet-player")
    context.close()

    assert {place: v for place, v in found.items() if v} == {}, mode
    assert console_errors.errors == []
