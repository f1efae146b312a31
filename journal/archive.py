"""A whole campaign in one JSON file, and that file rebuilt in another instance: the GM
owns the campaign's data and can leave this server with it, its log still verifiable.

The archive holds the campaign's settings, its members' usernames and roles, its characters
with their conditions, sequels and illness, its play sessions, and the full audit log, every
column as stored (hashes, seq and key ids included), with the seal of the log's head.

Every id is kept: an entry's hash covers the ids of its campaign, character, actor and the
entry it reverts, and a seal names the head entry's id, so the rebuilt log verifies and the
seals people hold still prove it. The import therefore refuses an id that is already taken in
the target database rather than renumbering (which would break the chain) or mixing rows of
two campaigns; it is meant for moving a campaign to another instance or restoring it into a
fresh one. Accounts are matched by username: an account that exists must have the archive's
id; a missing one is created with that id and no usable password (an administrator sets one,
`manage.py changepassword`).

The import verifies the log with this instance's keys (journal/audit.py's verification, on
the entries before anything is written, then on the rows as stored) and refuses a file that
does not verify, naming the first bad entry. An archive made on another instance verifies
here only with that instance's log key: give it in AUDIT_LOG_OLD_KEYS (README, "Back up").

Restoring is not a game action: no entry is added, the log is the archive's.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.color import no_style
from django.db import DataError, IntegrityError, connections, models, router, transaction
from django.utils import timezone

from campaign.models import Campaign, Membership, Role
from characters.models import Character, Condition, Illness, Sequel
from journal import audit, points, standing, tally
from journal.models import AuditEntry, PlaySession

FORMAT = "chroniqueur-campaign-archive"
VERSION = 1
CHUNK = 2000


class ArchiveError(Exception):
    """The archive cannot be imported; the message says why, for the person importing."""


# ---------------------------------------------------------------------------------------------
# Values


def _plain(value: Any) -> Any:
    """JSON for what json cannot write: moments to the microsecond, in UTC (the hash's form,
    which DjangoJSONEncoder's milliseconds would lose), dates, UUIDs."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC).isoformat(timespec="microseconds")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _columns(model: type[models.Model], *, leave: tuple[str, ...] = ()) -> list[models.Field]:
    return [f for f in model._meta.concrete_fields if f.attname not in leave]


def _row(instance: models.Model, fields: list[models.Field]) -> dict[str, Any]:
    return {f.attname: getattr(instance, f.attname) for f in fields}


def _read(model: type[models.Model], record: dict, fields: list[models.Field], what: str) -> dict:
    """The archive's values of `fields` as the model's Python values; a missing one takes its
    default, a wrong one refuses the archive naming `what` and the field."""
    values = {}
    for f in fields:
        if f.attname not in record:
            if f.has_default() or f.null or f.primary_key:
                continue
            raise ArchiveError(f"{what}: “{f.attname}” is missing.")
        try:
            values[f.attname] = f.to_python(record[f.attname])
            # The field's own limits (a name's length…), which the database may not check.
            f.run_validators(values[f.attname])
        except ValidationError as error:
            message = f"{what}: “{f.attname}” is not valid ({error.messages[0]})."
            raise ArchiveError(message) from None
    return values


# ---------------------------------------------------------------------------------------------
# Export

# The table screen's link stays with the server that made it: an archive never carries one.
CAMPAIGN_FIELDS = _columns(Campaign, leave=("screen_token_hash", "screen_token_created_at"))
CHARACTER_FIELDS = _columns(Character, leave=("campaign_id", "owner_id"))
CONDITION_FIELDS = _columns(Condition, leave=("character_id",))
SEQUEL_FIELDS = _columns(Sequel, leave=("character_id",))
ILLNESS_FIELDS = _columns(Illness, leave=("character_id",))


def log_fields() -> list[str]:
    """Every column of the log, in the model's order (the archive's rows follow it)."""
    return [f.attname for f in AuditEntry._meta.concrete_fields]


def _seal(campaign_id: int, head: tuple | None) -> str:
    """The seal of the log's head as the archive holds it (`head`: id, seq, hash)."""
    if head is None:
        return str(audit.Seal(campaign_id, 0, 0, audit.EMPTY_PREFIX))
    entry_id, seq, hash_ = head
    return str(audit.Seal(campaign_id, entry_id, seq, hash_[:16]))


def archive_chunks(campaign_id: int) -> Iterator[str]:
    """The archive as text, in pieces: everything but the log first, then one line per log
    entry. The log is read up to its head when the export starts, so the seal written is the
    last entry's even if entries are added meanwhile."""
    connection = connections[router.db_for_read(AuditEntry)]
    outermost = not connection.in_atomic_block
    with transaction.atomic(using=connection.alias):
        if connection.vendor == "postgresql" and outermost:
            # One snapshot for the campaign, its characters and its log.
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield from _archive_chunks(campaign_id)


def _archive_chunks(campaign_id: int) -> Iterator[str]:
    campaign = Campaign.objects.get(pk=campaign_id)
    entries = AuditEntry.objects.filter(campaign_id=campaign_id)
    head = entries.order_by("-id").values_list("id", "seq", "hash").first()
    memberships = campaign.memberships.select_related("user").order_by("pk")
    characters = (
        Character.objects.filter(campaign_id=campaign_id)
        .select_related("owner", "illness")
        .prefetch_related("conditions", "sequels")
        .order_by("pk")
    )
    sessions = PlaySession.objects.filter(campaign_id=campaign_id).select_related("started_by")
    archive = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": timezone.now(),
        "seal": _seal(campaign_id, head),
        "campaign": _row(campaign, CAMPAIGN_FIELDS),
        "members": [
            {
                "user_id": m.user_id,
                "username": m.user.get_username(),
                "role": m.role,
                "joined_at": m.joined_at,
            }
            for m in memberships
        ],
        "characters": [_character(c) for c in characters],
        "sessions": [
            {
                "id": s.pk,
                "started_at": s.started_at,
                "started_by": s.started_by.get_username() if s.started_by else None,
            }
            for s in sessions.order_by("pk")
        ],
        # Derived, for readers: each entry an undo took back -> that standing undo
        # (journal/standing.py). The import ignores it: the log itself says it all.
        "undone": {
            str(entry): undo
            for entry, undo in sorted(standing.undone_by(campaign_id).items())
            if head is not None and undo <= head[0]
        },
        "log_fields": log_fields(),
    }
    text = json.dumps(archive, ensure_ascii=False, indent=1, default=_plain)
    yield text[: text.rindex("}")].rstrip() + ',\n "log": [\n'
    rows = entries.order_by("id").values_list(*log_fields())
    if head is not None:
        rows = rows.filter(id__lte=head[0])
    first = True
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_plain).encode
    for row in rows.iterator(chunk_size=CHUNK):
        yield ("  " if first else ",\n  ") + dumps(row)
        first = False
    yield "\n ]\n}\n"


