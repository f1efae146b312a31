"""The characters' chart rows kept as the log grows (journal.models.ChartPoint), and
recomputed.

`record` runs inside `journal.audit.append`, in the action's transaction and under the
campaign's lock that every writer holds: a new change of a charted field (PV, Flux, vital
state, conditions, sequels) adds its row; an undo takes out the rows of the changes it takes
back (journal/standing.py) and an undo of that undo puts them back. An undo is itself never a
row: a standing undo and what it took back both did not happen.

`recompute` derives the same rows from the log alone; `manage.py chart_points` proves the kept
rows equal to it, or rebuilds them (after a bulk load or an archive import, which do not go
through `append`).

The PV and Flux rows are also kept summed by hour of game time (journal.models.ChartHour: per
character, field, visibility and hour, the count, lowest, highest, first and last value): the
hours a write touches are summed again from the kept rows in the same transaction, and
`recompute_hours` sums the log's changes by hour for `chart_points` to prove them. A
whole-campaign chart longer than a column per hour reads these (journal/charts.py).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from datetime import UTC, datetime

from django.db import connections, router
from django.db.models import Q

from journal.models import AuditEntry, ChartHour, ChartPoint, EntryKind
from journal.standing import Standing, standing

CHART_FIELDS = ("pv", "flux", "vital", "conditions", "sequels")
LINE_FIELDS = ("pv", "flux")
REST_RULES = {
    "R17": ("nuit de repos", "night's rest"),
    "R18": ("heure de repos", "hour's rest"),
    "R19": ("nuit en clinique", "night in a clinic"),
}
# What a row holds, in this order: the chart's own tuple (journal/charts.py) and visibility.
COLUMNS = (
    "entry_id",
    "character_id",
    "game_time",
    "field",
    "before",
    "after",
    "rule_id",
    "batch",
    "visibility",
)
_FROM_LOG = ("id", *COLUMNS[1:])


def pv_moment(before, after, rule_id: str) -> str:
    """A PV change's own moment: "zero" when it falls to 0 or below, "rest" when a rest heals
    (R17–R19), else "". A fall during a rest is a fall."""
    if isinstance(after, int) and after <= 0 and (not isinstance(before, int) or before > 0):
        return "zero"
    return "rest" if rule_id in REST_RULES else ""


def _point(row) -> ChartPoint:
    values = dict(zip(COLUMNS, row, strict=True))
    name, after = values["field"], values["after"]
    line = name in LINE_FIELDS and isinstance(after, int) and not isinstance(after, bool)
    return ChartPoint(
        campaign_id=None,
        **values,
        value=after if line else None,
        moment=pv_moment(values["before"], after, values["rule_id"]) if name == "pv" else "",
    )


def _chartable(entries):
    return entries.filter(
        kind=EntryKind.CHANGE, field__in=CHART_FIELDS, character__isnull=False
    ).values_list(*_FROM_LOG)


def _comparable(row) -> tuple:
    """A row as a hashable value: its JSON values as canonical text."""
    return tuple(
        json.dumps(value, sort_keys=True) if name in ("before", "after") else value
        for name, value in zip(COLUMNS, row, strict=True)
    )


def recompute(campaign) -> set[tuple]:
    """The rows from the log alone: every counted change of a charted field."""
    entries = standing(campaign.pk).counted(AuditEntry.objects.filter(campaign_id=campaign.pk))
    rows = _chartable(entries).order_by().iterator(chunk_size=5000)
    return {_comparable(row) for row in rows}


def kept(campaign) -> set[tuple]:
    rows = ChartPoint.objects.filter(campaign_id=campaign.pk).values_list(*COLUMNS)
    return {_comparable(row) for row in rows.iterator(chunk_size=5000)}


def _create(campaign_id: int, rows: Iterable) -> set[tuple]:
    """Write the rows; return the hours they fall in (`_hour_key`)."""
    batch, hours = [], set()
    for row in rows:
        point = _point(row)
        point.campaign_id = campaign_id
        batch.append(point)
        if _summed(point):
            hours.add(_hour_key(point))
        if len(batch) == 5000:
            ChartPoint.objects.bulk_create(batch)
            batch = []
    ChartPoint.objects.bulk_create(batch)
    return hours


# The length of a summed hour, in seconds (a test shortens it to make short campaigns long).
HOUR = 3600
_HOUR_FIELDS = (
    "character_id",
    "field",
    "visibility",
    "hour",
    "count",
    "low",
    "high",
    "first_value",
    "first_at",
    "first_entry",
    "last_value",
    "last_at",
    "last_entry",
    "zeros",
    "zero_at",
    "zero_entry",
)


def hour_of(at) -> int:
    """The hour a game time falls in: whole HOURs since the epoch."""
    return math.floor(at.timestamp() / HOUR)


def _summed(point) -> bool:
    return point.value is not None and point.game_time is not None


def _hour_key(point) -> tuple:
    return (point.character_id, point.field, point.visibility, hour_of(point.game_time))


def _sum_hours(points: Iterable) -> list[tuple]:
    """Kept rows (or alike: character_id, field, visibility, value, game_time, entry_id,
    moment) summed by hour, as ChartHour's columns (`_HOUR_FIELDS`)."""
    hours: dict[tuple, list] = {}
    for character_id, name, visibility, value, at, entry_id, moment in points:
        if value is None or at is None:
            continue
        hours.setdefault((character_id, name, visibility, hour_of(at)), []).append(
            (at, entry_id, value, moment)
        )
    summed = []
    for key, changes in hours.items():
        changes.sort()
        values = [change[2] for change in changes]
        (first_at, first_entry, first, _), (last_at, last_entry, last, _) = changes[0], changes[-1]
        head = (len(changes), min(values), max(values))
        zeros = [(at, entry_id) for at, entry_id, _, moment in changes if moment == "zero"]
        fell = (
            (len(zeros), min(at for at, _ in zeros), min(e for _, e in zeros))
            if zeros
            else (0, None, None)
        )
        summed.append((*key, *head, first, first_at, first_entry, last, last_at, last_entry, *fell))
    return summed


