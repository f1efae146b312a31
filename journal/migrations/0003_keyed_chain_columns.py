"""The keyed chain's columns: `seq` (1, 2, 3… per campaign), `key_id` (which key signed the
entry) and `steps` (the rule steps the action showed). 0004 fills them and rehashes."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("journal", "0002_append_only_trigger")]

    operations = [
        migrations.AddField(
            model_name="auditentry",
            name="steps",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="auditentry",
            name="seq",
            field=models.PositiveBigIntegerField(null=True),
        ),
        migrations.AddField(
            model_name="auditentry",
            name="key_id",
            field=models.CharField(default="", max_length=16),
            preserve_default=False,
        ),
    ]
