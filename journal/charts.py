"""A character's PV and Flux over game time, as a step chart drawn on the server (inline SVG:
no script, allowed by the CSP, printable, coloured by the stylesheet's variables so that it
follows light and dark), with the moments that matter marked and a table saying the same.

Only what counts is drawn (journal/standing.py: an undone change and the undo that reverted it
both drop out; the line is the one of a campaign where the action was never played), and only
what the viewer may see: the entries come from `journal.visibility.visible_entries`, and a
change the viewer may not see never moves their line (the next one they see steps from where
their line was).

A session's chart reads the log; the whole campaign's reads the kept chart rows
(journal/points.py: the same counted changes, filtered by `point_filter` as
`visible_entries` filters the log), aggregated by the drawing's columns in PostgreSQL when a
character has more than AGGREGATE_ABOVE PV and Flux changes in view: from the hours kept summed
up (journal.models.ChartHour) when the chart is coarse (more than an hour per column, see
`_x_axis`), so that a long campaign's chart reads a row per hour, not per change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import connections, router
from django.db.models import Q

from campaign.models import Membership, PartyVisibility, Visibility
from journal import points as points_module
from journal.models import AuditEntry, ChartHour, ChartPoint, EntryKind, PlaySession
from journal.points import CHART_FIELDS, REST_RULES, pv_moment
from journal.standing import standing
from journal.texts import in_language
from journal.visibility import STATE_FIELDS, visible_entries
from rules.engine.text import CONDITION_TEXT, MINUS, game_day, moment_text

# A whole-campaign chart with more PV and Flux changes than this in view is drawn from the
# kept chart rows aggregated by the drawing's columns in the database (PostgreSQL): its cost
# stays that of the drawing, not of the campaign's length. Fewer are read one by one.
AGGREGATE_ABOVE = 2000
# A coarse chart reads the hours kept summed up; False reads the changes (bench/story.py
# measures both in one run).
READ_HOURS = True
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
    changed: str = ""  # "pv" or "flux": the line this step moves ("" for a moment alone)

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
    # Aggregated from the kept rows (a long campaign): how many steps and moments there are,
    # when `steps` holds only the first ones (the table's) and `moments` one per mark, and
    # the last step (where each line ends).
    step_count: int | None = None
    moment_count: int | None = None
    last_step: Step | None = None
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
    def total_steps(self) -> int:
        return len(self.steps) if self.step_count is None else self.step_count

    @property
    def summary(self) -> str:
        """One sentence for a screen reader: where each line starts and ends."""
        first, last = self.steps[0], self.last_step or self.steps[-1]
        parts = []
        for name, attr in (("PV", "pv"), ("Flux", "flux")):
            start, end = getattr(first, attr), getattr(last, attr)
            if start is not None and end is not None:
                # "PV de −3 à 5": the minus sign, not a hyphen, as everywhere else.
                start, end = (f"{MINUS}{-v}" if v < 0 else v for v in (start, end))
                parts.append(
                    in_language(
                        f"{name} de {start} à {end}",
                        f"{name} from {start} to {end}",
                    )
                )
        count = len(self.moments) if self.moment_count is None else self.moment_count
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


# What a chart reads of an entry (or of a kept row: its `entry_id` in place of `id`).
ROW = ("id", "character_id", "game_time", "field", "before", "after", "rule_id", "batch")
POINT_ROW = ("entry_id", *ROW[1:])
HOUR_ROW = (
    "field",
    "hour",
    "count",
    "low",
    "high",
    "first_at",
    "last_at",
    "last_value",
    "last_entry",
    "zeros",
    "zero_at",
    "zero_entry",
)
LINE_FIELDS = ("pv", "flux")
OTHER_FIELDS = tuple(name for name in CHART_FIELDS if name not in LINE_FIELDS)
HEAD = 600  # the rows an aggregated chart reads one by one, for its table's first steps


def _log_rows(membership: Membership, character_ids, session: PlaySession):
    """A session's rows, from the log (a session's entries are found on the campaign's
    index, so a recent session of a long campaign costs its own entries)."""
    entries = visible_entries(membership).filter(
        character_id__in=character_ids, kind=EntryKind.CHANGE, field__in=CHART_FIELDS
    )
    entries = in_session(entries, session)
    # What was played only: an undone change and the standing undo that took it back both
    # drop out (journal/standing.py).
    entries = standing(membership.campaign_id).counted(entries)
    rows = entries.order_by().values_list(*ROW)
    return list(rows.iterator(chunk_size=5000))


def point_filter(membership: Membership, character) -> Q:
    """The kept chart rows of `character` a member may see: what
    `journal.visibility.player_filter` lets a player see of a character's changes of charted
    fields, said on the rows' own columns and decided for the character here (so that the
    database reads only the fields the viewer may see, on the rows' index)."""
    mine = Q(character_id=character.pk)
    if membership.is_gm:
        return mine
    mine &= Q(visibility=Visibility.EVERYONE)
    party = membership.campaign.party_visibility
    if party == PartyVisibility.BARS or character.owner_id == membership.user_id:
        return mine
    if party == PartyVisibility.STATE:
        return mine & Q(field__in=STATE_FIELDS)
    return Q(pk__in=[])


