"""Sealed rolls: a GM-only roll shows players that it was made, what it was for and
a commitment to its result, never the result, until the GM reveals it (journal/sealing.py)."""

import hashlib
import json

import pytest
from django.urls import reverse

from journal import audit, sealing
from journal.models import AuditEntry, AuditLogImmutable
from journal.services import RevealRefused, roll_reveal
from journal.visibility import visible_entries
from tests.play.steps import run

pytestmark = pytest.mark.django_db

FORMATS = ("csv", "json", "md")
SECRET = {"stat": "INS", "skill": "Secretissime", "difficulty": "10"}


def sealed_check(world, die=17):
    """The GM rolls a secret test for Paul's character (R5), GM only; the roll's entry."""
    result = run(
        world.campaign, world.gm, "check", SECRET, character=world.pc, typed=[die], visibility="gm"
    )
    (entry,) = [e for e in result.entries if e.kind == "roll"]
    return entry


def body(response) -> str:
    assert response.status_code == 200, response.status_code
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


# --- The commitment ----------------------------------------------------------------------------


def test_the_commitment_is_sha256_of_prefix_salt_and_opening():
    opened = sealing.opening(
        campaign_id=3, seq=9, character="Isaure", action="check", rule_id="R5", roll={"total": 14}
    )
    assert opened == (
        '{"action":"check","campaign":3,"character":"Isaure","roll":{"total":14},'
        '"rule_id":"R5","seq":9,"v":1}'
    )
    salt = "00" * 16
    expected = hashlib.sha256(f"chroniqueur-sealed-roll-v1:{salt}:{opened}".encode()).hexdigest()
    assert sealing.commitment(salt, opened) == expected
    assert sealing.verify(opened, salt, expected)
    assert not sealing.verify(opened.replace("14", "15"), salt, expected)
    assert not sealing.verify(opened, "11" * 16, expected)


def test_r5_a_gm_only_roll_is_written_with_its_commitment_under_the_chain(world):
    entry = sealed_check(world)
    seal = entry.roll["seal"]
    assert len(seal["salt"]) == 32 and int(seal["salt"], 16) >= 0  # 128 bits
    assert sealing.verify(sealing.opening_of(entry), seal["salt"], seal["commitment"])
    assert audit.verify_chain(world.campaign) is None
    # Every roll has its own salt: the same die twice gives two commitments.
    again = sealed_check(world)
    assert again.roll["seal"]["commitment"] != seal["commitment"]
    # A public roll carries no seal.
    public = run(world.campaign, world.gm, "check", SECRET, character=world.pc, typed=[17])
    assert all("seal" not in (e.roll or {}) for e in public.entries)


def test_changing_a_commitment_breaks_the_chain(world):
    entry = sealed_check(world)
    forged = {**entry.roll, "seal": {**entry.roll["seal"], "commitment": "0" * 64}}
    entry.roll = forged
    assert audit.entry_hash(entry) != entry.hash


# --- What players see before the reveal ----------------------------------------------------------


def test_r5_players_see_the_sealed_roll_and_its_commitment_never_its_result(
    world, gm_client, player_client
):
    entry = sealed_check(world, die=17)
    commitment = entry.roll["seal"]["commitment"]
    salt = entry.roll["seal"]["salt"]
    campaign = world.campaign
    history = body(player_client.get(reverse("history", args=[campaign.pk])))
    sheet = body(player_client.get(reverse("character", args=[campaign.pk, world.pc.pk])))
    for place, text in {"history": history, "sheet": sheet}.items():
        assert commitment in text, place
        assert "jet scellé du MJ (test)" in text, place
        for secret in ("Secretissime", salt, "17 (d20)", "data-opening"):
            assert secret not in text, (place, secret)
    for fmt in FORMATS:
        text = body(player_client.get(reverse("history_export", args=[campaign.pk, fmt])))
        assert commitment in text, fmt
        assert "Secretissime" not in text and salt not in text, fmt
    export = player_client.get(reverse("history_export", args=[campaign.pk, "json"]))
    exported = json.loads(body(export))
    (record,) = [r for r in exported["entries"] if r["id"] == entry.pk]
    assert record["roll"] == {"seal": {"commitment": commitment}}
    assert record["rule_id"] == "R5" and record["steps"] == []
    # The GM sees it all.
    gm_history = body(gm_client.get(reverse("history", args=[campaign.pk])))
    assert "Secretissime" in gm_history and commitment in gm_history