_SUMMED_ROW = ("character_id", "field", "visibility", "value", "game_time", "entry_id", "moment")


def _resum(campaign_id: int, keys: set[tuple], *, added: bool = False) -> None:
    """Sum again the hours `keys` from the kept rows (an action's or an undo's few hours).
    `added`: each of those hours only gained rows (an action, no undo), so each still has
    its sum: written over the old one in place (one upsert), none to delete."""
    if not keys:
        return
    where = Q(pk__in=[])
    rows = Q(pk__in=[])
    for character_id, name, visibility, hour in keys:
        key = Q(character_id=character_id, field=name, visibility=visibility)
        where |= key & Q(hour=hour)
        start = datetime.fromtimestamp(hour * HOUR, UTC)
        end = datetime.fromtimestamp((hour + 1) * HOUR, UTC)
        rows |= key & Q(game_time__gte=start, game_time__lt=end)
    if not added:
        ChartHour.objects.filter(campaign_id=campaign_id).filter(where).delete()
    points = ChartPoint.objects.filter(campaign_id=campaign_id, value__isnull=False).filter(rows)
    summed = [
        ChartHour(campaign_id=campaign_id, **dict(zip(_HOUR_FIELDS, row, strict=True)))
        for row in _sum_hours(points.values_list(*_SUMMED_ROW))
    ]
    if not added:
        ChartHour.objects.bulk_create(summed)
        return
    ChartHour.objects.bulk_create(
        summed,
        update_conflicts=True,
        unique_fields=("character", "field", "visibility", "hour"),  # "chart_hours_unique"
        update_fields=_HOUR_FIELDS[4:],
    )