def _character(character: Character) -> dict:
    record = _row(character, CHARACTER_FIELDS)
    record["owner"] = character.owner.get_username() if character.owner else None
    record["owner_id"] = character.owner_id
    record["conditions"] = [_row(c, CONDITION_FIELDS) for c in character.conditions.all()]
    record["sequels"] = [_row(s, SEQUEL_FIELDS) for s in character.sequels.all()]
    try:
        record["illness"] = _row(character.illness, ILLNESS_FIELDS)
    except Illness.DoesNotExist:
        record["illness"] = None
    return record


# ---------------------------------------------------------------------------------------------
# Import


NOTHING = "Nothing was imported."
_LIMIT = object()  # load()'s default: the ARCHIVE_IMPORT_MAX_MB setting


def load(stream, *, limit: Any = _LIMIT) -> dict:
    """The archive read from a text or binary file, or ArchiveError if it is not one.

    The whole file is parsed in memory (about five times its size at the peak), so at most
    `limit` bytes of it are read (the ARCHIVE_IMPORT_MAX_MB setting; None: no bound): a larger
    file is refused before it is parsed. A file nested too deep for the parser is refused too.
    """
    if limit is _LIMIT:
        limit = settings.ARCHIVE_IMPORT_MAX_MB * 1024 * 1024
    text = stream.read() if limit is None else stream.read(limit + 1)
    if limit is not None and len(text) > limit:
        raise ArchiveError(
            f"This file is larger than {limit // (1024 * 1024)} MB, the most an import reads "
            f"(ARCHIVE_IMPORT_MAX_MB). {NOTHING}"
        )
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as error:
        raise ArchiveError(f"This file is not JSON: {error}.") from None
    except RecursionError:
        raise ArchiveError(f"This file is nested too deep to be an archive. {NOTHING}") from None
    finally:
        del text
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ArchiveError("This file is not a Chroniqueur campaign archive.")
    if data.get("version") != VERSION:
        raise ArchiveError(
            f"This archive's format version is {data.get('version')!r}; this instance reads "
            f"version {VERSION}."
        )
    for key, kind in (("campaign", dict), ("log", list), ("log_fields", list)):
        if not isinstance(data.get(key), kind):
            raise ArchiveError(f"The archive's “{key}” is missing or malformed.")
    return data


