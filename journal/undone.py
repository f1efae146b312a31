"""What stands after the undos, for the statistics and charts (to give way to the history's
own reading of it once there is one: the same two functions).

An undo is a change entry whose `reverts` names the entry it reverts; an undo can itself be
undone. An entry stands unless a standing entry reverts it: read from the newest revert down,
each revert's own standing is known before the entry it reverts.
"""

from __future__ import annotations

from journal.models import AuditEntry, EntryKind

REQUEST_FIELD = "request"  # play's roll requests (R34): outside what an undo reverts


def undone_by(campaign_id: int) -> dict[int, int]:
    """The campaign's undone entries: entry id -> the id of the standing entry that undid it."""
    pairs = (
        AuditEntry.objects.filter(campaign_id=campaign_id, reverts__isnull=False)
        .order_by("-id")
        .values_list("id", "reverts_id")
    )
    undone: dict[int, int] = {}
    for undo_id, target in pairs:
        if undo_id not in undone and target not in undone:
            undone[target] = undo_id
    return undone


def undone_batches(campaign_id: int) -> set:
    """The actions undone as a whole: every change of the batch undone (its rolls with it)."""
    undone = undone_by(campaign_id)
    if not undone:
        return set()
    batches = set(
        AuditEntry.objects.filter(id__in=undone).values_list("batch", flat=True).distinct()
    )
    still = set(
        AuditEntry.objects.filter(batch__in=batches, kind=EntryKind.CHANGE)
        .exclude(id__in=undone)
        .exclude(field=REQUEST_FIELD)  # a roll request is not undone with its action
        .values_list("batch", flat=True)
    )
    return batches - still
