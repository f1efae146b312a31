"""A character's PV and Flux over game time, as a step chart drawn on the server (inline SVG:
no script, allowed by the CSP, printable, coloured by the stylesheet's variables so that it
follows light and dark), with the moments that matter marked and a table saying the same.

Only what counts is drawn (journal/standing.py: an undone change and the undo that reverted it
both drop out; the line is the one of a campaign where the action was never played), and only
what the viewer may see: the entries come from `journal.visibility.visible_entries`, and a
change the viewer may not see never moves their line (the next one they see steps from where
their line was).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Q

from campaign.models import Membership, PartyVisibility
from journal.models import AuditEntry, EntryKind, PlaySession
from journal.standing import standing
from journal.texts import in_language
from journal.visibility import visible_entries
from rules.engine.text import CONDITION_TEXT, game_day, moment_text

CHART_FIELDS = ("pv", "flux", "vital", "conditions", "sequels")
REST_RULES = {
    "R17": ("nuit de repos", "night's rest"),
    "R18": ("heure de repos", "hour's rest"),
    "R19": ("nuit en clinique", "night in a clinic"),
}
VITAL_MOMENTS = {
    "borrowed_time": ("en sursis", "on borrowed time"),
    "coma": ("coma", "coma"),
    "stabilised": ("stabilisé·e", "stabilised"),
    "dead": ("mort·e", "dead"),
    "up": ("debout", "up"),
}
# Marks drawn on the chart, by kind: a letter inside a small disc, readable in print.
MARKS = {
    "zero": "0",
    "borrowed_time": "S",
    "coma": "C",
    "stabilised": "+",
    "dead": "†",
    "up": "↑",
    "sequel": "Q",
    "condition_on": "▲",
    "condition_off": "▽",
    "rest": "z",
}

# The drawing's own units (the SVG scales to its box through viewBox).
WIDTH = 720
PANEL = 120  # height of the PV panel and of the Flux panel
LEFT, RIGHT, TOP, GAP, BOTTOM = 40, 10, 10, 26, 24
MARK_SPAN = 10  # the drawing's units one mark of a kind stands for


@dataclass
class Moment:
    at: datetime
    entry_id: int
    kind: str
    label: str
    x: float = 0.0
    level: int = 0  # its place among the marks that meet
    times: int = 1  # the moments of its kind this mark stands for

    @property
    def title(self) -> str:
        return self.label if self.times == 1 else f"{self.label} ×{self.times}"

    @property
    def mark_x(self) -> float:
        """Moments of one instant print their marks side by side, not over each other."""
        return self.x + 10 * self.level

    @property
    def mark(self) -> str:
        return MARKS[self.kind]

    @property
    def when(self) -> str:
        return in_language(*moment_text(self.at))


@dataclass
class Step:
    at: datetime
    entry_id: int | None
    pv: int | None
    flux: int | None
    moments: list[str] = field(default_factory=list)

    @property
    def when(self) -> str:
        return in_language(*moment_text(self.at))


@dataclass
class Line:
    """One quantity's step path, its axis and its bounds, in the drawing's units."""

    name: str
    path: str
    top: float
    bottom: float
    ticks: list[tuple[float, int]]
    zero: float | None


@dataclass
class Chart:
    character_id: int
    name: str
    steps: list[Step]
    moments: list[Moment]
    lines: list[Line]
    days: list[tuple[float, str]]
    marks: list[Moment] = field(default_factory=list)  # what the drawing marks (`_draw`)
    width: int = WIDTH
    height: int = TOP + 2 * PANEL + GAP + BOTTOM

    @property
    def unchanged(self) -> list[str]:
        """The quantities with no change in view: no line is drawn for them."""
        drawn = {line.name for line in self.lines}
        return [name for name in ("PV", "Flux") if name not in drawn]

    @property
    def empty(self) -> bool:
        return not self.steps

    @property
    def summary(self) -> str:
        """One sentence for a screen reader: where each line starts and ends."""
        first, last = self.steps[0], self.steps[-1]
        parts = []
        for name, attr in (("PV", "pv"), ("Flux", "flux")):
            start, end = getattr(first, attr), getattr(last, attr)
            if start is not None and end is not None:
                parts.append(
                    in_language(
                        f"{name} de {start} à {end}",
                        f"{name} from {start} to {end}",
                    )
                )
        count = len(self.moments)
        parts.append(
            in_language(
                f"{count} moment{'s' if count > 1 else ''} marqué{'s' if count > 1 else ''}",
                f"{count} moment{'s' if count != 1 else ''} marked",
            )
        )
        span = in_language(
            f"du {first.when} au {last.when}",
            f"from {first.when} to {last.when}",
        )
        return f"{self.name} ({span}) · " + ", ".join(parts)


def session_bounds(session: PlaySession) -> tuple[datetime, datetime | None]:
    """The real-time span of a play session: from its start to the next session's."""
    following = (
        PlaySession.objects.filter(
            campaign_id=session.campaign_id, started_at__gt=session.started_at
        )
        .order_by("started_at")
        .values_list("started_at", flat=True)
        .first()
    )
    return session.started_at, following