def _seen(membership: Membership, characters) -> Q:
    seen = Q(pk__in=[])
    for character in characters:
        seen |= point_filter(membership, character)
    return seen


def _points(membership: Membership, characters):
    """The whole campaign's rows, from the kept chart rows (journal/points.py): what counts
    only, as the log's `counted` entries are."""
    return ChartPoint.objects.filter(campaign_id=membership.campaign_id).filter(
        _seen(membership, characters)
    )


def _hours(membership: Membership, characters):
    """The same rows' PV and Flux summed by hour (journal.models.ChartHour), seen alike: the
    filter's columns (character, field, visibility) are the hours' too, so that a change the
    viewer may not see is in no hour they read."""
    return ChartHour.objects.filter(campaign_id=membership.campaign_id).filter(
        _seen(membership, characters)
    )


def _line_points(points):
    return points.filter(field__in=LINE_FIELDS, value__isnull=False, game_time__isnull=False)


def _many(points) -> bool:
    """More PV and Flux changes than AGGREGATE_ABOVE (one row read past the limit)."""
    lines = _line_points(points).order_by().values_list("pk", flat=True)
    return lines[AGGREGATE_ABOVE : AGGREGATE_ABOVE + 1].exists()


def character_charts(
    membership: Membership, characters, *, session: PlaySession | None = None
) -> list[Chart]:
    """One chart per character (in the order given): a session's from the log, the whole
    campaign's from the kept chart rows, aggregated in the database for a long campaign."""
    characters = list(characters)
    by_character: dict[int, list] = {c.pk: [] for c in characters}
    if session is not None:
        for row in _log_rows(membership, list(by_character), session):
            by_character[row[1]].append(row)
        return [_chart(c, by_character[c.pk]) for c in characters]
    large = set()
    if connections[router.db_for_read(ChartPoint)].vendor == "postgresql":
        large = {c.pk for c in characters if _many(_points(membership, [c]))}
    rest = [c for c in characters if c.pk not in large]
    if rest:
        rows = _points(membership, rest).order_by().values_list(*POINT_ROW)
        for row in rows.iterator(chunk_size=5000):
            by_character[row[1]].append(row)
    return [
        _aggregated(c, _points(membership, [c]), _hours(membership, [c]))
        if c.pk in large
        else _chart(c, by_character[c.pk])
        for c in characters
    ]


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


def _moment(at, entry_id, kind, rule_id="", **extra) -> Moment:
    if kind == "zero":
        fr, en = "0 PV", "0 PV"
    else:
        fr, en = REST_RULES[rule_id]
    return Moment(at, entry_id, kind, in_language(fr, en), **extra)


def _moments(at, row) -> list[Moment]:
    entry_id, _, _, name, before, after, rule_id, _ = row
    found = []

    def add(kind, fr, en):
        found.append(Moment(at, entry_id, kind, in_language(fr, en)))

    if name == "pv":
        kind = pv_moment(before, after, rule_id)
        if kind:
            found.append(_moment(at, entry_id, kind, rule_id))
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


