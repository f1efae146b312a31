"""Rehash every existing entry with the keyed HMAC (journal/audit.py), after proving the old
unkeyed SHA-256 chain: a history already broken is not laundered into a valid one. The
migration refuses to run then, naming the entry; `manage.py verify_log` of the previous version
says the same.

The hash functions are frozen here as they were when this migration was written, so that a
later change of journal/audit.py cannot change what this migration does. The key is today's
(settings.AUDIT_LOG_KEY, else derived from SECRET_KEY).
"""

import hashlib
import hmac
import json
import uuid
from datetime import UTC, datetime

from django.db import migrations

OLD_FIELDS = (
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
NEW_FIELDS = (*OLD_FIELDS[:-1], "steps", "seq", "key_id", "prev_hash")
TRIGGER = "journal_auditentry_append_only"


def _canonical(value):
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC).isoformat(timespec="microseconds")
    if isinstance(value, uuid.UUID):
        return str(value)
    return value


def _payload(content) -> bytes:
    canonical = {name: _canonical(value) for name, value in content.items()}
    return json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def rehash(apps, schema_editor):
    from journal.audit import keyring

    ring = keyring()
    key_id = ring.current
    key = ring.key(key_id)
    AuditEntry = apps.get_model("journal", "AuditEntry")
    connection = schema_editor.connection
    postgresql = connection.vendor == "postgresql"
    # The database being migrated, which is not always the default one (a second test
    # database, bench/history.py's import target).
    entries = AuditEntry.objects.using(connection.alias)
    campaigns = entries.values_list("campaign_id", flat=True).distinct()
    with connection.cursor() as cursor:
        if postgresql:
            cursor.execute(f"ALTER TABLE journal_auditentry DISABLE TRIGGER {TRIGGER}")
        for campaign_id in sorted(set(campaigns)):
            rows = (
                entries.filter(campaign_id=campaign_id)
                .order_by("id")
                .values_list("id", *OLD_FIELDS, "hash")
            )
            old_previous = new_previous = ""
            updates = []
            for seq, row in enumerate(rows.iterator(chunk_size=2000), start=1):
                entry_id, stored = row[0], row[-1]
                content = dict(zip(OLD_FIELDS, row[1:-1], strict=True))
                if (
                    content["prev_hash"] != old_previous
                    or hashlib.sha256(_payload(content)).hexdigest() != stored
                ):
                    raise RuntimeError(
                        f"Audit entry {entry_id} of campaign {campaign_id} does not verify: "
                        "the log was altered before this upgrade. Restore it from a backup, "
                        "then migrate again."
                    )
                old_previous = stored
                content.update(steps=[], seq=seq, key_id=key_id, prev_hash=new_previous)
                content = {name: content[name] for name in NEW_FIELDS}
                new_hash = hmac.digest(key, _payload(content), "sha256").hex()
                updates.append((seq, key_id, new_previous, new_hash, entry_id))
                new_previous = new_hash
            cursor.executemany(
                "UPDATE journal_auditentry SET seq = %s, key_id = %s, prev_hash = %s, hash = %s "
                "WHERE id = %s",
                updates,
            )
        if postgresql:
            cursor.execute(f"ALTER TABLE journal_auditentry ENABLE TRIGGER {TRIGGER}")


class Migration(migrations.Migration):
    dependencies = [("journal", "0003_keyed_chain_columns")]

    operations = [migrations.RunPython(rehash, migrations.RunPython.noop)]
