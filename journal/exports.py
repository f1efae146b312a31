"""The history as CSV, JSON and Markdown, streamed, and a play session's recap in Markdown.

Exports read `.iterator(chunk_size=…)` over the filtered entries the viewer may see (the
same `visible_entries` as the pages) and yield text as they go: a long history never sits in
memory. Entries come newest first, like the pages.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from datetime import datetime

from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from journal import recap as recaps
from journal.audit import Seal, from_json
from journal.models import AuditEntry, EntryKind
from journal.seals import seal_sentence
from journal.standing import Standing
from journal.texts import field_name, fight_summary, rolled_by, value_text
from journal.texts import game_time as game_time_text
from rules.engine.text import game_day

CHUNK = 2000

# The CSV's columns: (key, French header, English header). A French spreadsheet splits on
# ";" (its decimal mark is the comma), an English one on ",".
CSV_COLUMNS = (
    ("id", "N°", "No."),
    ("created_at", "Horodatage", "Timestamp"),
    ("game_day", "Jour", "Day"),
    ("game_hour", "Heure de jeu", "Game time"),
    ("character", "Personnage", "Character"),
    ("actor", "Auteur", "By"),
    ("rolled_by", "Jet lancé par", "Rolled by"),
    ("kind", "Type", "Kind"),
    ("rule_id", "Règle", "Rule"),
    ("field", "Champ", "Field"),
    ("before", "Avant", "Before"),
    ("after", "Après", "After"),
    ("text", "Texte", "Text"),
    ("steps", "Raisonnement", "Reasoning"),
    ("roll", "Jet", "Roll"),
    ("visibility", "Visibilité", "Visibility"),
    ("reverts", "Annule l’entrée", "Reverts entry"),
    ("undone_by", "Annulée par", "Undone by"),
    ("batch", "Lot", "Batch"),
    ("data", "Données (JSON)", "Data (JSON)"),
)
CSV_SEPARATOR = {"fr": ";", "en": ","}
CSV_WORDS = {
    "kind": {"roll": ("jet", "roll"), "change": ("changement", "change")},
    "rolled_by": {"server": ("serveur", "server"), "typed_in": ("dé saisi", "typed in")},
    # The pages' own words (campaign.models.Visibility's labels, as translated).
    "visibility": {"everyone": ("Tout le monde", "Everyone"), "gm": ("MJ uniquement", "GM only")},
}


def _lang_index(lang: str) -> int:
    return 1 if lang == "en" else 0


def _game_day_and_hour(moment) -> tuple[int | None, str]:
    """The campaign clock's day (day 1 is the clock's start) and hour, as the table says them;
    the date the clock is stored on means nothing to anyone (R32)."""
    if moment is None:
        return None, ""
    return game_day(moment), moment.strftime("%H:%M")


def entry_record(entry: AuditEntry, lang: str, state: Standing | None = None) -> dict:
    """One entry as plain values: the row every format writes. `state` (the campaign's undos,
    journal/standing.py) says which undo took the entry back, if one did."""
    rolled_by = ""
    if entry.kind == EntryKind.ROLL:
        rolled_by = "typed_in" if entry.typed_in else "server"
    day, hour = _game_day_and_hour(entry.game_time)
    return {
        "id": entry.pk,
        "created_at": timezone.localtime(entry.created_at).isoformat(),
        "game_day": day,
        "game_hour": hour,
        "game_time_text": (
            game_time_text(entry.game_time)[_lang_index(lang)] if entry.game_time else ""
        ),
        "character": entry.character_name,
        "actor": entry.actor_name,
        "rolled_by": rolled_by,
        "kind": entry.kind,
        "rule_id": entry.rule_id,
        "field": entry.field,
        "before": entry.before,
        "after": entry.after,
        "text": entry.text(lang),
        "steps": entry.steps_text(lang),
        "roll": entry.roll,
        "visibility": entry.visibility,
        "reverts": entry.reverts_id,
        "undone_by": state.undone_by.get(entry.pk) if state is not None else None,
        "batch": str(entry.batch),
    } | _seal_record(entry)


def _seal_record(entry: AuditEntry) -> dict:
    """A sealed roll's or a reveal's seal (journal/sealing.py), as the viewer may see it: the
    commitment, and once revealed the opening and salt that check it; {} for other entries."""
    view = getattr(entry, "seal_view", None)
    if view is None:
        return {}
    return {
        "seal": {
            "sealed_roll": view.roll_id,
            "commitment": view.commitment,
            "reveal": view.reveal_id,
            "opening": view.opening or None,
            "salt": view.salt or None,
        }
    }


# The words of a seal in Markdown exports: (French, English).
SEAL_WORDS = {
    "sealed": ("scellé, engagement", "sealed, commitment"),
    "revealed": ("révélé, engagement", "revealed, commitment"),
}


def _records(entries: QuerySet[AuditEntry], lang: str, state=None) -> Iterator[dict]:
    for entry in entries.iterator(chunk_size=CHUNK):
        yield entry_record(entry, lang, state)


class _Line:
    """csv.writer writes into this and gets the line back, to yield it."""

    def write(self, value: str) -> str:
        return value


# OWASP's rule against CSV (formula) injection: a cell starting with one of these is read as
# a formula by spreadsheets (=HYPERLINK(…), +cmd|…, -2+3, @SUM(…)); a leading apostrophe makes
# it text, and the apostrophe itself is not shown.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def neutralise(text: str) -> str:
    """A text cell a spreadsheet will not run: OWASP's leading apostrophe when needed."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_cell(value) -> str | int | float:
    """A value as a CSV cell: numbers stay numbers (a negative PV is a number, not a formula);
    everything else is text, JSON for lists and mappings, neutralised."""
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False, cls=DjangoJSONEncoder)
    return neutralise(value)


