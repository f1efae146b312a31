"""A player's home (« Groupe ») on a 390x844 phone follows the GM's assignments without a
reload: the GM (1440x900) gives a character to the player, then takes it back, and the
player's own list and the party's follow each time, with no console or htmx error.

Under the test server pages poll; the phone's polls reach the server only while the GM
waits (tests/e2e/test_fight.py's Gate), as its one SQLite connection requires.
"""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from campaign.models import PartyVisibility
from characters.models import Character, Kind
from tests.e2e.pages import NO_RELOAD, PHONE, Gate, open_quiet_dashboard
from tests.e2e.pages import open_context as _context

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LIVE_WAIT = 15_000  # ms: the polling fallback looks every 4 s
NOT_YET = "Le meneur de jeu ne vous a pas encore attribué de personnage."


@pytest.fixture
def ysolde(campaign):
    return Character.objects.create(
        campaign=campaign,
        name="Ysolde",
        kind=Kind.PC,
        stats={name: 10 for name in campaign.stats},
        pv=12,
        pv_max=12,
        flux=4,
        flux_max=4,
    )


class Table:
    """The GM's character form at 1440x900 and the player's home at 390x844."""

    def __init__(self, browser, live_server, console_errors, campaign, character):
        self.live_server, self.console, self.character = live_server, console_errors, character
        self.gm_context, self.gm = open_quiet_dashboard(
            browser, live_server, console_errors, campaign
        )
        self.context, self.phone = _context(
            browser,
            live_server,
            console_errors,
            PHONE,
            "paul_joueur",
            device_scale_factor=2,
            is_mobile=True,
            has_touch=True,
        )
        self.gate = Gate()
        poll = reverse("campaign_events_poll", args=[campaign.pk])
        self.context.route(f"{live_server.url}{poll}**", self.gate.route)
        self.phone.goto(f"{live_server.url}/c/{campaign.pk}/")
        self.phone.evaluate(f"{NO_RELOAD} = 'still here'")
        self.own = self.phone.locator("#own-characters")
        self.party = self.phone.locator("#party-members")
        self.edit = f"{live_server.url}/c/{campaign.pk}/characters/{character.pk}/edit/"

    def give(self, owner):
        """The GM sets the character's player; the phone's polls wait until it is saved."""
        self.gate.open.clear()
        self.gm.goto(self.edit)
        self.gm.select_option("#id_owner", str(owner.pk) if owner else "")
        self.gm.get_by_role("button", name="Enregistrer", exact=True).click()
        self.gm.wait_for_load_state()
        saved = Character.objects.get(pk=self.character.pk).owner_id
        assert saved == (owner.pk if owner else None)
        self.gate.open.set()

    def shows_it_as_mine(self):
        expect(self.own.get_by_role("link", name="Ysolde")).to_be_visible(timeout=LIVE_WAIT)
        expect(self.own).not_to_contain_text(NOT_YET)
        expect(self.party).not_to_contain_text("Ysolde")
        expect(self.party).to_contain_text("Gaspard")

    def shows_it_in_the_party(self):
        expect(self.own).to_contain_text(NOT_YET, timeout=LIVE_WAIT)
        expect(self.own).not_to_contain_text("Ysolde")
        expect(self.party).to_contain_text("Ysolde")
        expect(self.party).to_contain_text("Gaspard")

    def close(self):
        self.gate.open.clear()
        assert self.phone.evaluate(NO_RELOAD) == "still here"
        assert self.phone.evaluate("window.__htmx_errors") == []
        assert self.gm.evaluate("window.__htmx_errors") == []
        assert self.console.errors == []
        self.context.close()
        self.gm_context.close()


def test_a_players_home_shows_a_character_the_gm_gives_them_without_reload(
    browser, live_server, console_errors, campaign, gm, player, other_pc, ysolde
):
    table = Table(browser, live_server, console_errors, campaign, ysolde)
    table.shows_it_in_the_party()
    table.give(player)
    table.shows_it_as_mine()
    table.close()


@pytest.mark.parametrize("shown", [PartyVisibility.BARS, PartyVisibility.NOTHING])
def test_a_players_home_follows_the_gm_giving_then_taking_a_character_back(
    browser, live_server, console_errors, campaign, gm, player, other_pc, ysolde, shown, debug
):
    """Under « Noms seulement » too: the entry that took the character from the player is
    hers to see (journal/visibility.py), so the event reaches her page."""
    campaign.party_visibility = shown
    campaign.save(update_fields=["party_visibility"])
    table = Table(browser, live_server, console_errors, campaign, ysolde)
    table.give(player)
    table.shows_it_as_mine()
    table.give(None)
    table.shows_it_in_the_party()
    table.give(player)
    table.shows_it_as_mine()
    table.close()