def test_the_players_queryset_blanks_the_result_however_it_is_read(world):
    entry = sealed_check(world)
    membership = world.player_membership
    for shown in (
        visible_entries(membership).get(pk=entry.pk),
        next(iter(visible_entries(membership).filter(kind="roll")[:5])),
        next(visible_entries(membership).iterator(chunk_size=10)),
    ):
        assert shown.pk == entry.pk
        assert shown.roll == {"seal": {"commitment": entry.roll["seal"]["commitment"]}}
        assert "Secretissime" not in shown.text_fr + shown.text_en
        assert not shown.seal_view.revealed
        with pytest.raises(AuditLogImmutable):
            shown.save()  # never written back


# --- The reveal -------------------------------------------------------------------------------


def test_r5_the_gm_reveals_a_sealed_roll_with_a_new_entry_everyone_then_sees(world, player_client):
    entry = sealed_check(world, die=17)
    before = AuditEntry.objects.count()
    reveal = roll_reveal(campaign_id=world.campaign.pk, entry_id=entry.pk, actor=world.gm)
    assert AuditEntry.objects.count() == before + 1
    assert reveal.visibility == "everyone" and reveal.rule_id == "R5"
    assert reveal.before["entry"] == entry.pk
    assert audit.verify_chain(world.campaign) is None
    shown = visible_entries(world.player_membership).get(pk=entry.pk)
    assert shown.seal_view.revealed and shown.seal_view.reveal_id == reveal.pk
    assert sealing.verify(shown.seal_view.opening, shown.seal_view.salt, shown.seal_view.commitment)
    shown_reveal = visible_entries(world.player_membership).get(pk=reveal.pk)
    assert shown_reveal.seal_view.opening == shown.seal_view.opening
    assert shown_reveal.seal_view.commitment == entry.roll["seal"]["commitment"]
    history = body(player_client.get(reverse("history", args=[world.campaign.pk])))
    assert "Secretissime" in history and "17 (d20)" in history
    with pytest.raises(RevealRefused) as refused:
        roll_reveal(campaign_id=world.campaign.pk, entry_id=entry.pk, actor=world.gm)
    assert refused.value.code == "already_revealed"
    with pytest.raises(RevealRefused):
        roll_reveal(campaign_id=world.campaign.pk, entry_id=reveal.pk, actor=world.gm)


def test_r5_the_reveal_view_is_the_gms_and_writes_one_entry(world, gm_client, player_client):
    entry = sealed_check(world)
    url = reverse("entry_reveal", args=[world.campaign.pk, entry.pk])
    count = AuditEntry.objects.count()
    assert player_client.post(url).status_code == 403
    assert AuditEntry.objects.count() == count
    history = reverse("history", args=[world.campaign.pk])
    response = gm_client.post(url, {"next": history + f"#entry-{entry.pk}"})
    assert response.status_code == 302 and response["Location"] == history + f"#entry-{entry.pk}"
    assert AuditEntry.objects.count() == count + 1
    # Again: a clear message and a 400, nothing written; from htmx, in place of the button.
    again = gm_client.post(url, headers={"HX-Request": "true"})
    assert again.status_code == 400
    assert "Ce jet a déjà été révélé." in again.content.decode()
    assert "<html" not in again.content.decode()
    public = run(world.campaign, world.gm, "check", SECRET, character=world.pc, typed=[3])
    url = reverse("entry_reveal", args=[world.campaign.pk, public.entries[0].pk])
    refused = gm_client.post(url)
    assert refused.status_code == 400 and "Seul un jet" in refused.content.decode()
    missing = reverse("entry_reveal", args=[world.campaign.pk, 999999])
    assert gm_client.post(missing).status_code == 404
    assert AuditEntry.objects.count() == count + 2  # the public roll only
    # An open redirect is refused: back to the history.
    other = sealed_check(world)
    url = reverse("entry_reveal", args=[world.campaign.pk, other.pk])
    response = gm_client.post(url, {"next": "https://evil.example/"})
    assert response["Location"].startswith(history)


