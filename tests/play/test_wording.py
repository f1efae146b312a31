"""The French a French reader writes: the catalogue and the engine's texts use the minus
sign (−) before a negative number, no ISO date in a sentence, one name for what only the GM
sees, « manche » for a fight's round, « debout » (never « up »); a player reads no rule ids
(« (R5) »: the GM's references, which the history's details keep); a game time in a sentence
reads « le jour 1 à 08:10 »."""

import ast
import re
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from rules.engine import ScriptedDice, Surface, fall
from rules.engine.text import number_fr
from tests.play.steps import run
from tests.rules.util import campaign, hero

CHECK = {"stat": "VAI", "skill": "Survie", "difficulty": "12"}

ROOT = Path(__file__).resolve().parents[2]
ASCII_MINUS = re.compile(r"(?<![\w/\-–])-\d")  # "-16", not "1d4-1" nor "R1-2"
ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def french_catalogue(*, where: bool = False) -> dict:
    """msgid -> msgstr (plural forms joined) of the French .po, its header left out; with
    `where`, msgid -> (msgstr, the files its "#:" references name)."""
    text = (ROOT / "locale/fr/LC_MESSAGES/django.po").read_text()
    entries = {}
    for block in text.split("\n\n"):
        files = {
            ref.rsplit(":", 1)[0]
            for line in block.splitlines()
            if line.startswith("#: ")
            for ref in line[3:].split()
        }
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
            entries[parts["msgid"]] = (said, files) if where else said
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


def test_one_name_for_what_only_the_gm_sees():
    catalogue = french_catalogue()
    assert catalogue["GM alone"] == catalogue["GM only"] == "MJ uniquement"


def test_r9_a_typed_zero_is_refused_with_the_dies_faces(world):
    """R9: « 0 » is a whole number; the refusal says what a die shows, and the die a value
    is read for says its own faces."""
    from django.utils import translation

    from play.actions import DiceField
    from rules.engine import RuleError

    with pytest.raises(RuleError) as refused:
        run(world.campaign, world.gm, "check", CHECK, character=world.pc, typed=[0])
    assert refused.value.message_fr == "Un D20 ne peut pas donner 0 (de 1 à 20)."
    said = french_catalogue()[
        "“%(part)s” is not a die value: type the numbers the dice show, such as 14 or 3, 5."
    ]
    assert "entiers" not in said  # 0 is a whole number too
    with translation.override("fr"):
        with pytest.raises(ValidationError) as zero:
            DiceField().clean("14, 0")
        assert "de 1 à 20 pour un D20" in zero.value.messages[0]
        with pytest.raises(ValidationError) as typo:
            DiceField().clean("1O")
        assert "lus sur les dés" in typo.value.messages[0]


def test_a_proposal_made_under_a_minute_ago_reads_just_now():
    from datetime import timedelta

    from django.utils import timezone, translation

    from play.templatetags.cards import ago

    now = timezone.now()
    with translation.override("fr"):
        assert ago(now) == "à l’instant"
        assert ago(now - timedelta(minutes=5)).startswith("il y a 5")


# ---------------------------------------------------------------------------------------------
# The scan: the French catalogue, and the French texts the engine and the services write.

# A hyphen-minus before a digit, used as a minus: not in "1d4-1", "R17-R19", "1-20" (a range
# after a word character) nor after a placeholder's closing "s" ("%(n)s-3" is a word char).
SCAN_PATTERNS = {
    "ASCII minus": ASCII_MINUS,
    "ISO date": ISO_DATE,
    "MJ seul / MJ seulement": re.compile(r"\bMJ seul(?:ement)?\b"),
    "round": re.compile(r"\brounds?\b"),  # « manche » at a French table
    "up": re.compile(r"\bup\b"),  # « debout »
}
# Files whose texts only players read: their sentences carry no rule id.
PLAYER_FILES = {
    "templates/play/sheet.html",
    "templates/play/player_home.html",
    "templates/play/_fight_strip.html",
    "templates/play/_my_proposals.html",
    "templates/play/_propose.html",
    "play/player.py",
}
RULE_ID = re.compile(r"\(R\d+\)|, R\d+\)|\bR\d+ · ")
# The engine's and the services' modules that write French sentences.
SOURCES = [
    *sorted((ROOT / "rules/engine").glob("*.py")),
    *sorted((ROOT / "play/services").glob("*.py")),
    ROOT / "play/requests.py",
    ROOT / "journal/texts.py",
    ROOT / "journal/recap.py",
    ROOT / "journal/seals.py",
]
FRENCH = re.compile(r"[éèêàùçô’«»·]|\b(?:le|la|les|du|au|est|pas|une?)\b")


