"""The campaign history: filters, keyset pages, sessions and game days, roll breakdowns,
exports and session recaps.

Who may read the history and who may open a session or undo (the GM) is
tests/test_permissions.py's table.
"""

import csv
import io
import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campaign.models import Membership
from journal import audit
from journal.models import AuditEntry, PlaySession
from journal.selectors import filtered_entries, group_entries, keyset_page
from tests.play.steps import T0, run


@pytest.fixture
def world(world):
    """The shared world with one action in the log (and so its play session)."""
    run(world.campaign, world.gm, "damage", {"amount": "5"}, character=world.pc)
    world.session = PlaySession.objects.get(campaign=world.campaign)
    return world


def test_a_gm_opens_a_play_session(gm_client, world):
    response = gm_client.post(reverse("session_start", args=[world.campaign.pk]))
    assert response.status_code == 302
    session = PlaySession.objects.filter(campaign=world.campaign).order_by("-pk").first()
    assert session.started_by == world.gm and session != world.session


def test_it_returns_404_for_an_unknown_export_format(gm_client, world):
    url = reverse("history_export", args=[world.campaign.pk, "xlsx"])
    assert gm_client.get(url).status_code == 404


# Many entries, written in bulk (no hash chain needed to read them).


def bulk_entries(campaign, n, *, characters=(), actors=(), start=None, step=timedelta(minutes=1)):
    start = start or timezone.now() - n * step
    characters = list(characters) or [None]
    actors = list(actors) or [None]
    rows = []
    first = (
        AuditEntry.objects.filter(campaign=campaign).order_by("-id").values_list("seq", flat=True)
    ).first() or 0
    for i in range(n):
        character = characters[i % len(characters)]
        actor = actors[i % len(actors)]
        kind = "roll" if i % 3 == 0 else "change"
        rows.append(
            AuditEntry(
                campaign=campaign,
                character=character,
                character_name=character.name if character else "",
                actor=actor,
                actor_name=actor.username if actor else "",
                created_at=start + i * step,
                game_time=T0 + timedelta(minutes=i),
                action="bulk",
                batch=uuid.uuid4(),
                kind=kind,
                rule_id=f"R{i % 7 + 1}",
                field="" if kind == "roll" else "pv",
                before=None if kind == "roll" else i,
                after=None if kind == "roll" else i + 1,
                roll={"expression": "1d20", "dice": [i % 20 + 1], "total": i % 20 + 1}
                if kind == "roll"
                else None,
                text_fr=f"entrée {i}",
                text_en=f"entry {i}",
                visibility="everyone",
                seq=first + i + 1,
                key_id="bulk",
                hash=f"bulk-{campaign.pk}-{i}-{uuid.uuid4().hex}",
            )
        )
    return AuditEntry.objects.bulk_create(rows, batch_size=2000)


@pytest.fixture
def ten_thousand(world):
    bulk_entries(
        world.campaign,
        10_000,
        characters=[world.pc, world.other_pc, world.npc],
        actors=[world.gm, world.player, None],
    )
    return world


def walk(entries, *, grow=None):
    """Every page from the newest, older and older; `grow()` runs between two fetches."""
    seen, before = [], None
    while True:
        page = keyset_page(entries, before=before)
        seen.extend(e.pk for e in page.entries)
        if page.older is None:
            return seen
        before = page.older
        if grow:
            grow()


def test_keyset_pages_lose_and_repeat_nothing_while_entries_are_added(ten_thousand):
    world = ten_thousand
    gm_view = Membership.objects.get(campaign=world.campaign, user=world.gm)
    entries = filtered_entries(gm_view, {})
    expected = list(entries.values_list("pk", flat=True))
    assert len(expected) == 10_001

    seen = walk(entries, grow=lambda: bulk_entries(world.campaign, 3))

    assert seen == expected  # every one, once, newest first, none of the newcomers
    assert AuditEntry.objects.count() == 10_001 + 3 * 200