def in_session(entries, session: PlaySession):
    """`entries` narrowed to a play session's span. The entries before it are found from the
    newest down on the campaign's index, and the rest read from that id up: a recent session
    of a long campaign costs its own entries, not the campaign's (a campaign's entries are
    written in time order, under its lock)."""
    start, end = session_bounds(session)
    before = (
        AuditEntry.objects.filter(campaign_id=session.campaign_id, created_at__lt=start)
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )
    if before is not None:
        entries = entries.filter(id__gt=before)
    entries = entries.filter(created_at__gte=start)
    if end is not None:
        entries = entries.filter(created_at__lt=end)
    return entries


def _rows(membership: Membership, character_ids, session: PlaySession | None):
    entries = visible_entries(membership).filter(
        character_id__in=character_ids, kind=EntryKind.CHANGE, field__in=CHART_FIELDS
    )
    if session is not None:
        entries = in_session(entries, session)
    # What was played only: an undone change and the standing undo that took it back both
    # drop out (journal/standing.py).
    entries = standing(membership.campaign_id).counted(entries)
    rows = entries.order_by().values_list(
        "id", "character_id", "game_time", "field", "before", "after", "rule_id", "batch"
    )
    return list(rows.iterator(chunk_size=5000))


def character_charts(
    membership: Membership, characters, *, session: PlaySession | None = None
) -> list[Chart]:
    """One chart per character (in the order given), from one query."""
    characters = list(characters)
    by_character: dict[int, list] = {c.pk: [] for c in characters}
    for row in _rows(membership, list(by_character), session):
        by_character[row[1]].append(row)
    return [_chart(c, by_character[c.pk]) for c in characters]


def character_chart(
    membership: Membership, character, *, session: PlaySession | None = None
) -> Chart:
    return character_charts(membership, [character], session=session)[0]


def _timed(rows):
    """Rows in game-time order, ties by log order; a row without game time takes the time of
    the row before it in the log."""
    rows = sorted(rows, key=lambda row: row[0])
    timed, last = [], None
    for row in rows:
        at = row[2] or last
        if at is None:
            continue
        last = at
        timed.append((at, row))
    timed.sort(key=lambda pair: (pair[0], pair[1][0]))
    return timed


def _moments(at, row) -> list[Moment]:
    entry_id, _, _, name, before, after, rule_id, _ = row
    found = []

    def add(kind, fr, en):
        found.append(Moment(at, entry_id, kind, in_language(fr, en)))

    if name == "pv":
        if isinstance(after, int) and after <= 0 and (not isinstance(before, int) or before > 0):
            add("zero", "0 PV", "0 PV")
        if rule_id in REST_RULES:
            add("rest", *REST_RULES[rule_id])
    elif name == "vital" and after in VITAL_MOMENTS:
        fr, en = VITAL_MOMENTS[after]
        if after == "up" and before in ("coma", "stabilised"):
            fr, en = "réveil", "wakes"
        add(after, fr, en)
    elif name == "sequels":
        old = {(s.get("stat"), s.get("cause")) for s in before or ()}
        for sequel in after or ():
            if (sequel.get("stat"), sequel.get("cause")) not in old:
                stat = sequel.get("stat", "")
                add("sequel", f"séquelle ({stat})", f"sequel ({stat})")
    elif name == "conditions":
        old = {c.get("kind") for c in before or ()}
        new = {c.get("kind") for c in after or ()}
        for kind, mark in [
            *((k, "condition_on") for k in new - old),
            *((k, "condition_off") for k in old - new),
        ]:
            names = CONDITION_TEXT.get(kind)
            fr, en = (names[0], names[1]) if names else (kind, kind)
            on = mark == "condition_on"
            add(mark, f"{fr} {'+' if on else '−'}", f"{en} {'on' if on else 'off'}")
    return found


