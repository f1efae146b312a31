"""Own your data: a whole campaign to one JSON file (`campaign_export`, or the GM's
download on the settings page) and back in another database (`campaign_import`), its log
verified with that instance's keys; a file that does not verify, or whose ids are taken, is
refused with nothing written.

The other instance is a second, empty database (tests/conftest.py's FRESH) on the same
server; `in_fresh` routes every query there, so the history pages are served from it.
"""

import json
import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import transaction
from django.test import Client, override_settings
from django.urls import reverse

from campaign.models import Campaign, Membership
from characters.models import Character, Condition, Illness, Sequel
from journal import archive as archive_module
from journal import audit, standing
from journal import services as journal_services
from journal.archive import _plain
from journal.models import AuditEntry, PlaySession
from play import services
from tests.conftest import FRESH
from tests.play.steps import run

both = pytest.mark.django_db(databases=["default", FRESH])
ENTRIES = 1000


class ToFresh:
    """Every read and write goes to the FRESH database."""

    def db_for_read(self, model, **hints):
        return FRESH

    db_for_write = db_for_read

    def allow_relation(self, *args, **hints):
        return True


def in_fresh():
    return override_settings(DATABASE_ROUTERS=[f"{__name__}.ToFresh"])


def grow(world, total: int) -> None:
    """A campaign as play leaves it: a coma, a sequel (R14), an illness (R28), a condition,
    an undo, then plain rolls and changes, each batch chained as append writes it, up to
    `total` entries."""
    campaign, gm, pc = world.campaign, world.gm, world.pc
    run(campaign, gm, "damage", {"amount": "16", "cause": "une chute"}, character=pc, typed=[1])
    data = {"healer": world.other_pc.pk, "difficulty": "10"}
    run(campaign, gm, "stabilise", data, character=pc, typed=[20])  # R12
    run(campaign, gm, "wake", {"sequel_cause": "Une toux"}, character=pc, typed=[20, 5])
    data = {"severity": "2", "name": "Fièvre"}
    run(campaign, gm, "fall_ill", data, character=world.other_pc, typed=[2, 3])
    run(campaign, gm, "add_condition", {"kind": "gene"}, character=world.npc)
    damage = run(campaign, gm, "damage", {"amount": "9"}, character=world.other_pc)
    services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=damage.entries[-1].pk)
    data = {"stat": "INS", "skill": "Secret", "difficulty": "10"}
    run(campaign, gm, "check", data, character=world.npc, typed=[12], visibility="gm")
    journal_services.session_start(campaign_id=campaign.pk, user=gm)  # opened by the GM
    written = AuditEntry.objects.filter(campaign=campaign).count()
    characters = [world.pc, world.other_pc, world.npc]
    i = 0
    while written < total:
        with transaction.atomic():
            locked = Campaign.objects.select_for_update().get(pk=campaign.pk)
            drafts = [
                audit.Draft(
                    kind="change",
                    action="bench",
                    rule_id="R1",
                    character=characters[(i + j) % 3],
                    game_time=locked.clock,
                    field="flux",
                    before=(i + j) % 5,
                    after=(i + j + 1) % 5,
                    text_fr=f"R1 · Flux : {(i + j) % 5} → {(i + j + 1) % 5}",
                    text_en=f"R1 · Flux: {(i + j) % 5} → {(i + j + 1) % 5}",
                )
                for j in range(min(5, total - written))
            ]
            audit.append(campaign=locked, actor=gm if i % 2 else world.player, drafts=drafts)
        written += len(drafts)
        i += 1


def export_file(campaign, tmp_path) -> tuple[str, dict]:
    path = tmp_path / "campaign.json"
    out = StringIO()
    call_command("campaign_export", campaign.pk, output=str(path), stdout=out)
    assert "entries written to" in out.getvalue()
    return str(path), json.loads(path.read_text(encoding="utf-8"))