def _steps(rows) -> tuple[list[Step], list[Moment]]:
    steps: list[Step] = []
    moments: list[Moment] = []
    pv = flux = None
    rests = set()
    for at, row in _timed(rows):
        entry_id, _, _, name, before, after, rule_id, batch = row
        if name in LINE_FIELDS and isinstance(after, int):
            if name == "pv":
                if pv is None and isinstance(before, int):
                    steps.append(Step(at, None, before, flux, changed="pv"))
                pv = after
            else:
                if flux is None and isinstance(before, int):
                    steps.append(Step(at, None, pv, before, changed="flux"))
                flux = after
            steps.append(Step(at, entry_id, pv, flux, changed=name))
        for moment in _moments(at, row):
            if moment.kind == "rest":
                if (batch, rule_id) in rests:
                    continue
                rests.add((batch, rule_id))
            moments.append(moment)
            if not steps:
                steps.append(Step(at, None, pv, flux))
            steps[-1].moments.append(moment.label)
    return steps, moments


def _chart(character, rows) -> Chart:
    steps, moments = _steps(rows)
    chart = Chart(character.pk, character.name, steps, moments, [], [])
    if steps:
        x_of = _x_axis(steps[0].at, steps[-1].at)
        _draw(chart, character, x_of, _columns(steps, x_of))
    return chart


def _x_axis(start: datetime, end: datetime):
    """Game time -> the drawing's x (a whole unit; halves round up, as the database's
    aggregation rounds them). A chart longer than one hour per unit is coarse: a change is
    drawn at the column of its hour (journal/points.HOUR), which moves it by less than a
    column, so that the hours kept summed up draw exactly what the changes would."""
    if end <= start:
        end = start + timedelta(hours=1)
    plot = WIDTH - LEFT - RIGHT
    hour = points_module.HOUR
    coarse = (end - start).total_seconds() >= hour * plot
    begin = start.timestamp()
    if coarse:
        begin = math.floor(begin / hour) * hour
    span = end.timestamp() - begin

    def x_of(at: datetime) -> int:
        t = at.timestamp()
        if coarse:
            t = math.floor(t / hour) * hour
        return math.floor(LEFT + (t - begin) / span * plot * 0.96 + 0.5)

    x_of.begin, x_of.span, x_of.plot, x_of.coarse = begin, span, plot, coarse
    return x_of


# One column of a line: (x, first value, lowest, highest, last value, values, first and last
# game time). A long campaign's thousands of changes in one column draw as the range they
# covered, then where they ended.
def _columns(steps: list[Step], x_of) -> dict[str, list[tuple]]:
    columns: dict[str, list[tuple]] = {name: [] for name in LINE_FIELDS}
    for step in steps:
        value = getattr(step, step.changed) if step.changed else None
        if value is None:
            continue
        x, line = x_of(step.at), columns[step.changed]
        if line and line[-1][0] == x:
            _, first, lo, hi, _, n, first_at, _ = line[-1]
            line[-1] = (x, first, min(lo, value), max(hi, value), value, n + 1, first_at, step.at)
        else:
            line.append((x, value, value, value, value, 1, step.at, step.at))
    return columns


# Each column's range and last value (its first is its lowest when it holds one value; the
# first column's first comes from the rows read one by one).
_AGGREGATE = """
    SELECT field, x, min(value), max(value), count(*), min(game_time), max(game_time),
        (array_agg(value ORDER BY t DESC, entry_id DESC))[1]
    FROM ({x}) AS q GROUP BY field, x ORDER BY field, x
"""
_AGGREGATE_MOMENTS = """
    SELECT moment, x / %s, count(*), count(DISTINCT batch),
        (min(ARRAY[t, entry_id::float8]))[2]::bigint, min(rule_id), min(game_time)
    FROM ({x}) AS q GROUP BY moment, x / %s
"""
_X = (
    "SELECT p.*, floor(%s::float8 + ({t} - %s::float8) "
    "/ %s::float8 * %s::float8 * %s::float8 + 0.5::float8)::int AS x "
    "FROM (SELECT r.*, extract(epoch FROM r.game_time)::float8 AS t "
    "FROM ({rows}) AS r(field, value, game_time, entry_id, batch, rule_id, moment)) AS p"
)
# A coarse chart (`_x_axis`) draws a change at its hour's column.
_COARSE_T = "(floor(p.t / {hour}::float8) * {hour}::float8)"
# A coarse chart's columns from the hours kept summed up (journal.models.ChartHour): the same
# columns as `_AGGREGATE` makes of the changes, reading a row per hour, not per change. Plain
# aggregates only (the last value as the greatest [time, entry, value]): the database hashes
# the columns instead of sorting every hour.
_AGGREGATE_HOURS = """
    SELECT field, x, min(low), max(high), sum(count), min(first_at), max(last_at),
        (max(ARRAY[(extract(epoch FROM last_at) * 1000000)::bigint, last_entry,
            last_value]))[3],
        sum(zeros), min(zero_at), min(ARRAY[hour, zero_entry]) FILTER (WHERE zeros > 0)
    FROM (SELECT h.*, floor(%s::float8 + ((h.hour * {hour})::float8 - %s::float8)
            / %s::float8 * %s::float8 * %s::float8 + 0.5::float8)::int AS x
        FROM ({rows}) AS h(field, hour, count, low, high, first_at, last_at, last_value,
            last_entry, zeros, zero_at, zero_entry)) AS q
    GROUP BY field, x ORDER BY field, x
"""