def scan(text: str) -> list[str]:
    found = [name for name, pattern in SCAN_PATTERNS.items() if pattern.search(text)]
    # "Tout le monde" names who sees a roll ("Everyone"); a list of characters is « Tous les
    # personnages », which the callers check by msgid.
    return found


def french_literals(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module that read as French, docstrings left out."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and FRENCH.search(node.value)
    ]


def test_the_french_catalogue_passes_the_wording_scan():
    catalogue = french_catalogue(where=True)
    found = {
        msgid: (said, problems)
        for msgid, (said, _files) in catalogue.items()
        if (problems := scan(said))
    }
    assert found == {}
    crowd = {msgid for msgid, (said, _) in catalogue.items() if "Tout le monde" in said}
    assert crowd <= {"Everyone"}  # who sees a roll, never a list of characters
    assert catalogue["All characters"][0] == "Tous les personnages"


def test_what_only_players_read_in_the_catalogue_names_no_rule():
    catalogue = french_catalogue(where=True)
    cited = {
        msgid: said
        for msgid, (said, files) in catalogue.items()
        if files and files <= PLAYER_FILES and RULE_ID.search(said)
    }
    assert cited == {}


def test_the_engines_and_services_french_texts_pass_the_wording_scan():
    found = [
        (path.relative_to(ROOT).as_posix(), line, text, problems)
        for path in SOURCES
        for line, text in french_literals(path)
        if (problems := scan(text)) or "Tout le monde" in text or "MJ seul" in text
    ]
    assert found == []


def test_values_in_the_logs_sentences_take_the_minus_sign():
    """R1: "PV 10 → −16" in a change's sentence, the request's modifier "MJ −2"."""
    from journal.texts import value_text
    from rules.engine.text import check_text

    assert value_text(-16, "pv") == ("−16", "-16")

    class Facts:
        skill, stat, stat_value, natural, die_value, die_rule = None, "VAI", -3, 1, 1, None
        modifiers, total, difficulty, success, extreme, typed_in = (), -2, 10, False, None, False

    said = check_text(Facts())[0]
    assert "= −2 <" in said and not ASCII_MINUS.search(said), said


@pytest.mark.django_db
def test_r34_a_player_reads_no_rule_ids_the_gm_does(world, player_client, gm_client):
    """R34, R5, R31: the request's label, its answer, the sheet's warnings, the feed and its
    toasts: the player reads them without « (R5) » or « R5 · »; the GM with them. The answer
    says once that its die was typed in."""
    from django.urls import reverse

    from journal.feed import feed
    from play import requests
    from tests.play.steps import put

    campaign, gm, player, pc = world.campaign, world.gm, world.player, world.pc
    put(pc, sleep_deprived=True)
    requests.roll_request_create(
        character_id=pc.pk, actor=gm, stat="ADR", difficulty=12, modifier=-2
    )
    sheet = reverse("character", args=[campaign.pk, pc.pk])
    asked = player_client.get(sheet).content.decode()
    assert "MJ −2" in asked
    assert "Privé de sommeil" in asked
    [request] = pc.roll_requests.all()
    requests.roll_request_answer(request_id=request.pk, actor=player, dice=[20])

    seen = player_client.get(sheet).content.decode()
    card = seen[seen.index('data-testid="card"') : seen.index('id="result-')]
    # Her own answer is said once, under the card when she rolls it: not again on her card.
    assert "lancé par paul_joueur" not in card and not RULE_ID.search(card), card
    items = feed(world.player_membership, pc)
    assert items and not any(RULE_ID.search(i.text) or RULE_ID.search(i.toast) for i in items)

    gm_sheet = gm_client.get(sheet).content.decode()
    gm_card = gm_sheet[gm_sheet.index('data-testid="card"') : gm_sheet.index('id="result-')]
    assert "(R31)" in gm_card and "MJ −2 (R5)" in gm_card
    assert "lancé par paul_joueur" in gm_card and gm_card.count("dé saisi") == 1, gm_card
    assert any(i.text.startswith("R5 · ") for i in feed(world.gm_membership, pc))


@pytest.mark.django_db
def test_r10_the_card_says_when_the_coma_is_due_in_a_sentence(world, gm_client):
    from django.urls import reverse

    from tests.play.steps import at, put

    put(world.pc, vital="borrowed_time", pv=0, coma_due=at(minutes=10))
    html = gm_client.get(reverse("campaign", args=[world.campaign.pk])).content.decode()
    assert "coma prévu le jour 1 à 08:10" in html


@pytest.mark.django_db
def test_a_negative_pv_reads_with_the_minus_sign_on_cards_and_rows(world, gm_client):
    """R1: PV below 0 on the card's bar and the compact row."""
    from django.urls import reverse

    from tests.play.steps import put

    put(world.pc, vital="coma", pv=-4)
    url = reverse("campaign", args=[world.campaign.pk])
    assert "−4 / 14" in gm_client.get(url).content.decode()
    world.gm_membership.dashboard_view = "compact"
    world.gm_membership.save()
    assert "−4/14" in gm_client.get(url).content.decode()


