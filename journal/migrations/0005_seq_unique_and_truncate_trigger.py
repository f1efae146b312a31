"""Every entry has its place (`seq`) in its campaign's chain, once; and on PostgreSQL the
database refuses TRUNCATE of the log as it refuses UPDATE and DELETE (0002).

Emptying the table on purpose (the test runner's flush) needs `SET session_replication_role =
replica` first, which only a superuser may set (tests/conftest.py).
"""

from django.db import migrations, models

CREATE = """
CREATE OR REPLACE FUNCTION journal_auditentry_no_truncate() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only: TRUNCATE refused'
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER journal_auditentry_no_truncate
    BEFORE TRUNCATE ON journal_auditentry
    FOR EACH STATEMENT EXECUTE FUNCTION journal_auditentry_no_truncate();
"""

DROP = """
DROP TRIGGER IF EXISTS journal_auditentry_no_truncate ON journal_auditentry;
DROP FUNCTION IF EXISTS journal_auditentry_no_truncate();
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE, params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("journal", "0004_rehash_with_key")]

    operations = [
        migrations.AlterField(
            model_name="auditentry",
            name="seq",
            field=models.PositiveBigIntegerField(),
        ),
        migrations.AddConstraint(
            model_name="auditentry",
            constraint=models.UniqueConstraint(
                fields=("campaign", "seq"), name="log_seq_per_campaign"
            ),
        ),
        migrations.RunPython(forwards, backwards),
    ]