def test_keyset_pages_of_a_filtered_history(ten_thousand):
    world = ten_thousand
    gm_view = Membership.objects.get(campaign=world.campaign, user=world.gm)
    filters = {"character": world.other_pc.pk, "kind": "change", "actor": str(world.player.pk)}
    entries = filtered_entries(gm_view, filters)
    expected = list(
        AuditEntry.objects.filter(
            campaign=world.campaign, character=world.other_pc, kind="change", actor=world.player
        )
        .order_by("-id")
        .values_list("pk", flat=True)
    )
    assert 500 < len(expected) < 10_000
    assert walk(entries, grow=lambda: bulk_entries(world.campaign, 5, characters=[world.other_pc]))
    assert walk(entries) == expected


def test_newer_pages_and_the_oldest_page(ten_thousand):
    world = ten_thousand
    gm_view = Membership.objects.get(campaign=world.campaign, user=world.gm)
    entries = filtered_entries(gm_view, {})
    ids = list(entries.values_list("pk", flat=True))
    first = keyset_page(entries)
    second = keyset_page(entries, before=first.older)
    assert [e.pk for e in second.entries] == ids[50:100]
    back = keyset_page(entries, after=second.newer)
    assert [e.pk for e in back.entries] == ids[:50]
    assert back.newer is None and first.newer is None
    oldest = keyset_page(entries, after=0)
    assert [e.pk for e in oldest.entries] == ids[-50:]
    assert oldest.older is None and oldest.newer == ids[-50]


def test_the_history_page_links_to_the_next_page_with_the_filters(gm_client, ten_thousand):
    world = ten_thousand
    url = reverse("history", args=[world.campaign.pk])
    response = gm_client.get(url, {"kind": "roll", "rule": "r2"})
    assert response.status_code == 200
    page = response.context["page"]
    assert len(page.entries) == 50
    assert all(e.kind == "roll" and e.rule_id == "R2" for e in page.entries)
    older = response.context["older_url"]
    assert "kind=roll" in older and "rule=r2" in older and f"before={page.entries[-1].pk}" in older
    following = gm_client.get(older).context["page"]
    assert following.entries[0].pk < page.entries[-1].pk
    assert all(e.kind == "roll" and e.rule_id == "R2" for e in following.entries)


def test_filters_by_actor_clock_and_date_range(gm_client, world):
    day = datetime(2026, 3, 10, 12, tzinfo=UTC)
    bulk_entries(world.campaign, 6, actors=[world.player, None], start=day, step=timedelta(days=1))
    url = reverse("history", args=[world.campaign.pk])

    def texts(**query):
        response = gm_client.get(url, query)
        assert response.status_code == 200
        return [e.text_en for e in response.context["page"].entries]

    assert texts(actor="none", since="2026-03-11", until="2026-03-14") == ["entry 3", "entry 1"]
    assert texts(actor=str(world.player.pk), until="2026-03-12") == ["entry 2", "entry 0"]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"rule": "dix"}, "rule"),
        ({"since": "2026-03-12", "until": "2026-03-11"}, "__all__"),
        ({"character": "999999"}, "character"),
        ({"before": "-4"}, "before"),
    ],
)
def test_bad_filters_get_a_message_and_a_400(gm_client, world, query, field):
    response = gm_client.get(reverse("history", args=[world.campaign.pk]), query)
    assert response.status_code == 400
    form = response.context["form"]
    assert form.non_field_errors() if field == "__all__" else form.errors[field]
    export = gm_client.get(reverse("history_export", args=[world.campaign.pk, "json"]), query)
    assert export.status_code == 400


# Play sessions and game days