def _converter(field: models.Field):
    """A fast reader of one column's archived value: values already of the column's type pass
    as they are (the common case), moments and UUIDs are parsed directly, anything else goes
    through the field's own `to_python`, which refuses what it cannot read."""
    if isinstance(field, models.DateTimeField):

        def moment(value):
            if isinstance(value, str):
                try:
                    parsed = datetime.fromisoformat(value)
                except ValueError:
                    parsed = None
                if parsed is not None and parsed.tzinfo is not None:
                    return parsed
            return field.to_python(value)

        return moment
    if isinstance(field, models.UUIDField):
        return lambda value: uuid.UUID(value) if isinstance(value, str) else field.to_python(value)
    if isinstance(field, models.JSONField):
        return lambda value: value
    if isinstance(field, models.BooleanField):
        return lambda value: value if isinstance(value, bool) else field.to_python(value)
    if isinstance(field, (models.IntegerField, models.ForeignKey, models.AutoField)):
        return lambda value: (
            value
            if value is None or (isinstance(value, int) and not isinstance(value, bool))
            else field.to_python(value)
        )
    if isinstance(field, (models.CharField, models.TextField)):
        return lambda value: value if isinstance(value, str) else field.to_python(value)
    return field.to_python


def log_records(data: dict) -> list[dict[str, Any]]:
    """The archive's log as one mapping per entry, column (attname) to the value the database
    would give back."""
    names = data["log_fields"]
    fields = {f.attname: f for f in AuditEntry._meta.concrete_fields}
    missing = [name for name in fields if name not in names]
    if missing:
        raise ArchiveError(f"The archive's log lacks the column(s) {', '.join(missing)}.")
    readers = [
        (i, name, _converter(fields[name])) for i, name in enumerate(names) if name in fields
    ]
    width = len(names)
    records = []
    for position, row in enumerate(data["log"], start=1):
        if not isinstance(row, list) or len(row) != width:
            raise ArchiveError(f"The archive's log entry number {position} is malformed.")
        try:
            records.append({name: read(row[i]) for i, name, read in readers})
        except (ValidationError, ValueError, TypeError) as error:
            detail = error.messages[0] if isinstance(error, ValidationError) else str(error)
            raise ArchiveError(
                f"The archive's log entry number {position} has a value that is not valid "
                f"({detail})."
            ) from None
    return records


def _check_chain(records: list[dict]) -> None:
    problem = audit.verify_records(records).problem
    if problem is not None:
        raise ArchiveError(refusal(problem))


def refusal(problem) -> str:
    seq = getattr(problem, "seq", None)
    where = f"entry #{problem.entry_id}" + (f" (number {seq} in its campaign)" if seq else "")
    message = (
        f"The archive's log does not verify: {where} is the first bad one: {problem.reason}. "
        "Nothing was imported."
    )
    if "key" in problem.reason:
        message += (
            " An archive from another instance verifies with that instance's log key: "
            "give it in AUDIT_LOG_OLD_KEYS."
        )
    return message


