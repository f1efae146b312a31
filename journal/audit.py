"""The tamper-evident audit log: writing entries with a keyed hash chain, and proving it.

Every entry's `hash` is HMAC-SHA256 over a canonical JSON of its content, its `seq` (1, 2, 3…
within its campaign) and `prev_hash`, the hash of the previous entry of the same campaign. The
HMAC key is not in the database (settings.AUDIT_LOG_KEY, else derived from SECRET_KEY; see
`keyring`): someone who can write to the table and read the code still cannot recompute the
hashes of a rewritten history. Altering, removing or inserting an entry breaks the chain at
that entry, which `verify_chain` names. Deleting the latest entries leaves a shorter chain that
verifies; a seal (`seal_for`, kept by people outside the server) catches that.

Callers append inside the transaction that made the change, holding the campaign's row lock
(`select_for_update`), so that the chain has one order.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import hmac
import itertools
import json
import re
import uuid
from collections.abc import Iterable, Mapping
from contextlib import closing
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
from django.conf import settings
from django.db import connections
from django.utils import timezone

from campaign.models import Campaign
from journal import points, sealing, tally
from journal.models import SESSION_GAP, AuditEntry, PlaySession
from journal.standing import standing
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
    "steps",
    "seq",
    "key_id",
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


# ---------------------------------------------------------------------------------------------
# The key


# What the key derived from SECRET_KEY is for: the same SECRET_KEY gives other keys elsewhere.
KEY_PURPOSE = b"chroniqueur.journal.audit-log-key.v1"


@dataclass(frozen=True)
class Keyring:
    """The key that signs new entries and the retired ones that still verify old entries.

    `rank` orders them, newest highest: along a campaign's chain an entry is never signed with
    an older key than the entry before it.
    """

    current: str
    keys: dict[str, bytes]
    rank: dict[str, int]

    def key(self, key_id: str) -> bytes | None:
        return self.keys.get(key_id)


def key_id_of(key: bytes) -> str:
    """A short name for a key, stored on the entries it signs; it does not reveal the key."""
    return hmac.new(key, b"chroniqueur audit key id", hashlib.sha256).hexdigest()[:12]


def derived_key(secret: str) -> bytes:
    return hmac.new(secret.encode(), KEY_PURPOSE, hashlib.sha256).digest()


_keyrings: dict[tuple, Keyring] = {}


def keyring() -> Keyring:
    """AUDIT_LOG_KEY signs; AUDIT_LOG_OLD_KEYS (newest first) and the keys derived from
    SECRET_KEY and SECRET_KEY_FALLBACKS still verify. Without AUDIT_LOG_KEY, the key derived
    from SECRET_KEY signs."""
    explicit = getattr(settings, "AUDIT_LOG_KEY", "") or ""
    old = tuple(getattr(settings, "AUDIT_LOG_OLD_KEYS", ()) or ())
    secrets = (settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", ()))
    cache_key = (explicit, old, secrets)
    found = _keyrings.get(cache_key)
    if found is None:
        ordered = [key.encode() for key in ((explicit,) if explicit else ()) + old]
        ordered += [derived_key(secret) for secret in secrets]
        keys: dict[str, bytes] = {}
        for key in ordered:
            keys.setdefault(key_id_of(key), key)
        rank = {key_id: len(keys) - i for i, key_id in enumerate(keys)}
        found = _keyrings[cache_key] = Keyring(next(iter(keys)), keys, rank)
    return found


# ---------------------------------------------------------------------------------------------
# The hash


# One encoder for every hash: building one per call (json.dumps with options) costs more than
# the encoding of a small entry.
_ENCODE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode
# The hashed columns whose values JSON does not hold as they are: two moments and a UUID. The
# others hold JSON values already (to_json), so `payload` converts only these (as `_canonical`
# would: verify_log's speed depends on it).
_MOMENTS = ("created_at", "game_time")
_orjson_dumps, _orjson_loads, _ORJSON_SORTED = orjson.dumps, orjson.loads, orjson.OPT_SORT_KEYS


def _matches(key: bytes, content: dict[str, Any], stored: str) -> bool:
    """Whether HMAC(key, payload(content)) is `stored`. The fast path encodes with orjson,
    which writes what `_ENCODE` writes for every value the log holds but some floats (1e-05
    against 0.00001): on a difference it gives way to `payload`, the definition."""
    fast = content
    for name in _MOMENTS:
        moment = content[name]
        if moment is not None and not isinstance(moment, str):  # str: PostgreSQL's, as due
            if fast is content:
                fast = dict(content)
            fast[name] = _moment_text(moment)
    try:
        encoded = _orjson_dumps(fast, option=_ORJSON_SORTED)
    except TypeError:  # orjson.JSONEncodeError: an integer beyond 64 bits…
        pass
    else:
        if hmac.digest(key, encoded, "sha256").hex() == stored:
            return True
    return hmac.digest(key, payload(content), "sha256").hex() == stored


def _loads(data: bytes | memoryview) -> Any:
    """JSON text to the Python values `json.loads` reads: orjson's, but where it would read
    them otherwise (an integer of 19 digits or more becomes a float; 1e400 is refused)."""
    if _LONG_NUMBER(data) is None:
        try:
            return _orjson_loads(data)
        except ValueError:  # orjson.JSONDecodeError
            pass
    return json.loads(bytes(data))


_LONG_NUMBER = re.compile(rb"\d{19}").search


def _moment_text(moment: datetime) -> str:
    """A hashed moment as the hash covers it: UTC, to the microsecond (naive means UTC)."""
    if moment.tzinfo is not UTC:
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
        moment = moment.astimezone(UTC)
    return moment.isoformat(timespec="microseconds")


def payload(content: dict[str, Any]) -> bytes:
    """The canonical bytes the hash covers: `content` holds every HASHED_FIELDS value."""
    canonical = dict(content)
    for name in _MOMENTS:
        moment = canonical[name]
        if moment is not None and not isinstance(moment, str):  # str: as written already
            canonical[name] = _moment_text(moment)
    batch = canonical["batch"]
    if isinstance(batch, uuid.UUID):
        canonical["batch"] = str(batch)
    return _ENCODE(canonical).encode()


def entry_hash(entry: AuditEntry, key: bytes | None = None) -> str:
    """HMAC-SHA256 of the entry's content with `key`, by default the key its `key_id` names."""
    if key is None:
        key = keyring().key(entry.key_id)
        if key is None:
            raise UnknownKey(entry.key_id)
    content = {name: getattr(entry, name) for name in HASHED_FIELDS}
    return hmac.new(key, payload(content), hashlib.sha256).hexdigest()