def test_entries_are_grouped_by_session_and_game_day(campaign, gm, pc, monkeypatch):
    base = datetime(2026, 3, 10, 20, tzinfo=UTC)
    now = {"t": base}
    monkeypatch.setattr(audit.timezone, "now", lambda: now["t"])

    first = run(campaign, gm, "damage", {"amount": "3"}, character=pc).entries
    now["t"] = base + timedelta(hours=1)
    day2 = run(campaign, gm, "clock", {"to_morning": "on"}).entries
    now["t"] = base + timedelta(hours=6)  # more than 4 h of silence: a new session
    after_pause = run(campaign, gm, "heal", {"amount": "1"}, character=pc).entries
    now["t"] = base + timedelta(hours=7)
    opened = PlaySession.objects.create(campaign=campaign, started_by=gm, started_at=now["t"])
    now["t"] = base + timedelta(hours=7, minutes=5)
    last = run(campaign, gm, "heal", {"amount": "1"}, character=pc).entries

    entries = list(AuditEntry.objects.filter(campaign=campaign).order_by("-id"))
    groups = group_entries(campaign.pk, entries)

    assert [g.session.started_by for g in groups] == [gm, None, None]
    assert groups[0].session == opened
    assert [e.pk for d in groups[0].days for e in d.entries] == [e.pk for e in last]
    assert [e.pk for d in groups[1].days for e in d.entries] == [e.pk for e in after_pause]
    oldest = groups[2]
    assert oldest.session.started_at == base
    assert [d.day for d in oldest.days] == [2, 1]
    assert [e.pk for e in oldest.days[1].entries] == [e.pk for e in reversed(first)] + [
        e.pk for e in reversed(day2) if e.game_time.day == 1
    ]


def test_the_history_page_shows_sessions_days_and_recap_links(gm_client, world):
    run(world.campaign, world.gm, "clock", {"to_morning": "on"})
    content = gm_client.get(reverse("history", args=[world.campaign.pk])).content.decode()
    assert "Jour 2" in content and "Jour 1" in content
    assert reverse("session_recap", args=[world.campaign.pk, world.session.pk]) in content


def test_r5_a_roll_opens_to_its_full_breakdown(gm_client, world):
    data = {"stat": "VAI", "skill": "Survie", "difficulty": "13", "modifier": "2"}
    (roll,) = run(world.campaign, world.gm, "check", data, character=world.pc, typed=[11]).entries
    content = gm_client.get(reverse("history", args=[world.campaign.pk])).content.decode()
    start = content.index(f'id="entry-{roll.pk}"')
    end = content.find('data-testid="entry"', start + 40)  # the next entry, if any
    item = content[start : end if end > 0 else None]
    assert "<details" in item
    assert "1d20 → 11" in item
    assert "<dt>VAI · Survie</dt>" in item
    assert "<dt>MJ</dt><dd>2</dd>" in item  # the GM's modifier, with its source
    assert "<dt>Difficulté</dt><dd>13</dd>" in item or "<dt>Difficulty</dt><dd>13</dd>" in item
    assert world.gm.username in item
    assert "saisi" in item or "typed in" in item


def test_the_history_speaks_the_viewers_language(gm_client, world):
    data = {"stat": "VAI", "difficulty": "13", "modifier": "2"}
    (roll,) = run(world.campaign, world.gm, "check", data, character=world.pc, typed=[11]).entries
    url = reverse("history", args=[world.campaign.pk])
    gm_client.cookies["django_language"] = "en"
    content = gm_client.get(url).content.decode()
    assert roll.text_en in content and roll.text_fr not in content
    assert "<dt>GM</dt><dd>2</dd>" in content
    gm_client.cookies["django_language"] = "fr"
    content = gm_client.get(url).content.decode()
    assert roll.text_fr in content and roll.text_en not in content
    assert "<dt>MJ</dt><dd>2</dd>" in content


# Exports


def _body(response) -> str:
    assert response.streaming
    return b"".join(response.streaming_content).decode()


