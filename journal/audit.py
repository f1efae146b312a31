"""The tamper-evident audit log: writing entries with a hash chain, and proving the chain.

Every entry's `hash` is SHA-256 over a canonical JSON of its content and `prev_hash`, the hash
of the previous entry of the same campaign. Altering, removing or inserting an entry behind the
app's back breaks the chain at that entry, which `verify_chain` names.

Callers append inside the transaction that made the change, holding the campaign's row lock
(`select_for_update`), so that the chain has one order.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.utils import timezone

from campaign.models import Campaign
from journal.models import SESSION_GAP, AuditEntry, PlaySession
from rules import engine

# The columns the hash covers, in a fixed order. Adding one is a format change: old entries
# would no longer verify, so it needs a versioned hash.
HASHED_FIELDS = (
    "campaign_id",
    "character_id",
    "character_name",
    "actor_id",
    "actor_name",
    "created_at",
    "game_time",
    "action",
    "batch",
    "kind",
    "rule_id",
    "field",
    "before",
    "after",
    "roll",
    "typed_in",
    "text_fr",
    "text_en",
    "visibility",
    "reverts_id",
    "prev_hash",
)


def to_json(value: Any) -> Any:
    """Engine values (frozen dataclasses, enums, datetimes, tuples) as plain JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return to_json(value.value)
    if isinstance(value, datetime):
        return _iso(value)
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    return value


# The engine fields whose JSON is not already the engine's value, and how to read it back.
_DATETIME_FIELDS = {
    "clock",
    "coma_due",
    "next_coma_hour",
    "stabilised_at",
    "last_wake_try",
    "wake_tries_from",
    "at",
}


def _datetime(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def from_json(field: str, value: Any) -> Any:
    """The inverse of `to_json` for a change's `before`/`after`: the engine value of `field`.

    `field` is a `CharacterState` or `CampaignState` field name, as `Change.field` records it.
    """
    if field in _DATETIME_FIELDS:
        return _datetime(value)
    if value is None:
        return None
    if field == "vital":
        return engine.Vital(value)
    if field == "conditions":
        return tuple(engine.Condition(engine.ConditionKind(c["kind"]), c["cause"]) for c in value)
    if field == "sequels":
        return tuple(
            engine.Sequel(stat=s["stat"], cause=s["cause"], d6=s["d6"], at=_datetime(s["at"]))
            for s in value
        )
    if field == "illness":
        return engine.Illness(engine.Severity(value["severity"]), value["days_left"], value["name"])
    if field == "fight":
        return engine.Fight.from_json(value)
    if field == "stats":
        return tuple((name, number) for name, number in value)
    return value


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def _canonical(value: Any) -> Any:
    if isinstance(value, datetime):
        return _iso(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    return value


def entry_hash(entry: AuditEntry) -> str:
    content = {name: _canonical(getattr(entry, name)) for name in HASHED_FIELDS}
    payload = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


@dataclass
class Draft:
    """An entry to write: what the service knows; `append` adds the chain and the times."""

    kind: str
    action: str
    rule_id: str = ""
    character: Any = None
    game_time: datetime | None = None
    field: str = ""
    before: Any = None
    after: Any = None
    roll: dict | None = None
    typed_in: bool = False
    text_fr: str = ""
    text_en: str = ""
    visibility: str | None = None
    reverts: AuditEntry | None = None


def append(
    *, campaign: Campaign, actor, drafts: list[Draft], visibility: str | None = None
) -> list[AuditEntry]:
    """Write the drafts as one batch, chained after the campaign's latest entry.

    The caller holds the campaign's row lock inside its transaction.
    """
    last = (
        AuditEntry.objects.filter(campaign=campaign)
        .order_by("-id")
        .values_list("hash", "created_at")
        .first()
    )
    previous = last[0] if last else ""
    batch = uuid.uuid4()
    now = timezone.now()
    if drafts:
        _open_session_after_a_pause(campaign, last[1] if last else None, now)
    written = []
    for draft in drafts:
        entry = AuditEntry(
            campaign=campaign,
            character=draft.character,
            character_name=draft.character.name if draft.character is not None else "",
            actor=actor,
            actor_name=actor.get_username() if actor is not None else "",
            created_at=now,
            game_time=draft.game_time,
            action=draft.action,
            batch=batch,
            kind=draft.kind,
            rule_id=draft.rule_id,
            field=draft.field,
            before=to_json(draft.before),
            after=to_json(draft.after),
            roll=to_json(draft.roll),
            typed_in=draft.typed_in,
            text_fr=draft.text_fr,
            text_en=draft.text_en,
            visibility=draft.visibility or visibility or campaign.default_roll_visibility,
            reverts=draft.reverts,
            prev_hash=previous,
        )
        entry.hash = entry_hash(entry)
        entry.save()
        previous = entry.hash
        written.append(entry)
    return written


def _open_session_after_a_pause(campaign: Campaign, last_at: datetime | None, now) -> None:
    """A play session begins with the first entry after more than SESSION_GAP of silence,
    unless the GM opened one since the last entry."""
    if last_at is not None and now - last_at <= SESSION_GAP:
        return
    opened = PlaySession.objects.filter(campaign=campaign)
    if last_at is not None:
        opened = opened.filter(started_at__gt=last_at)
    if not opened.exists():
        PlaySession.objects.create(campaign=campaign, started_at=now, started_by=None)


@dataclass(frozen=True)
class ChainProblem:
    entry_id: int
    reason: str


def verify_entries(entries: Iterable[AuditEntry]) -> ChainProblem | None:
    """The first of `entries` (one campaign's, in order, from its first) whose content or
    link does not match, or None: for the stored log and for an archive before it is stored."""
    previous = ""
    for entry in entries:
        if entry.prev_hash != previous:
            return ChainProblem(entry.pk, "its link to the previous entry is broken")
        if entry_hash(entry) != entry.hash:
            return ChainProblem(entry.pk, "its content does not match its hash")
        previous = entry.hash
    return None


def verify_chain(campaign: Campaign) -> ChainProblem | None:
    """The first entry of the campaign whose content or link does not match, or None."""
    entries = AuditEntry.objects.filter(campaign=campaign).order_by("id")
    return verify_entries(entries.iterator(chunk_size=2000))
