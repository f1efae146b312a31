"""The French a French reader writes: the catalogue and the engine's texts use the minus
sign (−) before a negative number and no ISO date in a sentence."""

import re
from pathlib import Path

from rules.engine import ScriptedDice, Surface, fall
from rules.engine.text import number_fr
from tests.rules.util import campaign, hero

ROOT = Path(__file__).resolve().parents[2]
ASCII_MINUS = re.compile(r"(?<![\w/\-–])-\d")  # "-16", not "1d4-1" nor "R1-2"
ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def french_catalogue() -> dict[str, str]:
    """msgid -> msgstr (plural forms joined) of the French .po, its header left out."""
    text = (ROOT / "locale/fr/LC_MESSAGES/django.po").read_text()
    entries = {}
    for block in text.split("\n\n"):
        lines = [line for line in block.splitlines() if not line.startswith("#")]
        parts, key = {}, None
        for line in lines:
            match = re.match(r'(msgid|msgid_plural|msgstr(?:\[\d\])?) "(.*)"$', line)
            if match:
                key = match[1]
                parts[key] = match[2]
            elif key and line.startswith('"'):
                parts[key] += line[1:-1]
        if parts.get("msgid"):
            said = " ".join(v for k, v in parts.items() if k.startswith("msgstr"))
            entries[parts["msgid"]] = said
    return entries


def test_the_french_catalogue_writes_the_minus_sign_and_no_iso_date():
    catalogue = french_catalogue()
    assert len(catalogue) > 500  # the parser read it
    minus = {k: v for k, v in catalogue.items() if ASCII_MINUS.search(v)}
    iso = {k: v for k, v in catalogue.items() if ISO_DATE.search(v)}
    assert minus == {}
    assert iso == {}


def test_r1_a_french_number_below_zero_takes_the_minus_sign():
    assert number_fr(-16) == "−16"
    assert number_fr(-0.5) == "−0,5"
    assert number_fr(3) == "3"


def test_r27_damage_below_zero_pv_reads_with_the_minus_sign():
    outcome = fall(
        campaign(hero(pv=3, pa=0)),
        "a",
        storeys=3,
        surface=Surface.ROUGH,
        rng=ScriptedDice([2, 10, 10, 10, 10]),
    )
    said = outcome.explanation_fr
    assert "→ −" in said, said
    assert not ASCII_MINUS.search(said), said
    assert not ISO_DATE.search(said), said


def test_one_name_for_what_only_the_gm_sees_and_dice_values_start_at_1():
    catalogue = french_catalogue()
    assert catalogue["GM alone"] == catalogue["GM only"] == "MJ uniquement"
    said = catalogue["“%(part)s” is not a die value: type whole numbers such as 14 or 3, 5."]
    assert "à partir de 1" in said
    assert "entiers" not in said  # 0 is a whole number too


def test_a_proposal_made_under_a_minute_ago_reads_just_now():
    from datetime import timedelta

    from django.utils import timezone, translation

    from play.templatetags.cards import ago

    now = timezone.now()
    with translation.override("fr"):
        assert ago(now) == "à l’instant"
        assert ago(now - timedelta(minutes=5)).startswith("il y a 5")
