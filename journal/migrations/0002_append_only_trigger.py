"""On PostgreSQL the database itself refuses UPDATE and DELETE on the audit log.

The model refuses them too (journal.models.AuditEntry); the trigger covers raw SQL and other
clients. TRUNCATE is left to the owner of the database (test teardown uses it).
"""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION journal_auditentry_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only: % refused on entry %', TG_OP, OLD.id
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER journal_auditentry_append_only
    BEFORE UPDATE OR DELETE ON journal_auditentry
    FOR EACH ROW EXECUTE FUNCTION journal_auditentry_append_only();
"""

DROP = """
DROP TRIGGER IF EXISTS journal_auditentry_append_only ON journal_auditentry;
DROP FUNCTION IF EXISTS journal_auditentry_append_only();
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        # params=None: the PL/pgSQL body's RAISE placeholders (%) are not query parameters.
        schema_editor.execute(CREATE, params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("journal", "0001_initial")]

    operations = [migrations.RunPython(forwards, backwards)]
