"""A GM-only free roll (R9) on every path a player or the table screen could read: its
expression and its result never reach them, only that the GM rolled something sealed
(journal/sealing.py). The GM reads it in full where she reads the log.

Paths: the statistics page, the campaign's home (page and the fragments its live updates
refetch), the history (page and htmx fragment), the character's sheet, card and feed, the
three exports, the session's recap (page and Markdown), the live stream (its change and the
cards it pushes), the catch-up after a reconnection and the polling fallback, the table screen
(the GM's session and the token link, page and refetched part), and the answer of a player's
own free roll when the campaign logs rolls for the GM alone. The archive is the GM's alone
(tests/journal/test_archive.py: a player is refused it)."""

from __future__ import annotations

import contextlib
import json
import re

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from campaign.models import PartyVisibility, Visibility
from journal.models import AuditEntry
from journal.services import session_start
from live import stream
from play import parts, services
from play.services.table import screen_link_create
from tests.helpers import FORMATS, everything
from tests.live.helpers import QUIET, open_stream, play

pytestmark = pytest.mark.django_db(transaction=True)

EXPRESSION = "3d7+11"
DICE = "1, 2, 4"
# What must never reach a player: the expression, the dice, the total.
SECRETS = ("3d7", "1 + 2 + 4", "= 18")
SEALED = "jet scellé du MJ (jet libre)"


def gm_free_roll(gm_client, world):
    """The GM's « Jet libre » from the party bar, for Isaure, seen by the GM alone."""
    url = reverse("party_action", args=[world.campaign.pk, "free_roll"])
    data = {"expression": EXPRESSION, "character": world.pc.pk, "dice": DICE, "visibility": "gm"}
    response = gm_client.post(url, data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "3d7+11 → 1 + 2 + 4 + 11 = 18" in response.content.decode()
    entry = AuditEntry.objects.latest("id")
    assert (entry.action, entry.visibility) == ("free_roll", Visibility.GM_ONLY)
    return entry


def assert_secret(text: str, place: str) -> None:
    for secret in SECRETS:
        # Not inside a run of hex digits: a commitment's hash may hold « 3d7 » by chance.
        found = re.search(rf"(?<![0-9a-f]){re.escape(secret)}", text)
        assert found is None, f"{secret!r} in {place}"


@pytest.fixture
def bars(world):
    world.campaign.party_visibility = PartyVisibility.BARS
    world.campaign.save()
    session_start(campaign_id=world.campaign.pk, user=world.gm)
    return world


def test_r9_a_gm_only_free_roll_is_sealed_on_every_page_fragment_and_export(
    bars, gm_client, player_client, other_player_client
):
    world = bars
    gm_free_roll(gm_client, world)
    for client in (player_client, other_player_client):
        seen = everything(client, world, world.pc)
        seen["history fragment"] = client.get(
            reverse("history", args=[world.campaign.pk]), HTTP_HX_REQUEST="true"
        ).content.decode()
        feed = client.get(reverse("character_feed", args=[world.campaign.pk, world.pc.pk]))
        seen["feed"] = feed.content.decode()
        home = reverse("campaign", args=[world.campaign.pk])
        for target in (parts.OWN_LIST, parts.PARTY_LIST, parts.FIGHT_STRIP):
            answer = client.get(home, HTTP_HX_REQUEST="true", HTTP_HX_TARGET=target)
            seen[f"home fragment {target}"] = answer.content.decode()
        session = world.campaign.sessions.first()
        page = client.get(reverse("session_recap_page", args=[world.campaign.pk, session.pk]))
        seen["recap page"] = page.content.decode()
        stats = client.get(reverse("statistics", args=[world.campaign.pk]))
        seen["statistics"] = stats.content.decode()
        for place, text in seen.items():
            assert_secret(text, place)
    # The player it is about is told the GM rolled something for her, sealed.
    assert SEALED in everything(player_client, world, world.pc)["history"]
    gm_seen = everything(gm_client, world, world.pc)
    for place in ("history", *FORMATS):  # the recap lists only notable rolls (naturals)
        assert "3d7+11" in gm_seen[place], place


def screen(client, url) -> str:
    """The screen as served, its CSP nonce (new on each answer) left out."""
    response = client.get(url)
    assert response.status_code == 200
    return re.sub(r'nonce="[^"]*"', "", response.content.decode())


def test_r9_a_gm_only_free_roll_never_reaches_the_table_screen(bars, gm_client):
    world = bars
    token = screen_link_create(campaign_id=world.campaign.pk, actor=world.gm)
    urls = [
        (Client(), reverse("screen_link", args=[world.campaign.pk, token])),
        (Client(), reverse("screen_link_part", args=[world.campaign.pk, token])),
        (gm_client, reverse("screen", args=[world.campaign.pk])),
        (gm_client, reverse("screen_part", args=[world.campaign.pk])),
    ]
    services.fight_start(campaign_id=world.campaign.pk, actor=world.gm, character_ids=[world.pc.pk])
    before = [screen(client, url) for client, url in urls]
    gm_free_roll(gm_client, world)
    after = [screen(client, url) for client, url in urls]
    for (_, url), text in zip(urls, after, strict=True):
        assert_secret(text, url)
        assert "jet libre" not in text.lower(), url
    assert after == before  # byte for byte: the screen did not move


def test_r9_the_live_stream_catch_up_and_poll_carry_only_the_seal(bars, gm_client, player_client):
    world = bars
    shown = stream.Shown(cards=frozenset({world.pc.pk}))
    found = {}

    async def scenario():
        player = await open_stream(world.player_membership, shown=shown)
        other = await open_stream(world.other_player_membership, shown=shown)
        found["entry"] = await sync_to_async(gm_free_roll)(gm_client, world)
        found["events"] = [await player.event()]
        with contextlib.suppress(TimeoutError):  # then whatever follows (the pushed card)
            while True:
                found["events"].append(await player.event(timeout=QUIET))
        with contextlib.suppress(TimeoutError):
            while True:
                await other.event(timeout=QUIET)
        found["raw"] = b"".join(player.raw).decode() + b"".join(other.raw).decode()
        await player.close()
        await other.close()

    play(scenario)
    entry = found["entry"]
    assert "change" in [event["event"] for event in found["events"]]
    assert_secret(found["raw"], "live stream")
    assert entry.roll["seal"]["salt"] not in found["raw"]
    changes, _ = stream.missed_changes(world.player_membership, 0)
    assert changes[-1].sealed == ((entry.pk, entry.roll["seal"]["commitment"]),)
    url = reverse("campaign_events_poll", args=[world.campaign.pk])
    poll = player_client.get(url, {"after": 0})
    body = poll.content.decode()
    assert json.loads(body)["changes"][-1]["sealed"] == {
        str(entry.pk): entry.roll["seal"]["commitment"]
    }
    assert_secret(body, "poll")


def test_r9_a_players_own_free_roll_logged_for_the_gm_alone_is_sealed_to_her_too(
    world, player_client, other_player_client
):
    world.campaign.default_roll_visibility = Visibility.GM_ONLY
    world.campaign.save()
    url = reverse("character_free_roll", args=[world.campaign.pk, world.pc.pk])
    response = player_client.post(url, {"expression": "3d7+11", "dice": DICE}, follow=True)
    assert response.status_code == 200
    html = response.content.decode()
    assert_secret(html, "the answer to her own roll")
    assert SEALED in html
    entry = AuditEntry.objects.latest("id")
    assert (entry.actor_id, entry.visibility) == (world.player.pk, Visibility.GM_ONLY)
    for place, text in everything(other_player_client, world, world.pc).items():
        assert_secret(text, place)