def test_the_gms_result_slot_offers_the_reveal_of_a_sealed_roll(world, gm_client):
    url = reverse("character_action", args=[world.campaign.pk, world.pc.pk, "check"])
    data = {**SECRET, "dice": "17", "visibility": "gm", "modifier": "0"}
    answer = gm_client.post(url, data, headers={"HX-Request": "true"})
    assert answer.status_code == 200, answer.content.decode()[:400]
    entry = AuditEntry.objects.filter(kind="roll").latest("id")
    reveal = reverse("entry_reveal", args=[world.campaign.pk, entry.pk])
    assert f'hx-post="{reveal}"' in answer.content.decode()


def test_players_under_nothing_see_no_sealed_roll_of_another_character(world, other_player_client):
    entry = sealed_check(world)
    commitment = entry.roll["seal"]["commitment"]
    world.campaign.party_visibility = "nothing"
    world.campaign.save()
    history = body(other_player_client.get(reverse("history", args=[world.campaign.pk])))
    assert commitment not in history and f"entry-{entry.pk}" not in history


def test_the_archive_keeps_the_seal_and_its_log_still_verifies(world):
    from journal import archive

    entry = sealed_check(world)
    roll_reveal(campaign_id=world.campaign.pk, entry_id=entry.pk, actor=world.gm)
    data = json.loads("".join(archive.archive_chunks(world.campaign.pk)))
    records = archive.log_records(data)
    (record,) = [r for r in records if r["id"] == entry.pk]
    assert record["roll"]["seal"] == entry.roll["seal"]
    assert audit.verify_records(records).problem is None


def test_r5_the_session_recap_shows_a_sealed_natural_20_only_once_revealed(world, player_client):
    entry = sealed_check(world, die=20)
    session = world.campaign.sessions.first()
    url = reverse("session_recap", args=[world.campaign.pk, session.pk])
    assert "Secretissime" not in body(player_client.get(url))
    roll_reveal(campaign_id=world.campaign.pk, entry_id=entry.pk, actor=world.gm)
    recap = body(player_client.get(url))
    assert recap.count("Secretissime") == 1  # the roll, not its reveal again


def test_verify_log_proves_a_log_with_sealed_rolls_and_reveals(world):
    from django.core.management import call_command

    entry = sealed_check(world)
    roll_reveal(campaign_id=world.campaign.pk, entry_id=entry.pk, actor=world.gm)
    call_command("verify_log")  # raises SystemExit/CommandError on a bad entry
    assert audit.verify_chain(world.campaign) is None


def test_entries_read_another_way_are_shown_through_the_same_rule(world):
    """What a reader that has model instances already (a feed, a toast) calls: `shown`."""
    from journal.visibility import shown

    entry = sealed_check(world)
    raw = AuditEntry.objects.get(pk=entry.pk)
    (for_player,) = shown(world.player_membership, [raw])
    assert "Secretissime" not in for_player.shown_text
    assert for_player.roll == {"seal": {"commitment": entry.roll["seal"]["commitment"]}}
    (for_gm,) = shown(world.gm_membership, [AuditEntry.objects.get(pk=entry.pk)])
    assert "Secretissime" in for_gm.shown_text and not for_gm.seal_view.revealed


def test_the_sheet_answers_a_refetch_of_its_sealed_rolls_with_that_part_alone(world, player_client):
    entry = sealed_check(world)
    url = reverse("character", args=[world.campaign.pk, world.pc.pk])
    target = f"sealed-rolls-{world.pc.pk}"
    part = body(player_client.get(url, headers={"HX-Request": "true", "HX-Target": target}))
    assert part.lstrip().startswith("<section") and f'id="{target}"' in part
    assert entry.roll["seal"]["commitment"] in part and "<html" not in part
    assert "Secretissime" not in part


def test_the_gms_dashboard_log_says_which_rolls_are_sealed_or_revealed(world, gm_client):
    entry = sealed_check(world)
    url = reverse("campaign", args=[world.campaign.pk])
    log = body(gm_client.get(url, headers={"HX-Request": "true", "HX-Target": "roll-log"}))
    assert "Scellé" in log and "Secretissime" in log
    assert f'hx-post="{reverse("entry_reveal", args=[world.campaign.pk, entry.pk])}"' in log
    roll_reveal(campaign_id=world.campaign.pk, entry_id=entry.pk, actor=world.gm)
    log = body(gm_client.get(url, headers={"HX-Request": "true", "HX-Target": "roll-log"}))
    assert "Révélé" in log and "Scellé" not in log and "entry_reveal" not in log
    assert "/reveal/" not in log
