"""The dice's statistics kept as the log grows (journal.models.DiceTally), and recomputed.

`record` runs inside `journal.audit.append`, in the action's transaction and under the
campaign's lock that every writer holds: a new roll adds to its bucket; a reveal moves the
roll it reveals to the revealed bucket (players count it from then on); an undo that takes a
whole action back (journal/standing.py) takes its rolls out, and an undo of that undo puts
them back. A bucket is what the statistics page filters by viewer: roller, character, dice
source, visibility, revealed.

`recompute` derives the same rows from the log alone; `manage.py dice_tally` proves the kept
rows equal to it, or rebuilds them (after a bulk load or an archive import, which do not go
through `append`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from journal import sealing
from journal.models import AuditEntry, DiceTally, EntryKind
from journal.standing import standing
from rules.engine import parse_dice
from rules.engine.errors import RuleError

FACES = 20
SURVIE = "Survie"
COUNTS = (
    "tests",
    "successes",
    "passing",
    "natural_1",
    "natural_20",
    "survie_passed",
    "survie_failed",
)
_READ = (
    "id",
    "batch",
    "actor_id",
    "actor_name",
    "character_id",
    "character_name",
    "typed_in",
    "visibility",
    "roll",
)


@dataclass
class Bucket:
    actor_id: int | None
    actor_name: str
    character_id: int | None
    character_name: str
    typed_in: bool
    visibility: str
    revealed: bool
    counts: dict = field(default_factory=lambda: dict.fromkeys(COUNTS, 0))
    faces: list = field(default_factory=lambda: [0] * FACES)

    @property
    def key(self) -> str:
        return bucket_key(
            self.actor_id, self.character_id, self.typed_in, self.visibility, self.revealed
        )


def bucket_key(actor_id, character_id, typed_in, visibility, revealed) -> str:
    return f"{actor_id}|{character_id}|{int(typed_in)}|{visibility}|{int(revealed)}"


def passing_faces(roll: dict, natural_extremes: bool) -> int:
    """How many of the 20 faces pass this test: as written with the roll; for a roll written
    before the odds were kept, rebuilt from its terms (R6 is known only from an odd face, R5's
    option is the campaign's as it is now)."""
    kept = roll.get("passing_faces")
    if isinstance(kept, int):
        return kept
    bonus = roll.get("stat_value", 0) + sum(m.get("value", 0) for m in roll.get("modifiers", ()))
    odd_zero = roll.get("die_rule") == "R6"
    passing = 0
    for natural in range(1, FACES + 1):
        if natural_extremes and natural in (1, FACES):
            passing += natural == FACES
            continue
        value = 0 if odd_zero and natural % 2 else natural
        passing += value + bonus >= roll.get("difficulty", 0)
    return passing


def d20_faces(roll: dict) -> list[int]:
    """The D20 faces a roll entry holds: a test's natural die, or a plain roll's d20s."""
    if "natural" in roll:
        return [roll["natural"]]
    try:
        expr = parse_dice(roll.get("expression", ""))
    except RuleError:
        return []
    return list(roll.get("dice", ())) if expr.sides == FACES else []


def _add(buckets: dict, row, revealed: bool, natural_extremes: bool, sign: int) -> None:
    _, _, actor_id, actor_name, character_id, character_name, typed_in, visibility, roll = row
    if not isinstance(roll, dict):
        return
    key = bucket_key(actor_id, character_id, typed_in, visibility, revealed)
    bucket = buckets.get(key)
    if bucket is None:
        bucket = buckets[key] = Bucket(
            actor_id, actor_name, character_id, character_name, typed_in, visibility, revealed
        )
    for face in d20_faces(roll):
        if 1 <= face <= FACES:
            bucket.faces[face - 1] += sign
    if "natural" not in roll or "success" not in roll:
        return
    counts = bucket.counts
    counts["tests"] += sign
    counts["successes"] += sign * bool(roll["success"])
    counts["passing"] += sign * passing_faces(roll, natural_extremes)
    counts["natural_1"] += sign * (roll["natural"] == 1)
    counts["natural_20"] += sign * (roll["natural"] == FACES)
    if roll.get("skill") == SURVIE:
        counts["survie_passed" if roll["success"] else "survie_failed"] += sign


def _rolls(entries):
    return entries.filter(kind=EntryKind.ROLL, field="").values_list(*_READ)


def recompute(campaign) -> dict[str, Bucket]:
    """The buckets from the log alone: every counted roll (journal/standing.py), in the
    revealed bucket once a reveal names it."""
    entries = standing(campaign.pk).counted(AuditEntry.objects.filter(campaign_id=campaign.pk))
    revealed = set(sealing.reveals_by_roll(campaign.pk))
    buckets: dict[str, Bucket] = {}
    for row in _rolls(entries).order_by().iterator(chunk_size=5000):
        _add(buckets, row, row[0] in revealed, campaign.natural_extremes, 1)
    return buckets


def undone_batches_now(campaign_id: int) -> frozenset:
    return frozenset(standing(campaign_id).undone_batches)


def record(campaign, written: Iterable[AuditEntry], undone_before: frozenset | None) -> None:
    """Add what `append` just wrote to the kept buckets (see the module's docstring).
    `undone_before`: the undone batches before an undo was written (None: no undo in it)."""
    written = list(written)
    buckets: dict[str, Bucket] = {}
    extremes = campaign.natural_extremes
    for entry in written:
        if entry.kind == EntryKind.ROLL and not entry.field:
            row = tuple(getattr(entry, name) for name in _READ)
            _add(buckets, row, False, extremes, 1)
    reveals = [e for e in written if e.field == sealing.REVEAL_FIELD]
    if reveals:
        ids = [sealing.revealed_id(e) for e in reveals]
        undone = standing(campaign.pk).undone_batches
        for row in _rolls(AuditEntry.objects.filter(campaign_id=campaign.pk, id__in=ids)):
            if row[1] in undone:
                continue
            _add(buckets, row, False, extremes, -1)
            _add(buckets, row, True, extremes, 1)
    if undone_before is not None:
        after = undone_batches_now(campaign.pk)
        gone, back = after - undone_before, undone_before - after
        if gone or back:
            revealed = set(sealing.reveals_by_roll(campaign.pk))
            changed = AuditEntry.objects.filter(campaign_id=campaign.pk, batch__in=gone | back)
            for row in _rolls(changed):
                _add(buckets, row, row[0] in revealed, extremes, -1 if row[1] in gone else 1)
    if buckets:
        _save(campaign, buckets)


def _save(campaign, buckets: dict[str, Bucket]) -> None:
    kept = {
        row.key: row
        for row in DiceTally.objects.select_for_update().filter(
            campaign_id=campaign.pk, key__in=list(buckets)
        )
    }
    for key, bucket in buckets.items():
        row = kept.get(key)
        if row is None:
            DiceTally.objects.create(
                campaign_id=campaign.pk,
                key=key,
                actor_id=bucket.actor_id,
                actor_name=bucket.actor_name,
                character_id=bucket.character_id,
                character_name=bucket.character_name,
                typed_in=bucket.typed_in,
                visibility=bucket.visibility,
                revealed=bucket.revealed,
                faces=bucket.faces,
                **bucket.counts,
            )
            continue
        for name in COUNTS:
            setattr(row, name, getattr(row, name) + bucket.counts[name])
        row.faces = [a + b for a, b in zip(row.faces or [0] * FACES, bucket.faces, strict=True)]
        row.save()


def as_rows(buckets: dict[str, Bucket]) -> dict[str, tuple]:
    """Buckets as comparable values, empty ones left out (a bucket emptied by an undo)."""
    return {
        key: (tuple(b.counts[name] for name in COUNTS), tuple(b.faces))
        for key, b in buckets.items()
        if any(b.counts.values()) or any(b.faces)
    }


def kept(campaign) -> dict[str, tuple]:
    rows = DiceTally.objects.filter(campaign_id=campaign.pk)
    return {
        row.key: (tuple(getattr(row, name) for name in COUNTS), tuple(row.faces))
        for row in rows
        if any(getattr(row, name) for name in COUNTS) or any(row.faces)
    }


def rebuild(campaign) -> None:
    """Replace the kept rows with the recomputation (the caller holds a transaction)."""
    DiceTally.objects.filter(campaign_id=campaign.pk).delete()
    buckets = recompute(campaign)
    DiceTally.objects.bulk_create(
        DiceTally(
            campaign_id=campaign.pk,
            key=key,
            actor_id=b.actor_id,
            actor_name=b.actor_name,
            character_id=b.character_id,
            character_name=b.character_name,
            typed_in=b.typed_in,
            visibility=b.visibility,
            revealed=b.revealed,
            faces=b.faces,
            **b.counts,
        )
        for key, b in buckets.items()
    )