def _aggregated(character, points, hours) -> Chart:
    """A long campaign's chart: the same drawing as `_chart` would make of every row, from
    the kept rows aggregated by the drawing's columns in the database (PostgreSQL); the table
    lists the first steps."""
    lines = _line_points(points)
    # Where the lines begin and end: each line's first and last row on its index.
    ends = []
    for name in LINE_FIELDS:
        times = lines.filter(field=name).values_list("game_time", flat=True)
        ends += [times.order_by("game_time").first(), times.order_by("-game_time").first()]
    ends = [at for at in ends if at is not None]
    others = points.filter(field__in=OTHER_FIELDS).order_by().values_list(*POINT_ROW)
    moments = [m for at, row in _timed(list(others)) for m in _moments(at, row)]
    head = points.filter(game_time__isnull=False).order_by("game_time", "entry_id")
    steps, _ = _steps(list(head.values_list(*POINT_ROW)[:HEAD]))
    start = min([*ends, *(m.at for m in moments[:1])])
    end = max(ends)
    x_of = _x_axis(start, end)
    read = ("field", "value", "game_time", "entry_id", "batch", "rule_id", "moment")
    x_params = [LEFT, x_of.begin, x_of.span, x_of.plot, 0.96]
    t = _COARSE_T.format(hour=int(points_module.HOUR)) if x_of.coarse else "p.t"
    columns: dict[str, list[tuple]] = {name: [] for name in LINE_FIELDS}
    hourly = x_of.coarse and READ_HOURS
    # The falls to 0 a coarse chart reads from the hours: by stretch of MARK_SPAN units, how
    # many, the first's game time and entry (the earliest hour's lowest id, as `_AGGREGATE_MOMENTS`
    # orders them).
    falls: dict[int, list] = {}
    with connections[router.db_for_read(ChartPoint)].cursor() as cursor:
        if hourly:
            summed = hours.filter(field__in=LINE_FIELDS).order_by()
            sql, params = summed.values_list(*HOUR_ROW).query.sql_with_params()
            query = _AGGREGATE_HOURS.format(hour=int(points_module.HOUR), rows=sql)
        else:
            sql, params = lines.order_by().values_list(*read).query.sql_with_params()
            query = _AGGREGATE.format(x=_X.format(rows=sql, t=t))
        cursor.execute(query, [*x_params, *params])
        for name, x, lo, hi, n, first_at, last_at, last, *zero in cursor.fetchall():
            columns[name].append((x, lo if n == 1 else None, lo, hi, last, n, first_at, last_at))
            if hourly and zero[0]:
                fell = falls.setdefault(x // MARK_SPAN, [0, zero[1], zero[2][1]])
                fell[0] += zero[0]
                fell[1] = min(fell[1], zero[1])
        for n, at, entry_id in falls.values():
            moments.append(_moment(at, entry_id, "zero", times=n))
        # The PV changes that mark a moment: few, on their own partial index (a coarse chart
        # read its falls to 0 from the hours: only its rests here).
        marked = lines.filter(field="pv").exclude(moment="")
        if hourly:
            marked = lines.filter(field="pv", moment="rest")
        sql, params = marked.values_list(*read).query.sql_with_params()
        cursor.execute(
            _AGGREGATE_MOMENTS.format(x=_X.format(rows=sql, t=t)),
            [MARK_SPAN, *x_params, *params, MARK_SPAN],
        )
        for kind, _, n, batches, entry_id, rule_id, at in cursor.fetchall():
            times = batches if kind == "rest" else n
            moments.append(_moment(at, entry_id, kind, rule_id, times=times))
    moments.sort(key=lambda m: (m.at, m.entry_id))
    # The lines' first values: a line holds its first change's `before` until that change.
    befores = []
    for name in LINE_FIELDS:
        first = next((s for s in steps if s.changed == name and s.entry_id), None)
        if first is not None and columns[name]:
            column = columns[name][0]
            columns[name][0] = (column[0], getattr(first, name), *column[2:])
        before = next((s for s in steps if s.changed == name and s.entry_id is None), None)
        if before is not None and columns[name]:
            befores.append(before)
            x, first, lo, hi, last, n, first_at, last_at = columns[name][0]
            value = getattr(before, name)
            columns[name][0] = (
                x,
                value,
                min(lo, value),
                max(hi, value),
                last,
                n + 1,
                first_at,
                last_at,
            )
    last = Step(
        end,
        None,
        columns["pv"][-1][4] if columns["pv"] else None,
        columns["flux"][-1][4] if columns["flux"] else None,
    )
    chart = Chart(character.pk, character.name, steps, moments, [], [])
    chart.last_step = last
    count = sum(column[5] for line in columns.values() for column in line)
    chart.step_count = count - len(befores) + sum(1 for s in steps if s.entry_id is None)
    chart.moment_count = sum(m.times for m in moments)
    _draw(chart, character, x_of, columns)
    return chart


def _draw(chart: Chart, character, x_of, columns: dict[str, list[tuple]]) -> None:
    plot = WIDTH - LEFT - RIGHT
    # The last value holds a little past the last change, so that it shows as a level.
    end_x = LEFT + plot
    # One mark per kind and stretch of MARK_SPAN units, side by side when they meet: a long
    # campaign's thousands of moments stay a readable row (the table lists each one).
    marks: dict[tuple[int, str], Moment] = {}
    stacked: dict[int, int] = {}
    for moment in chart.moments:
        moment.x = x_of(moment.at)
        place = (moment.x // MARK_SPAN, moment.kind)
        mark = marks.get(place)
        if mark is not None:
            mark.times += moment.times
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
        line = columns[attr]
        if not line:
            continue
        lo = min(0, *(c[2] for c in line))
        hi = max(maximum or 0, *(c[3] for c in line), 1)
        bottom = top + PANEL

        def y_of(value, lo=lo, hi=hi, top=top, bottom=bottom):
            return round(bottom - (value - lo) / (hi - lo) * (bottom - top), 1)

        # Before its first change in view, a line holds that change's `before`: from the start.
        if line[0][0] > LEFT:
            line = [(LEFT, line[0][1], None, None, None, 1, None, None), *line]
        path = []
        for x, first, low, high, last, n, _, _ in line:
            ys = [y_of(low), y_of(high), y_of(last)] if n > 1 else [y_of(first)]
            path.append(f"M{x} {ys[0]}" if not path else f"H{x} V{ys[0]}")
            path.extend(f"V{y}" for y in ys[1:])
        path.append(f"H{end_x}")
        ticks = sorted({(y_of(v), v) for v in (lo, hi, 0)})
        chart.lines.append(
            Line(name, " ".join(path), top, bottom, ticks, y_of(0) if lo < 0 else None)
        )
    # A day's name under the column where it begins (at most one every 70 units).
    spans: dict[int, list] = {}
    for x, *_, first_at, last_at in (c for line in columns.values() for c in line):
        known = spans.get(x)
        if known:
            first_at, last_at = min(known[0], first_at), max(known[1], last_at)
        spans[x] = [first_at, last_at]
    day, last = None, None
    for x in sorted(spans):
        for number in dict.fromkeys(game_day(at) for at in spans[x]):
            if number != day:
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
