"""Prove the characters' kept chart rows (journal/points.py) equal to a recomputation from the
log, for one campaign or every one; `--rebuild` replaces them with the recomputation (after a
bulk load or an archive import, which write entries without going through the audit
writer)."""

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from campaign.models import Campaign
from journal import points
from journal.models import ChartPoint


class Command(BaseCommand):
    help = (
        "Check that the characters' chart rows kept with the log equal a recomputation from "
        "the log (one campaign by id, or all); --rebuild replaces them with the recomputation."
    )

    def add_arguments(self, parser):
        parser.add_argument("campaign", nargs="?", type=int, help="campaign id (default: all)")
        parser.add_argument("--rebuild", action="store_true", help="rebuild from the log")

    def handle(self, *args, campaign=None, rebuild=False, **options):
        campaigns = Campaign.objects.order_by("pk")
        if campaign is not None:
            campaigns = campaigns.filter(pk=campaign)
            if not campaigns.exists():
                raise CommandError(f"no campaign {campaign}")
        different = []
        for found in campaigns:
            with transaction.atomic():
                # The campaign's lock: no action writes while the rows are read or replaced.
                found = Campaign.objects.select_for_update().get(pk=found.pk)
                if rebuild:
                    points.rebuild(found)
                    self.stdout.write(f"campaign {found.pk}: chart rows rebuilt from the log")
                    continue
                # Compared in the database on PostgreSQL (every column, the row's derived
                # value and moment too), in Python elsewhere.
                counts = points.differences(found)
                if counts is None:
                    kept, computed = points.kept(found), points.recompute(found)
                    counts = len(computed - kept), len(kept - computed)
                rows = ChartPoint.objects.filter(campaign_id=found.pk).count()
            if counts == (0, 0):
                self.stdout.write(f"campaign {found.pk}: chart rows equal the log's ({rows} rows)")
                continue
            different.append(found.pk)
            self.stderr.write(
                f"campaign {found.pk}: chart rows differ from the log ({counts[0]} missing, "
                f"{counts[1]} not in the log); `chart_points {found.pk} --rebuild` rebuilds them"
            )
        if different:
            raise CommandError(f"chart rows differ from the log for campaigns {different}")
