"""Undo is part of the story everywhere (journal/standing.py): an entry an undo took back is
struck and says which undo did it, on the history page, the dashboard's log, the sheet's
feed and the Markdown export; undo buttons appear only on what still stands."""

import json
import re

import pytest
from django.urls import reverse

from journal.models import EntryKind
from play import services
from tests.play.steps import run

FRENCH = {"accept-language": "fr"}


@pytest.fixture
def undone(world):
    """R3: 5 damage (PV 11 → 8), then the GM undoes it."""
    damage = run(world.campaign, world.gm, "damage", {"amount": "5"}, character=world.pc)
    (pv,) = [e for e in damage.entries if e.kind == EntryKind.CHANGE]
    undo = services.entry_undo(campaign_id=world.campaign.pk, actor=world.gm, entry_id=pv.pk)
    world.pv, world.undo = pv, undo.entries[0]
    return world


def item(html: str, entry_id: int) -> str:
    # Up to the next entry: an entry's steps are a list of their own.
    match = re.search(
        rf'<li[^>]*id="entry-{entry_id}".*?(?=<li[^>]*id="entry-|</section>)', html, re.S
    )
    assert match, entry_id
    return match.group(0)


def test_r3_the_history_marks_the_undone_entry_and_offers_no_undo_on_it(gm_client, undone):
    html = gm_client.get(reverse("history", args=[undone.campaign.pk]), headers=FRENCH)
    html = html.content.decode()
    struck = item(html, undone.pv.pk)
    assert 'class="entry kind-change undone"' in struck
    assert f"annulée par #{undone.undo.pk}" in struck and "<s>" in struck
    assert f"#entry-{undone.undo.pk}" in struck  # linked to the undo
    assert reverse("entry_undo", args=[undone.campaign.pk, undone.pv.pk]) not in struck
    # The undo itself stands, links back, and may be undone in turn.
    undo = item(html, undone.undo.pk)
    assert f"#entry-{undone.pv.pk}" in undo and "undone" not in undo.split(">")[0]
    assert reverse("entry_undo", args=[undone.campaign.pk, undone.undo.pk]) in undo


def test_r3_an_undo_undone_brings_the_entry_back_with_its_button(gm_client, undone):
    services.entry_undo(campaign_id=undone.campaign.pk, actor=undone.gm, entry_id=undone.undo.pk)
    html = gm_client.get(reverse("history", args=[undone.campaign.pk])).content.decode()
    back = item(html, undone.pv.pk)
    assert "undone" not in back.split(">")[0] and "<s>" not in back
    assert reverse("entry_undo", args=[undone.campaign.pk, undone.pv.pk]) in back
    assert "<s>" in item(html, undone.undo.pk)


def test_r3_the_dashboard_log_and_the_sheet_feed_mark_it(gm_client, player_client, undone):
    dashboard = gm_client.get(reverse("campaign", args=[undone.campaign.pk]), headers=FRENCH)
    assert f"annulée par #{undone.undo.pk}" in dashboard.content.decode()
    url = reverse("character_feed", args=[undone.campaign.pk, undone.pc.pk])
    feed = player_client.get(url, headers=FRENCH).content.decode()
    assert f"annulée par #{undone.undo.pk}" in feed and "<s>" in feed


def test_r3_the_markdown_and_json_exports_say_it(gm_client, undone):
    url = reverse("history_export", args=[undone.campaign.pk, "md"])
    markdown = b"".join(gm_client.get(url, headers=FRENCH).streaming_content).decode()
    assert f"(annulée par `#{undone.undo.pk}`)" in markdown and "~~R3" in markdown
    url = reverse("history_export", args=[undone.campaign.pk, "json"])
    records = json.loads(b"".join(gm_client.get(url).streaming_content))["entries"]
    by_id = {r["id"]: r for r in records}
    assert by_id[undone.pv.pk]["undone_by"] == undone.undo.pk
    assert by_id[undone.undo.pk]["undone_by"] is None