def history_pages(client, campaign) -> list[str]:
    """Every page of the history, newest first, following the "Older" links; without the
    CSRF tokens and script nonces, which change with every page."""
    pages, url = [], reverse("history", args=[campaign.pk])
    while url:
        response = client.get(url)
        assert response.status_code == 200
        html = response.content.decode()
        pages.append(
            re.sub(r'(csrfmiddlewaretoken" value=|X-CSRFToken": |nonce=)"[^"]+"', "", html)
        )
        older = re.search(r'href="([^"]+)" rel="next"', html)
        url = older.group(1).replace("&amp;", "&") if older else None
    return pages


def state(campaign_id) -> dict:
    """What a campaign is, besides its log: read from whichever database is routed to."""
    characters = Character.objects.filter(campaign_id=campaign_id).order_by("pk")
    return {
        "campaign": Campaign.objects.filter(pk=campaign_id).values().get(),
        "members": sorted(
            Membership.objects.filter(campaign_id=campaign_id).values_list(
                "user__username", "user_id", "role", "joined_at"
            )
        ),
        "characters": list(characters.values()),
        "conditions": list(Condition.objects.filter(character__in=characters).values()),
        "sequels": list(Sequel.objects.filter(character__in=characters).values()),
        "illnesses": list(Illness.objects.filter(character__in=characters).values()),
        "sessions": list(PlaySession.objects.filter(campaign_id=campaign_id).values()),
        "log": list(AuditEntry.objects.filter(campaign_id=campaign_id).order_by("id").values()),
    }


@both
def test_a_campaign_of_1000_entries_comes_back_whole_in_a_fresh_database(
    world, gm_client, player_client, tmp_path
):
    campaign = world.campaign
    grow(world, ENTRIES)
    assert AuditEntry.objects.filter(campaign=campaign).count() == ENTRIES
    assert Sequel.objects.filter(character=world.pc).exists()  # R14
    assert Illness.objects.filter(character=world.other_pc).exists()  # R28
    assert AuditEntry.objects.filter(campaign=campaign, reverts__isnull=False).exists()
    path, archive = export_file(campaign, tmp_path)
    assert len(archive["log"]) == ENTRIES
    # Which undo took back which entry, for readers of the file (journal/standing.py).
    undone = {str(entry): undo for entry, undo in standing.undone_by(campaign.pk).items()}
    assert archive["undone"] == undone and undone
    usernames = {m["username"] for m in archive["members"]}
    assert usernames == {world.gm.username, world.player.username, world.other_player.username}
    before = state(campaign.pk)
    gm_pages = history_pages(gm_client, campaign)
    player_pages = history_pages(player_client, campaign)
    assert len(gm_pages) == ENTRIES // 50 + (ENTRIES % 50 > 0)

    with in_fresh():
        assert not Campaign.objects.exists() and not get_user_model().objects.exists()
        out = StringIO()
        call_command("campaign_import", path, stdout=out)
        assert f"campaign {campaign.pk} " in out.getvalue()
        assert f"{ENTRIES} entries, chain verified" in out.getvalue()
        out = StringIO()
        call_command("verify_log", campaign.pk, stdout=out)
        assert f"{ENTRIES} entries" in out.getvalue()

        assert state(campaign.pk) == before
        fresh_gm, fresh_player = (
            get_user_model().objects.get(username=user.username)
            for user in (world.gm, world.player)
        )
        assert not fresh_gm.has_usable_password()  # an administrator gives one
        gm_fresh, player_fresh = Client(), Client()
        gm_fresh.force_login(fresh_gm)
        player_fresh.force_login(fresh_player)
        assert history_pages(gm_fresh, campaign) == gm_pages
        assert history_pages(player_fresh, campaign) == player_pages

        # The rebuilt campaign goes on: a new action chains after the imported log.
        run(campaign, fresh_gm, "damage", {"amount": "5"}, character=world.other_pc)
        assert audit.verify_chain(Campaign.objects.get(pk=campaign.pk)) is None
        new = Character.objects.create(
            campaign_id=campaign.pk, name="Nouvelle", stats={}, pv=5, pv_max=5, flux=1, flux_max=1
        )
        assert new.pk > max(c.pk for c in (world.pc, world.other_pc, world.npc))


