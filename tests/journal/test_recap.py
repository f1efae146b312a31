"""The session recap (journal/recap.py): what was played and only that, in game-time order,
as a page and as Markdown, with French dates and plurals as a French reader writes them."""

from datetime import UTC, datetime

import pytest
from django.urls import reverse
from django.utils import translation

from characters.models import Character
from journal import recap as recaps
from journal import standing
from journal.models import AuditEntry, EntryKind, PlaySession
from play import services
from tests.play.steps import run

FRENCH = {"accept-language": "fr"}


def test_real_dates_are_written_as_a_french_reader_writes_them(settings):
    settings.TIME_ZONE = "UTC"
    moment = datetime(2026, 12, 4, 8, 35, tzinfo=UTC)
    assert recaps.real_date(moment, "fr") == "le 4 décembre 2026 à 08 h 35"
    assert recaps.real_date(moment.replace(day=1), "fr") == "le 1er décembre 2026 à 08 h 35"
    assert recaps.real_date(moment, "en") == "4 December 2026 at 08:35"


@pytest.fixture
def night(world):
    """R10, R11, R16: Isaure and Gaspard fall into the coma far below 0 PV, then the clock
    moves 3 h and every hourly Survie test fails: both die. The GM undoes the clock."""
    campaign, gm = world.campaign, world.gm
    run(campaign, gm, "damage", {"amount": "30"}, character=world.pc, typed=[1])
    run(campaign, gm, "damage", {"amount": "40"}, character=world.other_pc, typed=[1])
    clock = run(campaign, gm, "clock", {"minutes": "180"}, typed=[1, 1])
    assert {c.vital for c in Character.objects.filter(pk__in=[world.pc.pk, world.other_pc.pk])} == {
        "dead"
    }
    world.clock = clock
    world.session = PlaySession.objects.get(campaign=campaign)
    return world


def recap_of(world, membership):
    entries = AuditEntry.objects.filter(campaign=world.campaign).order_by("id")
    state = standing.standing(world.campaign.pk)
    return recaps.build(world.session, entries, state, "fr", membership=membership)


def test_r16_the_deaths_are_in_the_recap_in_game_time_order(night):
    recap = recap_of(night, night.gm_membership)
    kinds = [(e.name, e.kind) for e in recap.events]
    assert kinds.count(("Isaure", "died")) == 1 and kinds.count(("Gaspard", "died")) == 1
    assert kinds.index(("Isaure", "fell")) < kinds.index(("Isaure", "died"))
    whens = [e.when for e in recap.events]
    assert whens == sorted(whens, key=lambda w: (int(w.split()[1][:-1]), w.split()[2]))


def test_r16_after_the_undo_the_recap_and_history_show_what_stands(night, gm_client):
    change = next(e for e in night.clock.entries if e.kind == EntryKind.CHANGE)
    services.entry_undo(
        campaign_id=night.campaign.pk,
        actor=night.gm,
        entry_id=change.pk,
        whole_action=True,
        force=True,
    )
    recap = recap_of(night, night.gm_membership)
    assert [(e.name, e.kind) for e in recap.events] == [("Isaure", "fell"), ("Gaspard", "fell")]
    assert {line.name: line.shown("end", "vital", 0) for line in recap.characters} == {
        "Isaure": "dans le coma",
        "Gaspard": "dans le coma",
    }
    # The clock's hourly rolls are out of every count: the action did not happen.
    assert recap.rolls == 2

    url = reverse("session_recap_page", args=[night.campaign.pk, night.session.pk])
    page = gm_client.get(url, headers=FRENCH).content.decode()
    assert "meurt" not in page and page.count('data-testid="recap-event"') == 2
    assert "2 jets, " in page  # plurals right
    markdown = gm_client.get(
        reverse("session_recap", args=[night.campaign.pk, night.session.pk]), headers=FRENCH
    ).content.decode()
    assert "meurt" not in markdown and "tombe dans le coma" in markdown
    history = gm_client.get(reverse("history", args=[night.campaign.pk]), headers=FRENCH)
    assert "annulée par #" in history.content.decode()


def test_the_recap_says_one_roll_and_one_change_in_the_singular(world, gm_client):
    run(world.campaign, world.gm, "check", {"stat": "ADR", "difficulty": "10"}, character=world.pc)
    run(world.campaign, world.gm, "damage", {"amount": "3"}, character=world.pc)
    session = PlaySession.objects.get(campaign=world.campaign)
    url = reverse("session_recap_page", args=[world.campaign.pk, session.pk])
    page = gm_client.get(url, headers=FRENCH).content.decode()
    assert "1 jet, 1 changement." in page
    with translation.override("en"):
        entries = AuditEntry.objects.filter(campaign=world.campaign)
        recap = recaps.build(session, entries, standing.standing(world.campaign.pk), "en")
        assert recaps.summary_text(recap, "en") == "1 roll, 1 change."
