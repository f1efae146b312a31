"""What stands in a campaign's log: the one place that decides which entries an undo took back.

An undo never rewrites history: it writes new change entries whose `reverts` names the entry
each one takes back (play/services.py entry_undo), and an undo can itself be undone, which
brings its target back. So an entry stands when no standing entry reverts it; chains of any
depth resolve newest first, since an entry can only revert an older one.

Two readings follow, and every view picks one:
- what *stands* (`Standing.stands`): the history, the feeds and the exports show every entry,
  the undone ones marked « annulée par #N »; undo buttons appear only on what stands.
- what *counts* (`Standing.counts`): every derived view (the recap, who fell / woke / died,
  statistics, charts) must equal the same view on a campaign where only the standing actions
  were played. There an undone entry never happened, and neither did the standing undo that
  took it back; and when every change of an action is undone the action did not happen, so
  its rolls are out of every count too.

Cost: one query over the campaign's entries with `reverts` set (few: only undos), one over
the change entries of the batches they touch, the rest in Python.
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from uuid import UUID

from django.db import connections, router
from django.db.models import Q, QuerySet

from journal.models import AuditEntry, EntryKind

# A roll request's entries (made, answered, cancelled) are not changes of the game and an
# undo of the whole action leaves them: they do not keep an undone action standing. The same
# name as play/services.py REQUEST_FIELD, which this layer cannot import.
REQUEST_FIELD = "request"


def resolve(reverts: Iterable[tuple[int, int]]) -> dict[int, int]:
    """Pure: from (undo entry id, id of the entry it reverts) pairs, every entry id that does
    not stand -> the id of the standing entry that reverted it.

    An entry reverts only an older one, so walking the undos newest first knows, for each,
    whether a later standing undo took it back already.
    """
    reverted_by: dict[int, list[int]] = defaultdict(list)
    for undo, target in reverts:
        reverted_by[target].append(undo)
    entries = set(reverted_by) | {undo for undos in reverted_by.values() for undo in undos}
    undone: dict[int, int] = {}
    for entry in sorted(entries, reverse=True):
        # Every reverter of `entry` is newer, so its own standing is settled already.
        standing = [undo for undo in reverted_by.get(entry, ()) if undo not in undone]
        if standing:
            undone[entry] = max(standing)
    return undone


def fully_undone(changes: dict[UUID, set[int]], undone: Iterable[int]) -> set[UUID]:
    """Pure: the batches whose every change (as listed in `changes`: batch -> change entry
    ids, roll requests left out) is in `undone`. A batch with no such change is not one."""
    undone = set(undone)
    return {batch for batch, ids in changes.items() if ids and ids <= undone}


@dataclass(frozen=True)
class Standing:
    """A campaign's undos resolved: read it once per page, then ask it about each entry."""

    undone_by: dict[int, int] = field(default_factory=dict)
    # undo entry id -> the entry it reverts (every undo, standing or not).
    reverts: dict[int, int] = field(default_factory=dict)
    undone_batches: frozenset = frozenset()

    def stands(self, entry) -> bool:
        """Whether the entry (an AuditEntry or its id) has not been taken back."""
        return _id(entry) not in self.undone_by

    def counts(self, entry: AuditEntry) -> bool:
        """Whether the entry belongs to what was played: it stands, it is not itself an undo
        (a standing undo cancels its target: neither happened), and it is not a roll of an
        action whose every change was undone."""
        return (
            entry.pk not in self.undone_by
            and entry.reverts_id is None
            and entry.batch not in self.undone_batches
        )

    def undone_q(self) -> Q:
        """The entries taken back (for `.exclude()` or `.filter()`)."""
        return Q(pk__in=list(self.undone_by))

    def standing_q(self) -> Q:
        """The entries that stand: the history's undo buttons, the « what stands » filter."""
        return ~self.undone_q()

    def counted_q(self) -> Q:
        """The entries every derived view counts (see `counts`)."""
        return ~self.undone_q() & Q(reverts__isnull=True) & ~Q(batch__in=list(self.undone_batches))

    def standing(self, entries: QuerySet) -> QuerySet:
        return entries.filter(self.standing_q())

    def counted(self, entries: QuerySet) -> QuerySet:
        return entries.filter(self.counted_q())


