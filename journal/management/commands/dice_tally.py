"""Prove the dice's kept tally (journal/tally.py) equal to a recomputation from the log, for
one campaign or every one; `--rebuild` replaces it with the recomputation (after a bulk load
or an archive import, which write entries without going through the audit writer)."""

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from campaign.models import Campaign
from journal import tally


class Command(BaseCommand):
    help = (
        "Check that the dice statistics kept with the log equal a recomputation from the log "
        "(one campaign by id, or all); --rebuild replaces them with the recomputation."
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
                # The campaign's lock: no action writes while the tally is read or replaced.
                found = Campaign.objects.select_for_update().get(pk=found.pk)
                if rebuild:
                    tally.rebuild(found)
                    self.stdout.write(f"campaign {found.pk}: dice tally rebuilt from the log")
                    continue
                kept, computed = tally.kept(found), tally.as_rows(tally.recompute(found))
            if kept == computed:
                self.stdout.write(
                    f"campaign {found.pk}: dice tally equals the log's ({len(kept)} rows)"
                )
                continue
            keys = sorted(
                set(kept) ^ set(computed) | {k for k in kept if kept[k] != computed.get(k)}
            )
            different.append(found.pk)
            self.stderr.write(
                f"campaign {found.pk}: dice tally differs from the log in {len(keys)} rows "
                f"(first: {keys[0]}); `dice_tally {found.pk} --rebuild` rebuilds it"
            )
        if different:
            raise CommandError(f"dice tally differs from the log for campaigns {different}")
