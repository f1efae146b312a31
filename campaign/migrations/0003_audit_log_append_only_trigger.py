"""On PostgreSQL the database itself refuses UPDATE and DELETE on the audit log.

The model refuses them too (campaign.models.AuditEntry); the trigger covers raw SQL and other
clients. TRUNCATE is left to the owner of the database (test teardown uses it).
"""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION campaign_auditentry_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only: % refused on entry %', TG_OP, OLD.id
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER campaign_auditentry_append_only
    BEFORE UPDATE OR DELETE ON campaign_auditentry
    FOR EACH ROW EXECUTE FUNCTION campaign_auditentry_append_only();
"""

DROP = """
DROP TRIGGER IF EXISTS campaign_auditentry_append_only ON campaign_auditentry;
DROP FUNCTION IF EXISTS campaign_auditentry_append_only();
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        # params=None: the PL/pgSQL body's RAISE placeholders (%) are not query parameters.
        schema_editor.execute(CREATE, params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("campaign", "0002_clock_and_audit_log")]

    operations = [migrations.RunPython(forwards, backwards)]