# The changes whose values are moments of the game clock (R32), and the sequels' moment.
GAME_TIME_FIELDS = frozenset(
    {"clock", "coma_due", "next_coma_hour", "stabilised_at", "last_wake_try", "wake_tries_from"}
)


def _game_moment(value, index: int):
    if not isinstance(value, str):
        return value
    try:
        return game_time_text(datetime.fromisoformat(value))[index]
    except ValueError:
        return value


def _in_game_time(field: str, value, index: int):
    """A change's value with its game-clock moments as "jour 3, 16:55", not a stored date."""
    if field in GAME_TIME_FIELDS:
        return _game_moment(value, index)
    if field == "sequels" and isinstance(value, list):
        return [
            {**s, "at": _game_moment(s.get("at"), index)} if isinstance(s, dict) else s
            for s in value
        ]
    return value


def readable_value(field: str, value, index: int) -> str | int:
    """A change's stored value as the pages say it ("dans le coma", "jour 1, 09:00",
    "Fièvre (grave, 3 j)"), never JSON; "" for nothing. A number stays a number a
    spreadsheet adds up; a text people typed (a name, a note, a cause) stays whole."""
    if value is None:
        return ""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and field not in GAME_TIME_FIELDS and field != "vital":
        return value
    if field == "character" and isinstance(value, dict):
        return ", ".join(f"{key} {_flat(item)}" for key, item in value.items())
    try:
        engine_value = from_json(field, value)
        if field == "fight":
            return fight_summary(engine_value, {})[index]
        return value_text(engine_value, field)[index]
    except (KeyError, TypeError, ValueError, AttributeError):
        return _flat(value)