class UnknownKey(Exception):
    """An entry names a key this server does not have (AUDIT_LOG_OLD_KEYS lacks it)."""


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
    # The rule steps the action showed ("R3 · …"), as {"rule_id", "fr", "en"} (play/services).
    steps: list | None = None


def append(
    *, campaign: Campaign, actor, drafts: list[Draft], visibility: str | None = None
) -> list[AuditEntry]:
    """Write the drafts as one batch, chained after the campaign's latest entry.

    The caller holds the campaign's row lock inside its transaction.
    """
    last = (
        AuditEntry.objects.filter(campaign=campaign)
        .order_by("-id")
        .values_list("hash", "created_at", "seq")
        .first()
    )
    previous = last[0] if last else ""
    seq = last[2] if last else 0
    # An undo may take a whole action back, or bring one back: the dice's tally follows.
    # So do the characters' chart rows (journal/points.py).
    standing_before = standing(campaign.pk) if any(d.reverts for d in drafts) else None
    undone_before = (
        frozenset(standing_before.undone_batches) if standing_before is not None else None
    )
    ring = keyring()
    key = ring.key(ring.current)
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
            steps=to_json(draft.steps or []),
            seq=seq + 1,
            key_id=ring.current,
            prev_hash=previous,
        )
        if entry.kind == "roll" and entry.visibility == "gm" and isinstance(entry.roll, dict):
            # A roll only the GM sees is sealed: its commitment is written here, before the
            # hash, so the chain covers it (journal/sealing.py).
            entry.roll = sealing.seal(
                campaign_id=campaign.pk,
                seq=entry.seq,
                character=entry.character_name,
                action=entry.action,
                rule_id=entry.rule_id,
                roll=entry.roll,
            )
        entry.hash = entry_hash(entry, key)
        seq += 1
        entry.save()
        previous = entry.hash
        written.append(entry)
    tally.record(campaign, written, undone_before)
    points.record(campaign, written, standing_before)
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


# ---------------------------------------------------------------------------------------------
# Proving the chain


@dataclass(frozen=True)
class ChainProblem:
    entry_id: int
    reason: str
    seq: int | None = None


@dataclass(frozen=True)
class ChainWalk:
    """What walking a chain found: its first problem (or None), how many entries were read
    and the last good one's (id, seq, hash, created_at)."""

    problem: ChainProblem | None
    count: int
    head: tuple | None