def test_r18_an_hour_rest_says_points_lost_only_when_some_were():
    from rules.engine import hour_rest, share_hour_rest

    rested = hour_rest(campaign(hero(pv=5, flux=2)), rng=ScriptedDice([3])).state
    kept = share_hour_rest(rested, splits={"a": (2, 1)}).explanation_fr
    assert "au-delà du max" not in kept, kept
    lost = share_hour_rest(
        hour_rest(campaign(hero(pv=9, flux=6)), rng=ScriptedDice([3])).state,
        splits={"a": (2, 1)},
    ).explanation_fr
    assert "(2 points perdus au-delà du max)" in lost, lost


def test_r30_an_illness_on_its_last_day_says_so_not_zero_days():
    from datetime import timedelta

    from rules.engine import Illness, Severity, advance_clock
    from tests.rules.util import EVENING

    ill = hero(illness=Illness(Severity.MILD, 1))
    said = advance_clock(
        campaign(ill), to=EVENING + timedelta(hours=11), rng=ScriptedDice([])
    ).explanation_fr
    assert "dernier jour, la maladie prend fin demain matin" in said, said
    assert "0 jour" not in said


@pytest.mark.django_db
def test_french_dates_in_the_seals_sentence_and_the_history_filter(world, gm_client):
    from datetime import UTC, datetime
    from types import SimpleNamespace

    from django.urls import reverse
    from django.utils import translation

    from journal.seals import sealed_at

    with translation.override("fr"):
        when = sealed_at(SimpleNamespace(at=datetime(2026, 12, 4, 8, 35, tzinfo=UTC)))
    # « …, la dernière le 4 décembre 2026 à 09 h 35 » (the server's time zone)
    assert re.fullmatch(r"(?:\d{1,2}|1er) décembre 2026 à \d\d h \d\d", when), when
    html = gm_client.get(reverse("history", args=[world.campaign.pk])).content.decode()
    assert "Tous les personnages" in html and "Tout le monde</option>" not in html
    assert not ISO_DATE.search(
        re.sub(r'datetime="[^"]*"|<script.*?</script>', "", html, flags=re.S)
    )


@pytest.mark.django_db
def test_the_ask_panels_heading_has_no_ellipsis(world, gm_client):
    from django.urls import reverse

    url = reverse("roll_ask", args=[world.campaign.pk, world.pc.pk])
    html = gm_client.get(url).content.decode()
    assert "<h3>Demander un jet au joueur · Isaure</h3>" in html, html[:400]


@pytest.mark.django_db
def test_a_characters_gender_is_edited_through_the_service_and_logged(world, gm_client):
    """The grammatical gender is a sheet field: the new/edit forms show it, an edit writes
    its entry (before, after), and the card's vital state then agrees (R16: « morte »)."""
    from django.urls import reverse

    from journal.models import AuditEntry
    from play import services
    from tests.play.steps import put

    form = gm_client.get(reverse("character_create", args=[world.campaign.pk])).content.decode()
    assert 'name="gender"' in form and "iel (forme inclusive)" in form
    edit = reverse("character_edit", args=[world.campaign.pk, world.pc.pk])
    assert 'name="gender"' in gm_client.get(edit).content.decode()

    services.character_update(character_id=world.pc.pk, actor=world.gm, gender="elle")
    entry = AuditEntry.objects.filter(field="gender").get()
    assert (entry.before, entry.after, entry.character_id) == ("iel", "elle", world.pc.pk)
    assert entry.text_fr == "genre grammatical : iel → elle"
    put(world.pc, vital="dead", pv=-20)
    html = gm_client.get(reverse("campaign", args=[world.campaign.pk])).content.decode()
    # The card's down tag (play/_down.html): an icon, then the agreed word.
    assert '<span class="down-text">morte</span>' in html


def test_r3_the_history_chart_writes_pv_below_zero_with_the_minus_sign(world, gm_client):
    """R3: 14 dégâts, 2 PA: PV 11 → −1; the chart's table, its axis and its summary read
    « −1 », not « -1 »."""
    from django.urls import reverse

    run(
        world.campaign,
        world.gm,
        "damage",
        {"amount": "14", "cause": "morsure de rat"},
        character=world.pc,
        typed=[1],
    )
    url = reverse("character_chart", args=[world.campaign.pk, world.pc.pk])
    html = gm_client.get(url).content.decode()
    assert "<td>−1</td>" in html and "PV de 11 à −1" in html
    cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", html)
    ticks = re.findall(r'class="chart-tick"[^>]*>([^<]*)<', html)
    assert "−1" in ticks
    assert [c for c in cells + ticks if ASCII_MINUS.search(c)] == []
