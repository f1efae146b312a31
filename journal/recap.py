"""A play session's recap: when it started and ended, each character from start to end, who
fell, woke and died in order, the notable rolls. The page and the Markdown both read it.

It counts only what was played (journal/standing.py `counts`): an undone change never
happened, nor did the undo that took it back, nor the rolls of an action wholly undone. So
the recap of a session where actions were undone is the recap of the same session played
without them. Events come in game-time order, ties in log order.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from characters.models import Character
from characters.state import character_state
from journal.audit import from_json, to_json
from journal.feed import typographic
from journal.models import AuditEntry, EntryKind, PlaySession
from journal.sealing import REVEAL_FIELD
from journal.standing import Standing
from journal.texts import game_time, real_date, value_text
from rules.engine import text as engine_text
from rules.engine.state import Vital
from rules.engine.words import IEL, agree

# The fields a character's line follows from the session's start to its end.
FOLLOWED = ("pv", "flux", "vital", "conditions", "illness")

# What a change of vital state is, for the "who fell, woke, died" list: (kind, French, English).
FELL, WOKE, DIED, STABILISED = "fell", "woke", "died", "stabilised"
EVENT_WORDS = {
    (FELL, Vital.BORROWED_TIME): ("tombe à 0 PV, en sursis", "falls to 0 PV, on borrowed time"),
    (FELL, Vital.COMA): ("tombe dans le coma", "falls into a coma"),
    (STABILISED, Vital.STABILISED): ("est stabilisé·e", "is stabilised"),
    (WOKE, Vital.UP): ("se réveille", "wakes up"),
    (DIED, Vital.DEAD): ("meurt", "dies"),
}
DOWN = {Vital.BORROWED_TIME, Vital.COMA, Vital.STABILISED}


def vital_event(before, after) -> str | None:
    """The kind of a vital change: fell, stabilised, woke, died; None for others."""
    try:
        before, after = Vital(before), Vital(after)
    except ValueError:
        return None
    if after == Vital.DEAD:
        return DIED
    if after == Vital.UP and before in DOWN:
        return WOKE
    if after == Vital.STABILISED:
        return STABILISED
    if after in (Vital.BORROWED_TIME, Vital.COMA) and before != after:
        return FELL
    return None


@dataclass(frozen=True)
class Event:
    kind: str  # fell, stabilised, woke, died
    when: str  # the game time, "jour 1, 10:00"
    name: str
    text: str  # "tombe dans le coma"
    entry_id: int


@dataclass(frozen=True)
class Notable:
    when: str
    name: str
    text: str
    entry_id: int


@dataclass
class CharacterLine:
    name: str
    start: dict = field(default_factory=dict)  # field -> stored value at the start
    end: dict = field(default_factory=dict)  # field -> stored value at the end
    sequels: list[str] = field(default_factory=list)  # gained during the session

    def shown(self, which: str, name: str, lang: int) -> str:
        values = self.start if which == "start" else self.end
        if name not in values:
            return "—"
        value = values[name]
        return typographic(value_text(from_json(name, value), name)[lang])


@dataclass
class Recap:
    session: PlaySession
    started_at: datetime | None = None
    ended_at: datetime | None = None
    game_start: datetime | None = None
    game_end: datetime | None = None
    rolls: int = 0
    changes: int = 0
    characters: list[CharacterLine] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    notable: list[Notable] = field(default_factory=list)


def _order(entry: AuditEntry):
    # Game-time order, ties (and entries outside game time, last) in log order.
    return (entry.game_time is None, entry.game_time or datetime.min, entry.pk)


def build(session: PlaySession, entries, state: Standing, lang: str, *, membership=None) -> Recap:
    """The recap of `entries` (the session's entries the viewer may see, any order). `lang`
    is "fr" or "en"; `membership` decides whether today's rows may stand in for a value no
    visible entry gives (the GM only: a player's line never shows what the GM kept)."""
    index = 1 if lang == "en" else 0
    counted = sorted((e for e in entries if state.counts(e)), key=_order)
    recap = Recap(session, started_at=session.started_at)
    if not counted:
        return recap
    recap.ended_at = max(e.created_at for e in counted)
    moments = [e.game_time for e in counted if e.game_time is not None]
    moments += [from_json("clock", e.after) for e in counted if e.field == "clock" and e.after]
    if moments:
        recap.game_start, recap.game_end = min(moments), max(moments)
    lines: dict[int, CharacterLine] = {}
    marked: list[tuple[int, int | None]] = []  # events whose words carry an inclusive mark
    for entry in counted:
        name = entry.character_name or "—"
        when = game_time(entry.game_time)[index] if entry.game_time else ""
        if entry.kind == EntryKind.ROLL:
            if entry.field == REVEAL_FIELD:
                continue  # a sealed roll revealed: the roll itself is counted, once
            recap.rolls += 1
            roll = entry.roll or {}
            failed_survie = roll.get("skill") == "Survie" and roll.get("success") is False
            if roll.get("natural") in (1, 20) or failed_survie:
                recap.notable.append(Notable(when, name, entry.text(lang), entry.pk))
            continue
        recap.changes += 1
        if entry.character_id is not None and entry.field in (*FOLLOWED, "sequels"):
            line = lines.setdefault(entry.character_id, CharacterLine(name))
            line.name = name
            if entry.field == "sequels":
                gained = (entry.after or [])[len(entry.before or []) :]
                for sequel in gained:
                    cause = f" ({sequel['cause']})" if sequel.get("cause") else ""
                    line.sequels.append(f"−1 {sequel['stat']}{cause}")
            else:
                line.start.setdefault(entry.field, entry.before)
                line.end[entry.field] = entry.after
        if entry.field == "vital":
            kind = vital_event(entry.before, entry.after)
            if kind is not None:
                words = EVENT_WORDS[(kind, Vital(entry.after))][index]
                recap.events.append(Event(kind, when, name, words, entry.pk))
                marked.append((len(recap.events) - 1, entry.character_id))
    _agree_events(recap, marked)
    if membership is not None and membership.is_gm:
        _fill_from_rows(lines, counted[-1].pk, state)
    recap.characters = sorted(lines.values(), key=lambda line: line.name)
    return recap


def _agree_events(recap: Recap, marked: list[tuple[int, int | None]]) -> None:
    """« est stabilisée » for a character who is « elle »: one query, only when an event's
    words carry an inclusive mark (« stabilisé·e »)."""
    marked = [(i, pk) for i, pk in marked if pk is not None and "·" in recap.events[i].text]
    if not marked:
        return
    genders = dict(
        Character.objects.filter(pk__in={pk for _, pk in marked}).values_list("pk", "gender")
    )
    for i, pk in marked:
        event = recap.events[i]
        recap.events[i] = replace(event, text=agree(event.text, genders.get(pk, IEL)))


def _fill_from_rows(lines: dict[int, CharacterLine], last_id: int, state: Standing) -> None:
    """A followed field the session did not change: its value then is the `before` of its
    next counted change after the session, else today's row (GM's view only)."""
    later: dict[tuple[int, str], object] = {}
    after = AuditEntry.objects.filter(
        character_id__in=list(lines), field__in=FOLLOWED, kind=EntryKind.CHANGE, pk__gt=last_id
    ).order_by("pk")
    for entry in after.only("pk", "character_id", "field", "before", "reverts_id", "batch"):
        if state.counts(entry):
            later.setdefault((entry.character_id, entry.field), entry.before)
    rows = Character.objects.filter(pk__in=list(lines)).prefetch_related("conditions", "sequels")
    for row in rows.select_related("illness"):
        line = lines[row.pk]
        now = character_state(row, ())
        for name in FOLLOWED:
            if name in line.end:
                continue
            value = later.get((row.pk, name), to_json(getattr(now, name)))
            line.start[name] = line.end[name] = value


def summary_text(recap: Recap, lang: str) -> str:
    """ "12 jets, 1 changement." with the plurals right."""
    rolls = ngettext("%(n)s roll", "%(n)s rolls", recap.rolls) % {"n": recap.rolls}
    changes = ngettext("%(n)s change", "%(n)s changes", recap.changes) % {"n": recap.changes}
    return f"{rolls}, {changes}."


def when_text(recap: Recap, lang: str) -> tuple[str, str]:
    """(real time, game time) of the session, in words."""
    index = 1 if lang == "en" else 0
    real = _("Started %(start)s") % {"start": real_date(recap.started_at, lang)}
    if recap.ended_at is not None:
        real += ", " + _("last entry %(end)s") % {"end": real_date(recap.ended_at, lang)}
    game = ""
    if recap.game_start is not None and recap.game_start == recap.game_end:
        game = _("In game: %(moment)s") % {
            "moment": engine_text.moment_text(recap.game_start)[index]
        }
    elif recap.game_start is not None:
        game = _("In game: from %(start)s to %(end)s") % {
            "start": engine_text.moment_text(recap.game_start)[index],
            "end": engine_text.moment_text(recap.game_end)[index],
        }
    return real, game