@both
def test_the_gm_downloads_the_same_archive_from_the_settings_page(world, gm_client, tmp_path):
    run(world.campaign, world.gm, "damage", {"amount": "5"}, character=world.pc)
    settings_page = gm_client.get(reverse("campaign_settings", args=[world.campaign.pk]))
    url = reverse("campaign_archive", args=[world.campaign.pk])
    assert f'href="{url}"' in settings_page.content.decode()
    response = gm_client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    downloaded = json.loads(b"".join(response.streaming_content))
    _path, written = export_file(world.campaign, tmp_path)
    out = StringIO()
    call_command("campaign_export", world.campaign.pk, output="-", stdout=out)
    printed = json.loads(out.getvalue())
    for archive in (downloaded, written, printed):
        archive.pop("exported_at")
    assert downloaded == written == printed
    assert world.pc.gm_notes in json.dumps(downloaded, ensure_ascii=False)


def test_a_player_cannot_download_the_archive(world, player_client, outsider_client):
    url = reverse("campaign_archive", args=[world.campaign.pk])
    assert player_client.get(url).status_code == 403
    assert outsider_client.get(url).status_code == 404


def _tampered(archive: dict, tmp_path, name: str) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(archive, ensure_ascii=False), encoding="utf-8")
    return str(path)


@both
def test_a_tampered_archive_is_refused_naming_the_first_bad_entry(world, tmp_path):
    campaign = world.campaign
    for amount in ("6", "7", "8"):  # 4 PA: 2, 3 and 4 damage
        run(campaign, world.gm, "damage", {"amount": amount}, character=world.other_pc)
    _path, archive = export_file(campaign, tmp_path)
    fields = archive["log_fields"]
    text, ident = fields.index("text_fr"), fields.index("id")
    target = archive["log"][1]
    target[text] = target[text].replace("PV", "PV soignés")
    path = _tampered(archive, tmp_path, "tampered.json")
    with in_fresh():
        with pytest.raises(CommandError) as refused:
            call_command("campaign_import", path)
        message = str(refused.value)
        assert f"entry #{target[ident]}" in message
        assert "does not verify" in message and "Nothing was imported" in message
        assert not Campaign.objects.exists() and not AuditEntry.objects.exists()
        assert not get_user_model().objects.exists()


@both
def test_an_archive_whose_ids_are_taken_is_refused(world, tmp_path):
    run(world.campaign, world.gm, "damage", {"amount": "5"}, character=world.pc)
    path, _archive = export_file(world.campaign, tmp_path)
    entries = AuditEntry.objects.count()
    with pytest.raises(CommandError, match=f"campaign with id {world.campaign.pk} already"):
        call_command("campaign_import", path)  # into the database it came from
    assert AuditEntry.objects.count() == entries
    with in_fresh():
        User = get_user_model()
        User.objects.create(pk=world.gm.pk, username="quelquun")
        with pytest.raises(CommandError, match="which is “quelquun”'s here"):
            call_command("campaign_import", path)
        assert not Campaign.objects.exists()


@both
def test_a_file_that_is_no_archive_is_refused(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"format": "autre"}', encoding="utf-8")
    with pytest.raises(CommandError, match="not a Chroniqueur campaign archive"):
        call_command("campaign_import", str(path))
    path.write_text("pas du json", encoding="utf-8")
    with pytest.raises(CommandError, match="not JSON"):
        call_command("campaign_import", str(path))


def play_three(world) -> None:
    for amount in ("6", "7", "8"):  # 4 PA: 2, 3 and 4 damage
        run(world.campaign, world.gm, "damage", {"amount": amount}, character=world.other_pc)