def _flat(value) -> str:
    """Any stored value as plain words: lists joined by commas, mappings as "key value"."""
    if isinstance(value, dict):
        return ", ".join(f"{key} {_flat(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_flat(item) for item in value)
    return "" if value is None else str(value)


# A roll's words in a CSV cell: (French, English).
ROLL_WORDS = {
    "total": ("total", "total"),
    "difficulty": ("difficulté", "difficulty"),
    "success": ("réussite", "success"),
    "failure": ("échec", "failure"),
    "natural": ("D20 naturel", "natural D20"),
}


def readable_roll(roll: dict | None, index: int) -> str:
    """ "1d20 → 14 · D20 naturel 14 · ADR · Survie · total 17 · difficulté 12 · réussite":
    what the roll was, in the viewer's words (a sealed roll shows only what the viewer may
    see: journal/visibility.py blanked the rest)."""
    if not roll:
        return ""
    words = {key: pair[index] for key, pair in ROLL_WORDS.items()}
    parts = []
    if roll.get("expression"):
        dice = ", ".join(str(d) for d in roll.get("dice") or ())
        parts.append(f"{roll['expression']} → {dice}" if dice else str(roll["expression"]))
    if roll.get("natural") is not None:
        parts.append(f"{words['natural']} {roll['natural']}")
    parts += [str(roll[key]) for key in ("stat", "skill") if roll.get(key)]
    if roll.get("total") is not None:
        parts.append(f"{words['total']} {roll['total']}")
    if roll.get("difficulty") is not None:
        parts.append(f"{words['difficulty']} {roll['difficulty']}")
    if roll.get("success") is not None:
        parts.append(words["success" if roll["success"] else "failure"])
    return " · ".join(parts)


def csv_row(record: dict, lang: str) -> list:
    index = _lang_index(lang)
    created = datetime.fromisoformat(record["created_at"]).strftime("%Y-%m-%d %H:%M:%S")
    field = record["field"]
    data = {
        key: _in_game_time(field, record[key], index) if key != "roll" else record[key]
        for key in ("before", "after", "roll")
        if record[key] is not None
    }
    values = {
        **record,
        "created_at": created,
        "field": field_name(field)[index] if field else "",
        "before": readable_value(field, record["before"], index),
        "after": readable_value(field, record["after"], index),
        "roll": readable_roll(record["roll"], index),
        "steps": " | ".join(record["steps"]),
        "data": json.dumps(data, ensure_ascii=False, cls=DjangoJSONEncoder) if data else "",
    }
    for key, words in CSV_WORDS.items():
        if record[key] in words:
            values[key] = words[record[key]][index]
    return [csv_cell(values[key]) for key, *_headers in CSV_COLUMNS]


def as_csv(
    entries: QuerySet[AuditEntry], lang: str, seal: Seal | None = None, state=None
) -> Iterator[str]:
    """The history as a spreadsheet opens it: one header row, then one row per entry and
    nothing else (the seal is in the file's name and on the page: a trailing row would be
    read as an entry). In French, ";" and French headers; in English, "," and English
    headers; UTF-8 with a byte order mark; every text cell neutralised. `seal` is accepted
    for the formats' common signature."""
    index = _lang_index(lang)
    writer = csv.writer(_Line(), delimiter=CSV_SEPARATOR["en" if index else "fr"])
    yield "\ufeff"  # spreadsheets read UTF-8 right with the byte order mark
    yield writer.writerow([headers[index] for _key, *headers in CSV_COLUMNS])
    for record in _records(entries, lang, state):
        yield writer.writerow(csv_row(record, lang))


def as_json(
    entries: QuerySet[AuditEntry], lang: str, seal: Seal | None = None, state=None
) -> Iterator[str]:
    """{"entries": [...], "seal": {"seal": "CHQ1-…", "count": n, "at": "…"}}, the seal last."""
    yield '{"entries": [\n'
    first = True
    for record in _records(entries, lang, state):
        text = json.dumps(record, ensure_ascii=False, cls=DjangoJSONEncoder)
        yield text if first else ",\n" + text
        first = False
    yield "\n]"
    if seal is not None:
        sealed = {
            "seal": str(seal),
            "count": seal.count,
            "at": seal.at.isoformat() if seal.at else None,
        }
        yield ',\n"seal": ' + json.dumps(sealed, ensure_ascii=False)
    yield "}\n"


def md_escape(text: str) -> str:
    """Text safe inside a Markdown line: the characters that would format are escaped."""
    for char in "\\`*_[]<>#|":
        text = text.replace(char, "\\" + char)
    return text.replace("\n", " ")


def roll_summary(entry: AuditEntry, lang: str) -> str:
    """Who rolled and how (R9), for Markdown lines."""
    return rolled_by(entry.typed_in, entry.actor_name)[_lang_index(lang)]


# "annulée par #79" in Markdown exports: (French, English).
UNDONE_WORDS = ("annulée par", "undone by")


def markdown_line(entry: AuditEntry, lang: str, state: Standing | None = None) -> str:
    when = timezone.localtime(entry.created_at).strftime("%Y-%m-%d %H:%M")
    parts = [f"`#{entry.pk}` {when}"]
    if entry.game_time:
        parts.append(game_time_text(entry.game_time)[_lang_index(lang)])
    if entry.character_name:
        parts.append(f"**{md_escape(entry.character_name)}**")
    undone = state.undone_by.get(entry.pk) if state is not None else None
    text = md_escape(entry.text(lang))
    parts.append(f"~~{text}~~ ({UNDONE_WORDS[_lang_index(lang)]} `#{undone}`)" if undone else text)
    if entry.kind == EntryKind.ROLL:
        parts.append(f"_{md_escape(roll_summary(entry, lang))}_")
    elif entry.actor_name:
        parts.append(f"_{md_escape(entry.actor_name)}_")
    view = getattr(entry, "seal_view", None)
    if view is not None:
        words = SEAL_WORDS["revealed" if view.revealed else "sealed"][_lang_index(lang)]
        parts.append(f"{words} `{view.commitment}`")
    steps = "".join(f"  - {md_escape(step)}\n" for step in entry.steps_text(lang))
    return "- " + " · ".join(parts) + "\n" + steps


def as_markdown(
    entries: QuerySet[AuditEntry],
    lang: str,
    title: str,
    seal: Seal | None = None,
    state: Standing | None = None,
) -> Iterator[str]:
    yield f"# {md_escape(title)}\n"
    day = object()
    for entry in entries.iterator(chunk_size=CHUNK):
        entry_day = None
        if entry.game_time:
            entry_day = game_time_text(entry.game_time)[_lang_index(lang)].split(",")[0]
        if entry_day != day:
            day = entry_day
            heading = md_escape(entry_day.capitalize()) if entry_day else _("Outside game time")
            yield f"\n## {heading}\n\n"
        yield markdown_line(entry, lang, state)
    if seal is not None:
        yield "\n---\n\n" + _markdown_seal(seal) + "\n"


def _markdown_seal(seal: Seal) -> str:
    return md_escape(seal_sentence(seal)).replace(str(seal), f"`{seal}`")


def recap_markdown(recap, lang: str, title: str, seal: Seal | None = None) -> str:
    """A session's story in short (journal/recap.py): when, each character from start to
    end, who fell, woke and died in game-time order, the notable rolls; what was undone is
    not in it."""
    index = _lang_index(lang)
    real, game = recaps.when_text(recap, lang)
    lines = [f"# {md_escape(title)}", "", md_escape(real) + ".", ""]
    if game:
        lines += [md_escape(game) + ".", ""]
    lines += [recaps.summary_text(recap, lang), "", "## " + _("Characters, from start to end")]
    nobody = "- " + _("Nobody.")
    for line in recap.characters:
        parts = []
        for name in ("pv", "flux", "vital"):
            start, end = line.shown("start", name, index), line.shown("end", name, index)
            label = field_name(name)[index]
            parts.append(f"{label} {start} → {end}" if start != end else f"{label} {end}")
        if line.sequels:
            parts.append(_("sequels gained: %(list)s") % {"list": ", ".join(line.sequels)})
        parts.append(
            _("conditions at the end: %(list)s") % {"list": line.shown("end", "conditions", index)}
        )
        if line.end.get("illness"):
            illness = line.end["illness"]
            named = f"{illness['name']}, " if illness.get("name") else ""
            parts.append(
                _("illness: %(what)s") % {"what": named + line.shown("end", "illness", index)}
            )
        lines.append(f"- **{md_escape(line.name)}** · " + md_escape(" · ".join(parts)))
    if not recap.characters:
        lines.append(nobody)
    lines += ["", "## " + _("Who fell, woke and died, in order")]
    lines += [
        f"- {e.when} · **{md_escape(e.name)}** · {md_escape(e.text)} (`#{e.entry_id}`)"
        for e in recap.events
    ] or [nobody]
    lines += ["", "## " + _("Notable rolls (natural 1 or 20, failed Survie tests)")]
    lines += [
        f"- {n.when} · **{md_escape(n.name)}** · {md_escape(n.text)} (`#{n.entry_id}`)"
        for n in recap.notable
    ] or ["- " + _("None.")]
    lines.append("")
    if seal is not None:
        lines += ["---", "", _markdown_seal(seal), ""]
    return "\n".join(lines)