def _chart(character, rows) -> Chart:
    steps: list[Step] = []
    moments: list[Moment] = []
    pv = flux = None
    rests = set()
    for at, row in _timed(rows):
        entry_id, _, _, name, before, after, rule_id, batch = row
        if name in ("pv", "flux") and isinstance(after, int):
            if name == "pv":
                if pv is None and isinstance(before, int):
                    steps.append(Step(at, None, before, flux))
                pv = after
            else:
                if flux is None and isinstance(before, int):
                    steps.append(Step(at, None, pv, before))
                flux = after
            steps.append(Step(at, entry_id, pv, flux))
        for moment in _moments(at, row):
            if moment.kind == "rest":
                if (batch, rule_id) in rests:
                    continue
                rests.add((batch, rule_id))
            moments.append(moment)
            if not steps:
                steps.append(Step(at, None, pv, flux))
            steps[-1].moments.append(moment.label)
    chart = Chart(character.pk, character.name, steps, moments, [], [])
    if steps:
        _draw(chart, character)
    return chart


def _draw(chart: Chart, character) -> None:
    steps = chart.steps
    start, end = steps[0].at, steps[-1].at
    if end <= start:
        end = start + timedelta(hours=1)
    span = (end - start).total_seconds()
    plot = WIDTH - LEFT - RIGHT
    # The last value holds a little past the last change, so that it shows as a level.
    end_x = LEFT + plot

    def x_of(at: datetime) -> float:
        return round(LEFT + (at - start).total_seconds() / span * plot * 0.96)

    # One mark per kind and stretch of MARK_SPAN units, side by side when they meet: a long
    # campaign's thousands of moments stay a readable row (the table lists each one).
    marks: dict[tuple[int, str], Moment] = {}
    stacked: dict[int, int] = {}
    for moment in chart.moments:
        moment.x = x_of(moment.at)
        place = (moment.x // MARK_SPAN, moment.kind)
        mark = marks.get(place)
        if mark is not None:
            mark.times += 1
            continue
        marks[place] = moment
        moment.level = stacked.get(moment.x // MARK_SPAN, 0)
        stacked[moment.x // MARK_SPAN] = moment.level + 1
    chart.marks = list(marks.values())
    panels = (
        ("pv", "PV", getattr(character, "pv_max", 0), TOP),
        ("flux", "Flux", getattr(character, "flux_max", 0), TOP + PANEL + GAP),
    )
    for attr, name, maximum, top in panels:
        values = [getattr(s, attr) for s in steps if getattr(s, attr) is not None]
        if not values:
            continue
        lo, hi = min(0, *values), max(maximum or 0, *values, 1)
        bottom = top + PANEL

        def y_of(value, lo=lo, hi=hi, top=top, bottom=bottom):
            return round(bottom - (value - lo) / (hi - lo) * (bottom - top), 1)

        # One drawing step per column of the drawing at most: a long campaign's thousands of
        # changes in one column draw as the range they covered, then where they ended.
        columns: list[tuple[float, list[int]]] = []
        for step in steps:
            value = getattr(step, attr)
            if value is None:
                continue
            x = x_of(step.at)
            if columns and columns[-1][0] == round(x):
                columns[-1][1].append(value)
            else:
                columns.append((round(x), [value]))
        # Before its first change in view, a line holds that change's `before`: from the start.
        if columns[0][0] > LEFT:
            columns.insert(0, (LEFT, [columns[0][1][0]]))
        path = []
        for x, column in columns:
            ys = (
                [y_of(min(column)), y_of(max(column)), y_of(column[-1])]
                if len(column) > 1
                else [y_of(column[0])]
            )
            path.append(f"M{x} {ys[0]}" if not path else f"H{x} V{ys[0]}")
            path.extend(f"V{y}" for y in ys[1:])
        path.append(f"H{end_x}")
        ticks = sorted({(y_of(v), v) for v in (lo, hi, 0)})
        chart.lines.append(
            Line(name, " ".join(path), top, bottom, ticks, y_of(0) if lo < 0 else None)
        )
    day, last = None, None
    for step in steps:
        number = game_day(step.at)
        if number != day:
            x = x_of(step.at)
            if last is None or x - last > 70:
                chart.days.append((x, in_language(f"jour {number}", f"day {number}")))
                last = x
            day = number


def chartable_characters(membership: Membership):
    """The characters whose chart a member may open: those the history lets them pick."""
    characters = membership.campaign.characters.order_by("kind", "name", "pk")
    if membership.is_gm:
        return characters
    if membership.campaign.party_visibility == PartyVisibility.NOTHING:
        return characters.filter(owner_id=membership.user_id)
    return characters.filter(Q(kind="pc") | Q(owner_id=membership.user_id))


def party_charts(membership: Membership, session: PlaySession | None) -> list[Chart]:
    """The party's small multiples: each player character the viewer sees something of."""
    party = chartable_characters(membership).filter(kind="pc")
    return [c for c in character_charts(membership, party, session=session) if not c.empty]