def head_seal(archive: dict) -> str:
    fields = archive["log_fields"]
    last = dict(zip(fields, archive["log"][-1], strict=True))
    return str(audit.Seal(last["campaign_id"], last["id"], last["seq"], last["hash"][:16]))


def rechained(archive: dict, position: int, key: bytes) -> dict:
    """The archive with entry `position` rewritten and the chain from it recomputed with
    `key`, seal included: what someone with the file and the code, not the key, can do."""
    records = archive_module.log_records(archive)
    records[position]["text_fr"] = "R10 · PV : 14 → 14 (rien ne s’est passé)"
    previous = records[position - 1]["hash"] if position else ""
    for record in records[position:]:
        record["prev_hash"] = previous
        record["hash"] = previous = audit.entry_hash(AuditEntry(**record), key)
    fields = archive["log_fields"]
    rows = [[record[f] for f in fields] for record in records]
    rows = json.loads(json.dumps(rows, default=_plain))
    forged = {**archive, "log": rows}
    forged["seal"] = head_seal(forged)
    return forged


@both
def test_an_archive_cut_short_or_rehashed_without_the_key_is_refused(world, tmp_path):
    play_three(world)
    _path, archive = export_file(world.campaign, tmp_path)
    held = archive["seal"]
    ident = archive["log_fields"].index("id")
    last, second = archive["log"][-1][ident], archive["log"][1][ident]

    cut = {**archive, "log": archive["log"][:-1]}
    with in_fresh():
        with pytest.raises(CommandError, match=f"not at the entry its seal {held} names"):
            call_command("campaign_import", _tampered(cut, tmp_path, "cut.json"))
        # Its seal made up to match what is left: only a seal kept from before catches it.
        cut["seal"] = head_seal(cut)
        path = _tampered(cut, tmp_path, "cut-resealed.json")
        with pytest.raises(CommandError, match=f"entry #{last} is missing"):
            call_command("campaign_import", path, seal=held)

        forged = _tampered(rechained(archive, 1, b"pas-la-clef"), tmp_path, "forged.json")
        with pytest.raises(CommandError) as refused:
            call_command("campaign_import", forged)
        assert f"entry #{second} (number 2 in its campaign) is the first bad one" in str(
            refused.value
        )
        assert "does not match its hash" in str(refused.value)
        assert not Campaign.objects.exists() and not AuditEntry.objects.exists()
        # The untouched archive, with the seal held: accepted.
        call_command("campaign_import", _tampered(archive, tmp_path, "ok.json"), seal=held)
        assert AuditEntry.objects.count() == len(archive["log"])


@both
def test_an_archive_from_another_instance_needs_its_key_in_audit_log_old_keys(
    world, tmp_path, settings
):
    settings.AUDIT_LOG_KEY, settings.AUDIT_LOG_OLD_KEYS = "clef-de-la-source", []
    play_three(world)
    path, archive = export_file(world.campaign, tmp_path)
    with in_fresh():
        settings.AUDIT_LOG_KEY = "clef-de-la-cible"  # another instance, its own key
        with pytest.raises(CommandError) as refused:
            call_command("campaign_import", path)
        assert "a key this server does not have" in str(refused.value)
        assert "AUDIT_LOG_OLD_KEYS" in str(refused.value)
        assert not Campaign.objects.exists()

        settings.AUDIT_LOG_OLD_KEYS = ["clef-de-la-source"]
        call_command("campaign_import", path, stdout=StringIO())
        # The game goes on here, signed with this instance's key, after the source's entries.
        gm = get_user_model().objects.get(username=world.gm.username)
        (entry,) = run(
            world.campaign, gm, "heal", {"amount": "2"}, character=world.other_pc
        ).entries
        assert entry.key_id == audit.keyring().current != archive["log"][-1][-3]
        assert audit.verify_chain(Campaign.objects.get(pk=world.campaign.pk)) is None