def record(campaign, written: Iterable[AuditEntry], before: Standing | None) -> None:
    """Keep the rows up to date with what `append` just wrote (see the module's docstring).
    `before`: the campaign's undos resolved before an undo was written (None: no undo)."""
    rows = [
        tuple(getattr(entry, name) for name in _FROM_LOG)
        for entry in written
        if entry.kind == EntryKind.CHANGE
        and entry.field in CHART_FIELDS
        and entry.character_id is not None
        and entry.reverts_id is None
    ]
    hours = set()
    if before is not None:
        after = standing(campaign.pk)
        gone = set(after.undone_by) - set(before.undone_by)
        back = set(before.undone_by) - set(after.undone_by)
        if gone:
            taken = ChartPoint.objects.filter(campaign_id=campaign.pk, entry_id__in=gone)
            hours |= {_hour_key(point) for point in taken if _summed(point)}
            taken.delete()
        if back:
            entries = after.counted(AuditEntry.objects.filter(campaign_id=campaign.pk, id__in=back))
            rows.extend(_chartable(entries))
    if rows:
        hours |= _create(campaign.pk, rows)
    _resum(campaign.pk, hours, added=before is None)


def rebuild(campaign) -> None:
    """Replace the kept rows with the recomputation (the caller holds a transaction). On
    PostgreSQL in one INSERT … SELECT (a million-entry log in seconds), the row's `value` and
    `moment` computed as `_point` computes them."""
    ChartPoint.objects.filter(campaign_id=campaign.pk).delete()
    ChartHour.objects.filter(campaign_id=campaign.pk).delete()
    # The database the rows go to (an archive is imported through a router).
    connection = connections[router.db_for_write(ChartPoint)]
    if connection.vendor != "postgresql":
        _create(campaign.pk, _log_rows(campaign).iterator(chunk_size=5000))
        points = ChartPoint.objects.filter(campaign_id=campaign.pk, value__isnull=False)
        ChartHour.objects.bulk_create(
            ChartHour(campaign_id=campaign.pk, **dict(zip(_HOUR_FIELDS, row, strict=True)))
            for row in _sum_hours(points.values_list(*_SUMMED_ROW).iterator(chunk_size=5000))
        )
        return
    sql, params = _derived_sql(campaign)
    names = ("campaign_id", *COLUMNS, "value", "moment")
    table = ChartPoint._meta.db_table
    kept_sql = f"SELECT {', '.join(names)} FROM {table} WHERE campaign_id = %s"
    hours = ChartHour._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {table} ({', '.join(names)}) {sql}", params)
        cursor.execute(
            f"INSERT INTO {hours} (campaign_id, {', '.join(_HOUR_FIELDS)}) "
            + _HOURS_SQL.format(rows=kept_sql),
            [HOUR, campaign.pk],
        )
        # A bulk load: the planner's statistics follow at once, not at autovacuum's pace.
        cursor.execute(f"ANALYZE {table}")
        cursor.execute(f"ANALYZE {hours}")


def _log_rows(campaign):
    entries = standing(campaign.pk).counted(AuditEntry.objects.filter(campaign_id=campaign.pk))
    return _chartable(entries).order_by()


# `_point` in SQL: a PV or Flux number's value; a PV change's moment (`pv_moment`).
_NUMBER = "jsonb_typeof({0}) = 'number' AND ({0})::text ~ '^-?[0-9]+$'"
_DERIVED = f"""
    SELECT %s, entry_id, character_id, game_time, field, before, after, rule_id, batch,
        visibility,
        CASE WHEN field IN ('pv', 'flux') AND {_NUMBER.format("after")}
            THEN (after)::text::int END,
        CASE WHEN field <> 'pv' THEN ''
            WHEN {_NUMBER.format("after")} AND (after)::text::int <= 0
                AND NOT ({_NUMBER.format("before")} AND (before)::text::int <= 0) THEN 'zero'
            WHEN rule_id IN ({", ".join(f"'{r}'" for r in REST_RULES)}) THEN 'rest'
            ELSE '' END
    FROM ({{rows}}) AS log({", ".join(COLUMNS)})
"""