def campaign_import(*, data: dict, held_seal: str | None = None) -> Campaign:
    """Rebuild the archived campaign here, in one transaction, or raise ArchiveError.

    `data` is `load()`'s. The log is verified before anything is written and again as
    stored; ids already taken here are refused. `held_seal`, a seal someone kept from this
    campaign (an export, a recap, the history page), must be extended by the archive's log:
    the archive's own seal only proves it was not cut after it was written.
    """
    entries = log_records(data)
    campaign_record = data["campaign"]
    campaign_id = campaign_record.get("id")
    if not isinstance(campaign_id, int):
        raise ArchiveError("The archive's campaign has no id.")
    characters = _list(data, "characters")
    character_ids = {c.get("id") for c in characters}
    entry_ids = set()
    for entry in entries:
        entry_id = entry["id"]
        if entry["campaign_id"] != campaign_id:
            raise ArchiveError(f"Log entry #{entry_id} belongs to another campaign.")
        if entry["character_id"] is not None and entry["character_id"] not in character_ids:
            raise ArchiveError(f"Log entry #{entry_id} names a character not in the archive.")
        if entry["reverts_id"] is not None and entry["reverts_id"] not in entry_ids:
            raise ArchiveError(f"Log entry #{entry_id} reverts an entry not before it.")
        entry_ids.add(entry_id)
    _check_chain(entries)
    _check_seal(data.get("seal"), entries, campaign_id)
    if held_seal:
        _check_held_seal(held_seal, entries, campaign_id)

    _refuse_repeated(data)
    try:
        return _write(data, entries, campaign_id, campaign_record, characters, entry_ids)
    except (IntegrityError, DataError) as error:
        # What the checks above did not foresee and the database refused: rolled back whole.
        raise ArchiveError(f"The database refused the archive ({error}). {NOTHING}") from None


def _refuse_repeated(data: dict) -> None:
    """Refuse an archive listing a row twice (its log verifies, but the rest of the file is
    not covered by the log's hashes, and could be edited by hand)."""
    characters = _list(data, "characters")
    members = _list(data, "members")
    listed = {
        "character": [c.get("id") for c in characters],
        "member": [m.get("username") for m in members],
        "play session": [s.get("id") for s in _list(data, "sessions")],
        "condition": [r.get("id") for c in characters for r in _children(c, "conditions")],
        "sequel": [r.get("id") for c in characters for r in _children(c, "sequels")],
    }
    for what, values in listed.items():
        seen = set()
        for value in values:
            if value is None and what != "member":
                continue
            if not isinstance(value, (int, str)) or value in seen:
                shown = value if isinstance(value, (int, str)) else type(value).__name__
                raise ArchiveError(
                    f"The archive lists the {what} “{shown}” twice (or unreadable). {NOTHING}"
                )
            seen.add(value)
    for member in members:
        if member.get("role") not in Role.values:
            raise ArchiveError(f"The archive's member “{member.get('username')}” has no role.")


def _list(data: dict, key: str) -> list[dict]:
    value = data.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ArchiveError(f"The archive's “{key}” is malformed. {NOTHING}")
    return value


def _write(data, entries, campaign_id, campaign_record, characters, entry_ids) -> Campaign:
    db = router.db_for_write(Campaign)
    character_ids = {c.get("id") for c in characters}
    with transaction.atomic(using=db):
        _refuse_taken(Campaign, [campaign_id], "campaign")
        _refuse_taken(Character, list(character_ids), "character")
        _refuse_taken(AuditEntry, list(entry_ids), "log entry")
        sessions = data.get("sessions") or []
        _refuse_taken(PlaySession, [s.get("id") for s in sessions], "play session")
        rows = {
            model: [r.get("id") for c in characters for r in _children(c, key)]
            for model, key in ((Condition, "conditions"), (Sequel, "sequels"))
        }
        rows[Illness] = [c["illness"].get("id") for c in characters if c.get("illness")]
        for model, ids in rows.items():
            _refuse_taken(model, ids, model._meta.model_name)
        users = _accounts(data)

        values = _read(Campaign, campaign_record, CAMPAIGN_FIELDS, "The campaign")
        campaign = Campaign(**values)
        Campaign.objects.bulk_create([campaign])
        _keep_creation_time(Campaign, [values])
        members = data.get("members") or []
        Membership.objects.bulk_create(
            Membership(campaign_id=campaign_id, user_id=users[m["username"]].pk, role=m["role"])
            for m in members
        )
        for m in members:  # joined_at is stamped on creation: the archive's back
            if m.get("joined_at"):
                Membership.objects.filter(
                    campaign_id=campaign_id, user_id=users[m["username"]].pk
                ).update(joined_at=_moment(m["joined_at"]))
        _restore_characters(campaign_id, characters, users)
        PlaySession.objects.bulk_create(
            PlaySession(
                pk=s["id"],
                campaign_id=campaign_id,
                started_at=_moment(s["started_at"]),
                started_by=users.get(s.get("started_by")),
            )
            for s in sessions
        )
        _write_log(db, entries)
        _reset_sequences(db)
        # The rows as stored, read back: what verify_log will see from now on.
        problem = audit.verify_chain(campaign)
        if problem is not None:
            raise ArchiveError(refusal(problem))
        # The entries came without the audit writer: the dice's tally and the characters'
        # chart rows are derived from them.
        tally.rebuild(campaign)
        points.rebuild(campaign)
    return campaign