# Read as plain tuples, not model instances: verifying a million entries must stay fast.
_READ = ("id", *HASHED_FIELDS, "hash", "created_at")


def walk_chain(
    campaign_id: int, *, start: AuditEntry | None = None, limit: int | None = None
) -> ChainWalk:
    """Check every entry of the campaign (or those from `start`, an entry already read, on;
    at most `limit` of them) in order: see `walk_rows`."""
    entries = AuditEntry.objects.filter(campaign_id=campaign_id)
    previous, expected = "", 1
    if start is not None:
        entries = entries.filter(id__gte=start.pk)
        previous, expected = start.prev_hash, start.seq
    if connections[entries.db].vendor == "postgresql":
        first_id = start.pk if start is not None else None
        return walk_part(campaign_id, first_id, limit, previous, expected)
    entries = entries.order_by("id")
    if limit is not None:
        entries = entries[:limit]
    rows = entries.values_list(*_READ).iterator(chunk_size=5000)
    return walk_rows(rows, previous=previous, expected=expected)


_PG_TYPES: dict[str, list] = {}  # database name -> the type of each column `_pg_rows` reads


def _pg_rows(campaign_id: int, first_id: int | None, limit: int | None) -> Iterable[tuple]:
    """`walk_chain`'s rows (`_READ` tuples, by id) as one binary COPY, read by psycopg's C
    loaders without Django's per-value converters: jsonb parsed once (orjson, else the
    standard library), and the two hashed moments written by PostgreSQL in the text
    `payload` makes of them (isoformat to the microsecond, +00:00)."""
    from psycopg import pq
    from psycopg.adapt import Loader

    class JsonbBinaryLoader(Loader):
        format = pq.Format.BINARY

        def load(self, data):
            return _loads(data[1:])  # a version byte, then the JSON text

    fields = AuditEntry._meta
    columns = [fields.get_field(name).column for name in _READ]
    select = ", ".join(
        _PG_ISO.format(column) if name in _MOMENTS and index < len(_READ) - 1 else f'"{column}"'
        for index, (name, column) in enumerate(zip(_READ, columns, strict=True))
    )
    query = f'SELECT {select} FROM "{fields.db_table}" WHERE "campaign_id" = %s'
    params: list[int] = [campaign_id]
    if first_id is not None:
        query += ' AND "id" >= %s'
        params.append(first_id)
    query += ' ORDER BY "id"'
    if limit is not None:
        query += " LIMIT %s"
        params.append(limit)
    database = connections[AuditEntry.objects.db]
    database.ensure_connection()
    with database.connection.cursor() as cursor:
        # The columns' types, asked once per database (the same whatever the campaign).
        types = _PG_TYPES.get(database.settings_dict["NAME"])
        if types is None:
            cursor.execute(f"SELECT * FROM ({query}) AS chain LIMIT 0", params)
            types = [column.type_code for column in cursor.description]
            _PG_TYPES[database.settings_dict["NAME"]] = types
        cursor.adapters.register_loader("jsonb", JsonbBinaryLoader)
        with cursor.copy(f"COPY ({query}) TO STDOUT (FORMAT BINARY)", params) as copy:
            copy.set_types(types)
            yield from copy.rows()


# PostgreSQL's text for a hashed moment, as `payload` writes it.
_PG_ISO = """to_char("{0}" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')"""


def walk_part(
    campaign_id: int, first_id: int | None, limit: int | None, previous: str, expected: int
) -> ChainWalk:
    """`walk_rows` over at most `limit` entries of the campaign from id `first_id`, the first
    at seq `expected` after the hash `previous` (PostgreSQL)."""
    with closing(_pg_rows(campaign_id, first_id, limit)) as stream:
        return walk_rows(stream, previous=previous, expected=expected)


# Below this many entries a second process costs more than it saves.
PARALLEL_FROM = 200_000