def _id(entry) -> int:
    return entry if isinstance(entry, int) else entry.pk


def standing(campaign_id: int) -> Standing:
    """The campaign's undos resolved (two small queries; see the module's docstring)."""
    rows = _undos(campaign_id)
    if not rows:
        return Standing()
    reverts = {undo: target for undo, target, _ in rows}
    undone = resolve(reverts.items())
    touched = {batch for _, target, batch in rows if target in undone}
    changes: dict[UUID, set[int]] = defaultdict(set)
    if touched:
        for pk, batch in (
            AuditEntry.objects.filter(
                campaign_id=campaign_id, batch__in=touched, kind=EntryKind.CHANGE
            )
            .exclude(field=REQUEST_FIELD)
            .values_list("pk", "batch")
        ):
            changes[batch].add(pk)
    return Standing(
        undone_by=undone,
        reverts=reverts,
        undone_batches=frozenset(fully_undone(changes, undone)),
    )


def _undos(campaign_id: int) -> list[tuple[int, int, UUID]]:
    """The campaign's undos, newest first: (the undo's id, the entry it reverts, that entry's
    batch). Its SQL is written once: every page with a log reads this, and the ORM's building
    and compiling of the query cost five times its run."""
    connection = connections[router.db_for_read(AuditEntry)]
    with connection.cursor() as cursor:
        cursor.execute(_UNDOS_SQL.format(log=connection.ops.quote_name(_LOG)), [campaign_id])
        rows = cursor.fetchall()
    batch = AuditEntry._meta.get_field("batch").to_python  # SQLite gives its text
    return [(pk, target, batch(target_batch)) for pk, target, target_batch in rows]


_LOG = AuditEntry._meta.db_table
_UNDOS_SQL = (
    "SELECT e.id, e.reverts_id, t.batch FROM {log} e INNER JOIN {log} t ON e.reverts_id = t.id"
    " WHERE e.campaign_id = %s AND e.reverts_id IS NOT NULL ORDER BY e.id DESC"
)


def undone_by(campaign_id: int) -> dict[int, int]:
    """Every entry id of the campaign that does not stand -> the standing undo that took it
    back."""
    return standing(campaign_id).undone_by


def undone_batches(campaign_id: int) -> set[UUID]:
    """The batches (actions) whose every change was undone: the action did not happen."""
    return set(standing(campaign_id).undone_batches)


def standing_entries(campaign_id: int, entries: QuerySet | None = None) -> QuerySet:
    """The campaign's entries that stand (undone ones left out, undos kept)."""
    if entries is None:
        entries = AuditEntry.objects.filter(campaign_id=campaign_id)
    return standing(campaign_id).standing(entries)


def counted_entries(campaign_id: int, entries: QuerySet | None = None) -> QuerySet:
    """The campaign's entries every derived view counts: what was played, undos and what
    they took back left out, and the rolls of actions wholly undone."""
    if entries is None:
        entries = AuditEntry.objects.filter(campaign_id=campaign_id)
    return standing(campaign_id).counted(entries)


def mark(campaign_id: int, entries: Iterable[AuditEntry], state: Standing | None = None) -> list:
    """The entries with what the pages say of them: `undone_by` (the id of the standing undo
    that took the entry back, or None) and `action_undone` (its whole action was undone).
    Reads the campaign's undos once for the whole list."""
    entries = list(entries)
    if state is None:
        state = standing(campaign_id)
    for entry in entries:
        entry.undone_by = state.undone_by.get(entry.pk)
        entry.action_undone = entry.batch in state.undone_batches
    return entries
