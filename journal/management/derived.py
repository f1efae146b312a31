"""A command that proves a summary kept with the log (the dice's tally, the chart rows) equal to
a recomputation from the log, for one campaign or every one; `--rebuild` replaces it with the
recomputation (after a bulk load or an archive import, which write entries without going
through the audit writer). Each command says how to rebuild and compare its summary."""

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from campaign.models import Campaign


class DerivedFromLogCommand(BaseCommand):
    # "dice tally", "chart rows": what the messages call the summary.
    what = ""
    differ = "differs"  # its verb: "the dice tally differs", "the chart rows differ"

    def rebuild(self, campaign: Campaign) -> None:
        raise NotImplementedError

    def compare(self, campaign: Campaign) -> tuple[str, str | None]:
        """Under the campaign's lock: the line that says it is equal, and None; or the line
        that says how it differs."""
        raise NotImplementedError

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
                # The campaign's lock: no action writes while the summary is read or replaced.
                found = Campaign.objects.select_for_update().get(pk=found.pk)
                if rebuild:
                    self.rebuild(found)
                    self.stdout.write(f"campaign {found.pk}: {self.what} rebuilt from the log")
                    continue
                equal, differs = self.compare(found)
            if differs is None:
                self.stdout.write(f"campaign {found.pk}: {equal}")
                continue
            different.append(found.pk)
            self.stderr.write(f"campaign {found.pk}: {differs}")
        if different:
            raise CommandError(f"{self.what} {self.differ} from the log for campaigns {different}")