def _write_log(db: str, records: list[dict]) -> None:
    """The log's rows as they are, ids and hashes included: COPY on PostgreSQL (the ORM's
    INSERT costs more than everything else of an import there), bulk_create elsewhere."""
    connection = connections[db]
    if connection.vendor != "postgresql":
        entries = (AuditEntry(**record) for record in records)
        AuditEntry.objects.bulk_create(entries, batch_size=CHUNK)
        return
    from psycopg.types.json import Jsonb

    fields = AuditEntry._meta.concrete_fields
    json_columns = {f.attname for f in fields if isinstance(f, models.JSONField)}
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    table = connection.ops.quote_name(AuditEntry._meta.db_table)
    names = [(f.attname, f.attname in json_columns) for f in fields]
    sql = f"COPY {table} ({columns}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for record in records:
            values = [record[name] for name, _is_json in names]
            for i, (_name, is_json) in enumerate(names):
                if is_json and values[i] is not None:
                    values[i] = Jsonb(values[i])
            copy.write_row(values)


def _keep_creation_time(model: type[models.Model], rows: list[dict]) -> None:
    """bulk_create stamps `auto_now_add` fields with the present: put the archive's back."""
    for row in rows:
        if row.get("created_at") is not None:
            model.objects.filter(pk=row["id"]).update(created_at=row["created_at"])


def _moment(value) -> datetime | None:
    return models.DateTimeField().to_python(value) if value is not None else None


def _children(character: dict, key: str) -> list[dict]:
    value = character.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ArchiveError(f"Character #{character.get('id')}: “{key}” is malformed.")
    return value


def _check_seal(seal, entries: list[dict], campaign_id: int) -> None:
    """The seal written in the archive is its last entry's: a log cut short is refused even
    though what is left verifies."""
    if not seal:
        raise ArchiveError("The archive has no seal: it was not written by campaign_export.")
    try:
        sealed = audit.Seal.parse(seal)
    except ValueError:
        raise ArchiveError(f"The archive's seal “{seal}” is not a seal.") from None
    head = entries[-1] if entries else {"id": 0, "seq": 0, "hash": audit.EMPTY_PREFIX}
    if (
        sealed.campaign_id != campaign_id
        or head["id"] != sealed.entry_id
        or head["seq"] != sealed.count
        or not head["hash"].startswith(sealed.prefix)
    ):
        last = f"entry #{head['id']}" if entries else "no entry"
        raise ArchiveError(
            f"The archive's log ends at {last}, not at the entry its seal {seal} names: "
            "entries were removed or changed. Nothing was imported."
        )


def _check_held_seal(seal: str, entries: list[dict], campaign_id: int) -> None:
    """The archive's log extends `seal`: the sealed entry is in it, unchanged (the chain
    after it was verified already)."""
    try:
        sealed = audit.Seal.parse(seal)
    except ValueError:
        raise ArchiveError(f"“{seal}” is not a seal.") from None
    if sealed.campaign_id != campaign_id:
        raise ArchiveError(
            f"The seal {seal} is campaign {sealed.campaign_id}'s; this archive holds campaign "
            f"{campaign_id}."
        )
    if sealed.entry_id == 0:
        return  # sealed when the log was empty: any log extends it
    found = next((e for e in entries if e["id"] == sealed.entry_id), None)
    if found is None:
        raise ArchiveError(
            f"The archive's log does not extend the seal {seal}: entry #{sealed.entry_id} is "
            "missing (the log was cut or rewound). Nothing was imported."
        )
    if found["seq"] != sealed.count or not found["hash"].startswith(sealed.prefix):
        raise ArchiveError(
            f"The archive's log does not extend the seal {seal}: entry #{found['id']} is not the "
            "entry sealed (the log was rewritten). Nothing was imported."
        )