@pytest.mark.django_db
def test_taken_ids_are_looked_for_in_slices_any_database_takes(world):
    """100,000 entries' ids are looked for 1,000 at a time: SQLite builds take from 999 to
    250,000 parameters in one query, PostgreSQL's server-side binding 65,535."""
    free = list(range(10**9, 10**9 + 100_000))
    archive_module._refuse_taken(AuditEntry, free, "log entry")  # none taken: no error
    with pytest.raises(archive_module.ArchiveError, match=f"campaign with id {world.campaign.pk}"):
        archive_module._refuse_taken(Campaign, [*free, world.campaign.pk], "campaign")


# Archives made by hand: refused with a message, nothing written, never a traceback.


def refused_in_fresh(path, match):
    with in_fresh():
        with pytest.raises(CommandError, match=match) as refused:
            call_command("campaign_import", str(path))
        assert not Campaign.objects.exists() and not AuditEntry.objects.exists()
        assert not Character.objects.exists() and not get_user_model().objects.exists()
    return str(refused.value)


@both
@pytest.mark.parametrize("listed", ["character", "member", "session", "condition", "sequel"])
def test_an_archive_listing_a_row_twice_is_refused(world, tmp_path, listed):
    """The log's hashes do not cover the rest of the file: a row listed twice there (one
    insert would break a unique key) is refused before anything is written."""
    campaign = world.campaign
    run(campaign, world.gm, "add_condition", {"kind": "gene"}, character=world.npc)
    run(campaign, world.gm, "damage", {"amount": "16"}, character=world.pc, typed=[1])
    data = {"healer": world.other_pc.pk, "difficulty": "10"}
    run(campaign, world.gm, "stabilise", data, character=world.pc, typed=[20])  # R12
    run(campaign, world.gm, "wake", {"sequel_cause": "Une toux"}, character=world.pc, typed=[20, 5])
    journal_services.session_start(campaign_id=campaign.pk, user=world.gm)
    _path, archive = export_file(campaign, tmp_path)
    by_id = {c["id"]: c for c in archive["characters"]}
    if listed == "character":
        archive["characters"].append(dict(archive["characters"][0]))
    elif listed == "member":
        archive["members"].append(dict(archive["members"][0]))
    elif listed == "session":
        archive["sessions"].append(dict(archive["sessions"][0]))
    elif listed == "condition":
        conditions = by_id[world.npc.pk]["conditions"]
        conditions.append(dict(conditions[0]))
    else:
        sequels = by_id[world.pc.pk]["sequels"]
        assert sequels
        by_id[world.other_pc.pk]["sequels"] = [dict(sequels[0])]  # on another character
    message = refused_in_fresh(_tampered(archive, tmp_path, "twice.json"), "twice")
    assert "Nothing was imported" in message


@both
def test_an_archive_nested_too_deep_is_refused(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    assert "Nothing was imported" in refused_in_fresh(path, "nested too deep")


@both
def test_an_archive_larger_than_the_bound_is_refused_before_it_is_read_whole(tmp_path, settings):
    import tracemalloc

    settings.ARCHIVE_IMPORT_MAX_MB = 1
    path = tmp_path / "big.json"
    name = "x" * (8 * 1024 * 1024)
    path.write_text(json.dumps({"format": archive_module.FORMAT, "campaign": {"name": name}}))
    tracemalloc.start()
    try:
        message = refused_in_fresh(path, "larger than 1 MB")
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "ARCHIVE_IMPORT_MAX_MB" in message and "Nothing was imported" in message
    assert peak < 4 * 1024 * 1024  # at most the bound read, never the 8 MB file


@both
def test_a_value_past_its_fields_limit_is_refused(world, tmp_path):
    """A campaign name of 1,000 characters (120 at most): refused, on SQLite too, which
    would store it."""
    _path, archive = export_file(world.campaign, tmp_path)
    archive["campaign"]["name"] = "N" * 1000
    refused_in_fresh(_tampered(archive, tmp_path, "long.json"), "The campaign: “name” is not valid")