def test_exports_stream_the_filtered_history_in_three_formats(gm_client, ten_thousand):
    world = ten_thousand
    query = {"character": world.pc.pk, "kind": "change"}
    expected = list(
        AuditEntry.objects.filter(campaign=world.campaign, character=world.pc, kind="change")
        .order_by("-id")
        .values_list("pk", flat=True)
    )
    url = lambda fmt: reverse("history_export", args=[world.campaign.pk, fmt])  # noqa: E731

    response = gm_client.get(url("csv"), query)
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    body = _body(response).lstrip("\ufeff")
    rows = list(csv.DictReader(io.StringIO(body), delimiter=";"))  # French by default
    # One row per entry and nothing else: the seal is in the file's name.
    assert "CHQ1-" in response["Content-Disposition"]
    assert [int(r["N°"]) for r in rows] == expected
    assert {r["Personnage"] for r in rows} == {world.pc.name}

    records = json.loads(_body(gm_client.get(url("json"), query)))["entries"]
    assert [r["id"] for r in records] == expected
    assert records[-1]["field"] == "pv" and records[-1]["kind"] == "change"

    markdown = _body(gm_client.get(url("md"), query))
    assert markdown.startswith("# ")
    assert markdown.count("\n- `#") == len(expected)
    assert f"`#{expected[0]}`" in markdown


def test_a_roll_in_the_exports_says_who_rolled_and_how(gm_client, world):
    data = {"stat": "ADR", "difficulty": "10"}
    (roll,) = run(world.campaign, world.gm, "check", data, character=world.pc, typed=[7]).entries
    url = reverse("history_export", args=[world.campaign.pk, "json"])
    records = json.loads(_body(gm_client.get(url)))["entries"]
    (record,) = [r for r in records if r["id"] == roll.pk]
    assert record["rolled_by"] == "typed_in" and record["actor"] == world.gm.username
    assert record["roll"]["natural"] == 7 and record["roll"]["difficulty"] == 10


# The session recap


def test_the_recap_tells_who_went_down_woke_with_a_sequel_fell_ill_and_the_notable_rolls(
    gm_client, world
):
    campaign, gm, pc = world.campaign, world.gm, world.pc
    # R10: 16 − 2 PA = 14 damage, PV 6 → −8 (after the fixture's 5); Survie natural 1: coma.
    run(campaign, gm, "damage", {"amount": "16", "cause": "une chute"}, character=pc, typed=[1])
    data = {"healer": world.other_pc.pk, "difficulty": "10"}
    run(campaign, gm, "stabilise", data, character=pc, typed=[20])  # R12
    data = {"sequel_cause": "Une toux sanglante"}
    run(campaign, gm, "wake", data, character=pc, typed=[20, 5])  # R13, R14: D6 5 → VAI
    run(
        campaign,
        gm,
        "fall_ill",
        {"severity": "2", "name": "Fièvre"},
        character=world.other_pc,
        typed=[2, 3],
    )  # R28
    response = gm_client.get(reverse("session_recap", args=[campaign.pk, world.session.pk]))
    assert response["Content-Type"].startswith("text/markdown")
    text = response.content.decode()
    _title, characters, events, notable = text.split("\n## ")
    isaure = next(line for line in characters.splitlines() if "**Isaure**" in line)
    assert "VAI" in isaure and "Une toux sanglante" in isaure  # the sequel gained (R14)
    gaspard = next(line for line in characters.splitlines() if "**Gaspard**" in line)
    assert "Fièvre" in gaspard  # the illness at the end (R28)
    fell, stabilised, woke = [line for line in events.splitlines() if line.startswith("- ")]
    assert "**Isaure**" in fell and "coma" in fell
    assert "**Isaure**" in stabilised and "**Isaure**" in woke
    # Isaure's natural 1 (a failed Survie too) and natural 20; Gaspard's natural 20 (R12).
    assert notable.count("**Isaure**") == 2
    assert "**Gaspard** · R12" in notable