def walk_chain_parallel(campaign_id: int, *, workers: int = 2) -> ChainWalk:
    """`walk_chain` in `workers` processes, each over its share of the entries (by id), on
    PostgreSQL and from PARALLEL_FROM entries (verify_log). Each part starts from the seq and
    previous hash its first entry claims; the parts' seams are then checked (the last entry
    of a part is the one the next part's first links to and follows). Any problem, in a part
    or at a seam, is found again by the plain walk, which names it exactly as it would
    alone."""
    entries = AuditEntry.objects.filter(campaign_id=campaign_id).order_by("id")
    database = connections[entries.db]
    if database.vendor != "postgresql" or workers < 2:
        return walk_chain(campaign_id)
    total = entries.count()
    if total < PARALLEL_FROM:
        return walk_chain(campaign_id)
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from journal import chain_worker

    offsets = [total * k // workers for k in range(workers)]
    starts = [entries.values_list("id", "seq", "prev_hash")[offset] for offset in offsets[1:]]
    limits = [b - a for a, b in itertools.pairwise(offsets)] + [None]
    database_name = database.settings_dict["NAME"]
    with ProcessPoolExecutor(
        workers - 1,
        mp_context=get_context("spawn"),
        initializer=chain_worker.start,
        initargs=(database_name,),
    ) as pool:
        later = [
            pool.submit(walk_part, campaign_id, first, limit, previous, seq)
            for (first, seq, previous), limit in zip(starts, limits[1:], strict=True)
        ]
        walks = [walk_part(campaign_id, None, limits[0], "", 1)]
        walks += [future.result() for future in later]
    joined = all(walk.problem is None for walk in walks) and all(
        walk.head is not None and walk.head[1] + 1 == seq and walk.head[2] == previous
        for walk, (_, seq, previous) in zip(walks, starts, strict=False)
    )
    if not joined:
        return walk_chain(campaign_id)
    return ChainWalk(None, sum(walk.count for walk in walks), walks[-1].head)


def verify_records(records: Iterable[Mapping[str, Any]]) -> ChainWalk:
    """`walk_rows` over entries not read from this database, each a mapping of column
    (attname) to value: a campaign archive's, in order from its first, checked before
    anything is written (journal/archive.py)."""
    return walk_rows(tuple(record[name] for name in _READ) for record in records)


def walk_rows(rows: Iterable[tuple], *, previous: str = "", expected: int = 1) -> ChainWalk:
    """Check `rows` (`_READ` tuples of one campaign, in order, the first at seq `expected`
    after the hash `previous`): each seq follows, each entry links to the previous hash, its
    key is known and not older than the previous entry's, and its HMAC matches its content
    (`_matches`)."""
    ring = keyring()
    rank = 0
    count, head = 0, None
    names, matches = HASHED_FIELDS, _matches
    for row in rows:
        entry_id, stored, created = row[0], row[-2], row[-1]
        content = dict(zip(names, row[1:-2], strict=True))
        seq, key_id = content["seq"], content["key_id"]
        problem = None
        if seq != expected:
            if seq > expected:
                problem = f"its seq is {seq} where {expected} was expected: "
                if seq == expected + 1:
                    problem += f"entry {expected} is missing before it"
                else:
                    problem += f"entries {expected} to {seq - 1} are missing"
            else:
                problem = f"its seq is {seq} where {expected} was expected (inserted or moved)"
        elif content["prev_hash"] != previous:
            problem = "its link to the previous entry is broken"
        elif (key := ring.keys.get(key_id)) is None:
            problem = f"it is signed with a key this server does not have (key id {key_id})"
        elif ring.rank[key_id] < rank:
            problem = f"it is signed with an older key (key id {key_id}) than the entry before it"
        elif not matches(key, content, stored):
            problem = "its content does not match its hash"
        if problem is not None:
            return ChainWalk(ChainProblem(entry_id, problem, seq), count, head)
        previous, expected, rank = stored, expected + 1, ring.rank[key_id]
        count += 1
        head = (entry_id, seq, stored, created)
    return ChainWalk(None, count, head)


def verify_chain(campaign: Campaign) -> ChainProblem | None:
    """The first entry of the campaign whose content, key, seq or link does not match."""
    return walk_chain(campaign.pk).problem


# ---------------------------------------------------------------------------------------------
# Seals: the head of a chain in a form a person can keep, and the proof that a log extends it

SEAL_PREFIX = "CHQ1"
_SEAL = re.compile(r"^CHQ1-(\d{1,18})-(\d{1,18})-(\d{1,18})-([0-9a-f]{16})$")


class BadSeal(ValueError):
    """Text that is not a seal."""


@dataclass(frozen=True)
class Seal:
    """`CHQ1-<campaign>-<entry id>-<count>-<first 16 hex of the entry's hash>`; `at` (when the
    head entry was written) is shown beside it, not part of it."""

    campaign_id: int
    entry_id: int
    count: int
    prefix: str
    at: datetime | None = None

    def __str__(self) -> str:
        return f"{SEAL_PREFIX}-{self.campaign_id}-{self.entry_id}-{self.count}-{self.prefix}"

    @classmethod
    def parse(cls, text: str) -> Seal:
        found = _SEAL.match(_normalise(text))
        if found is None:
            raise BadSeal(text)
        campaign_id, entry_id, count, prefix = found.groups()
        return cls(int(campaign_id), int(entry_id), int(count), prefix)


def _normalise(text: str) -> str:
    """A pasted seal: spaces and line breaks dropped, the hash in lower case."""
    compact = "".join(str(text).split())
    head, _, rest = compact.partition("-")
    return f"{head.upper()}-{rest.lower()}"


EMPTY_PREFIX = "0" * 16


def seal_for(campaign_id: int) -> Seal:
    """The seal of the campaign's log as it is now (its latest entry)."""
    head = (
        AuditEntry.objects.filter(campaign_id=campaign_id)
        .order_by("-id")
        .values_list("id", "seq", "hash", "created_at")
        .first()
    )
    return _seal_of(campaign_id, head)


def seal_of(campaign_id: int, head: tuple | None) -> Seal:
    """The seal of a log whose latest entry is `head` (id, seq, hash, created_at; None: an
    empty log)."""
    return _seal_of(campaign_id, head)


def _seal_of(campaign_id: int, head: tuple | None) -> Seal:
    if head is None:
        return Seal(campaign_id, 0, 0, EMPTY_PREFIX)
    entry_id, seq, hash_, created_at = head
    return Seal(campaign_id, entry_id, seq, hash_[:16], created_at)


@dataclass(frozen=True)
class SealCheck:
    """Whether the log extends a seal. `problem` is None when it does, else one of
    "other_campaign", "missing" (the sealed entry is gone), "changed" (it is not the entry
    sealed), "broken" (the chain from it, or before it, does not verify: see `chain`)."""

    seal: Seal
    current: Seal
    problem: str | None = None
    chain: ChainProblem | None = None

    @property
    def extends(self) -> bool:
        return self.problem is None


SEAL_CHECK_LIMIT = 20_000


def check_seal(campaign_id: int, seal: Seal, *, full: bool = False) -> SealCheck:
    """Does the campaign's log today extend `seal`? The sealed entry is still there with the
    same seq and hash, and the chain from it to the latest entry verifies with the key (from
    the first entry when `full`: what `verify_log --seal` does)."""
    if seal.campaign_id != campaign_id:
        return SealCheck(seal, seal_for(campaign_id), "other_campaign")
    sealed = None
    if seal.entry_id:
        sealed = AuditEntry.objects.filter(campaign_id=campaign_id, pk=seal.entry_id).first()
        if sealed is None:
            return SealCheck(seal, seal_for(campaign_id), "missing")
        if sealed.seq != seal.count or not sealed.hash.startswith(seal.prefix):
            return SealCheck(seal, seal_for(campaign_id), "changed")
    elif seal.count or seal.prefix != EMPTY_PREFIX:
        return SealCheck(seal, seal_for(campaign_id), "changed")
    if not full:
        return replace(check_from(campaign_id, sealed), seal=seal)
    walk = walk_chain(campaign_id)
    if walk.problem is not None:
        return SealCheck(seal, seal_for(campaign_id), "broken", walk.problem)
    return SealCheck(seal, _seal_of(campaign_id, walk.head))


def check_from(campaign_id: int, sealed: AuditEntry | None) -> SealCheck:
    """Does the log extend the seal of `sealed`, an entry of the campaign already read (None:
    the empty log)? The chain from it to the latest entry verifies: an open page's check stays
    quick whatever the seal's age, as it walks at most SEAL_CHECK_LIMIT entries (`verify_log
    --seal` checks them all). The current seal is the last entry walked (read apart only past
    the limit, or on a problem). The live stream calls it with the entry it read."""
    head = None if sealed is None else (sealed.pk, sealed.seq, sealed.hash, sealed.created_at)
    seal = _seal_of(campaign_id, head)
    walk = walk_chain(campaign_id, start=sealed, limit=SEAL_CHECK_LIMIT)
    if walk.problem is not None:
        return SealCheck(seal, seal_for(campaign_id), "broken", walk.problem)
    if walk.head is None or walk.count >= SEAL_CHECK_LIMIT:
        return SealCheck(seal, seal_for(campaign_id))
    return SealCheck(seal, _seal_of(campaign_id, walk.head))