def _refuse_taken(model: type[models.Model], ids: list, what: str) -> None:
    ids = [i for i in ids if i is not None]
    if not all(isinstance(i, int) for i in ids):
        raise ArchiveError(f"The archive gives a {what} an id that is not a number.")
    ids.sort()
    first = None
    # In slices: a database takes only so many parameters in one query (SQLite builds from
    # 999 to 250,000, PostgreSQL's server-side binding 65,535).
    for start in range(0, len(ids), 1000):
        taken = model.objects.filter(pk__in=ids[start : start + 1000]).order_by("pk")
        first = taken.values_list("pk", flat=True).first()
        if first is not None:
            break
    if first is not None:
        raise ArchiveError(
            f"A {what} with id {first} already exists here: this archive's ids are taken "
            "(it was imported already, or comes from a database that shares ids with this "
            "one). Import it into a fresh database. Nothing was imported."
        )


def _accounts(data: dict) -> dict[str, Any]:
    """The accounts the archive names, by username: existing ones (with the archive's id), and
    the missing ones created with that id and no usable password."""
    User = get_user_model()
    wanted: dict[str, int | None] = {}
    for member in data.get("members") or []:
        wanted[member["username"]] = member.get("user_id")
    for character in data.get("characters") or []:
        if character.get("owner"):
            wanted.setdefault(character["owner"], character.get("owner_id"))
    for session in data.get("sessions") or []:
        if session.get("started_by"):
            wanted.setdefault(session["started_by"], None)
    found = {u.get_username(): u for u in User.objects.filter(username__in=list(wanted))}
    users = {}
    for username, user_id in wanted.items():
        user = found.get(username)
        if user is not None:
            if user_id is not None and user.pk != user_id:
                raise ArchiveError(
                    f"The account “{username}” exists here with id {user.pk}, and the archive "
                    f"gives it id {user_id}: the log names people by id. Import into a "
                    "database where it is missing or has that id. Nothing was imported."
                )
        elif user_id is None:
            continue  # someone who opened a session and left: the session keeps no name
        else:
            other = User.objects.filter(pk=user_id).first()
            if other is not None:
                raise ArchiveError(
                    f"The archive's account “{username}” has id {user_id}, which is "
                    f"“{other.get_username()}”'s here. Nothing was imported."
                )
            user = User(pk=user_id, username=username)
            user.set_unusable_password()
            user.save(force_insert=True)
        users[username] = user
    return users


def _restore_characters(campaign_id: int, characters: list[dict], users: dict) -> None:
    rows, conditions, sequels, illnesses = [], [], [], []
    for record in characters:
        what = f"Character #{record.get('id')}"
        values = _read(Character, record, CHARACTER_FIELDS, what)
        owner = users.get(record.get("owner")) if record.get("owner") else None
        rows.append(Character(campaign_id=campaign_id, owner=owner, **values))
        for item in _children(record, "conditions"):
            values = _read(Condition, item, CONDITION_FIELDS, f"{what}'s condition")
            conditions.append(Condition(character_id=record["id"], **values))
        for item in _children(record, "sequels"):
            values = _read(Sequel, item, SEQUEL_FIELDS, f"{what}'s sequel")
            sequels.append(Sequel(character_id=record["id"], **values))
        if record.get("illness"):
            values = _read(Illness, record["illness"], ILLNESS_FIELDS, f"{what}'s illness")
            illnesses.append(Illness(character_id=record["id"], **values))
    # bulk_create: no save(), so each character keeps its version (cards are cached by it).
    created = [{"id": r.pk, "created_at": r.created_at} for r in rows]
    Character.objects.bulk_create(rows)
    _keep_creation_time(Character, created)
    Condition.objects.bulk_create(conditions)
    Sequel.objects.bulk_create(sequels)
    Illness.objects.bulk_create(illnesses)


def _reset_sequences(db: str) -> None:
    """Rows were written with their ids: the next ones must come after them (PostgreSQL's
    sequences; SQLite follows the largest id by itself)."""
    connection = connections[db]
    written = [Campaign, Character, Condition, Sequel, Illness, PlaySession, AuditEntry]
    statements = connection.ops.sequence_reset_sql(no_style(), [*written, get_user_model()])
    if statements:
        with connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
