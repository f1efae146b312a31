import django.db.models.deletion
import django.utils.timezone
from datetime import timedelta

from django.conf import settings
from django.db import migrations, models

GAP = timedelta(hours=4)


def open_sessions_for_past_entries(apps, schema_editor):
    """Existing logs get the sessions their pauses imply (SESSION_GAP, campaign/models.py)."""
    AuditEntry = apps.get_model("campaign", "AuditEntry")
    PlaySession = apps.get_model("campaign", "PlaySession")
    campaign_ids = AuditEntry.objects.values_list("campaign_id", flat=True).distinct()
    for campaign_id in campaign_ids:
        last = None
        starts = []
        times = (
            AuditEntry.objects.filter(campaign_id=campaign_id)
            .order_by("id")
            .values_list("created_at", flat=True)
        )
        for created_at in times.iterator(chunk_size=5000):
            if last is None or created_at - last > GAP:
                starts.append(created_at)
            last = created_at
        PlaySession.objects.bulk_create(
            PlaySession(campaign_id=campaign_id, started_at=start) for start in starts
        )


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0003_audit_log_append_only_trigger"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="PlaySession",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("started_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "campaign",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="sessions",
                        to="campaign.campaign",
                    ),
                ),
                (
                    "started_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "play session",
                "verbose_name_plural": "play sessions",
                "ordering": ["-started_at", "-pk"],
                "indexes": [
                    models.Index(fields=["campaign", "-started_at"], name="session_by_campaign")
                ],
            },
        ),
        # Keyset pages of the history filtered by character or by kind (campaign/history.py).
        migrations.AddIndex(
            model_name="auditentry",
            index=models.Index(fields=["character", "-id"], name="log_by_character"),
        ),
        migrations.AddIndex(
            model_name="auditentry",
            index=models.Index(fields=["campaign", "kind", "-id"], name="log_by_kind"),
        ),
        migrations.RunPython(open_sessions_for_past_entries, migrations.RunPython.noop),
    ]