# `_sum_hours` in SQL, over rows shaped as `_DERIVED`'s (from the log, or the kept rows).
_HOURS_SQL = """
    SELECT campaign_id, character_id, field, visibility, hour, count(*), min(value),
        max(value), (array_agg(value ORDER BY game_time, entry_id))[1], min(game_time),
        (array_agg(entry_id ORDER BY game_time, entry_id))[1],
        (array_agg(value ORDER BY game_time DESC, entry_id DESC))[1], max(game_time),
        (array_agg(entry_id ORDER BY game_time DESC, entry_id DESC))[1],
        count(*) FILTER (WHERE moment = 'zero'), min(game_time) FILTER (WHERE moment = 'zero'),
        min(entry_id) FILTER (WHERE moment = 'zero')
    FROM (SELECT r.*, floor(extract(epoch FROM r.game_time) / %s)::bigint AS hour
        FROM ({rows}) AS r
        WHERE r.value IS NOT NULL AND r.game_time IS NOT NULL) AS q
    GROUP BY campaign_id, character_id, field, visibility, hour
"""


def _derived_sql(campaign) -> tuple[str, list]:
    sql, params = _log_rows(campaign).query.sql_with_params()
    return _DERIVED.format(rows=sql), [campaign.pk, *params]


def recompute_hours(campaign) -> set[tuple]:
    """The hours from the log alone: its counted PV and Flux changes summed by hour."""
    rows = _log_rows(campaign).iterator(chunk_size=5000)
    points = (_point(row) for row in rows)
    summed = _sum_hours(
        (p.character_id, p.field, p.visibility, p.value, p.game_time, p.entry_id, p.moment)
        for p in points
    )
    return set(summed)


def kept_hours(campaign) -> set[tuple]:
    rows = ChartHour.objects.filter(campaign_id=campaign.pk).values_list(*_HOUR_FIELDS)
    return set(rows.iterator(chunk_size=5000))


def hour_differences(campaign) -> tuple[int, int] | None:
    """As `differences`, for the hours: the log's changes summed by hour in the database
    against the kept hours, every column compared."""
    connection = connections[router.db_for_read(ChartHour)]
    if connection.vendor != "postgresql":
        return None
    sql, params = _derived_sql(campaign)
    names = ", ".join(("campaign_id", *COLUMNS, "value", "moment"))
    summed = _HOURS_SQL.format(rows=f"SELECT * FROM ({sql}) AS log({names})")
    kept_sql = (
        f"SELECT campaign_id, {', '.join(_HOUR_FIELDS)} FROM {ChartHour._meta.db_table} "
        "WHERE campaign_id = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT count(*) FROM ({summed} EXCEPT ALL {kept_sql}) AS missing), "
            f"(SELECT count(*) FROM ({kept_sql} EXCEPT ALL {summed}) AS extra)",
            [HOUR, *params, campaign.pk, campaign.pk, HOUR, *params],
        )
        return cursor.fetchone()


def differences(campaign) -> tuple[int, int] | None:
    """On PostgreSQL, (rows the log gives that are not kept, kept rows the log does not give),
    computed in the database, every column compared; None elsewhere (compare `kept` and
    `recompute`)."""
    connection = connections[router.db_for_read(ChartPoint)]
    if connection.vendor != "postgresql":
        return None
    sql, params = _derived_sql(campaign)
    names = ", ".join(("campaign_id", *COLUMNS, "value", "moment"))
    kept_sql = f"SELECT {names} FROM {ChartPoint._meta.db_table} WHERE campaign_id = %s"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT count(*) FROM ({sql} EXCEPT ALL {kept_sql}) AS missing), "
            f"(SELECT count(*) FROM ({kept_sql} EXCEPT ALL {sql}) AS extra)",
            [*params, campaign.pk, campaign.pk, *params],
        )
        return cursor.fetchone()
