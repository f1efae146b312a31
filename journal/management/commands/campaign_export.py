"""Write a whole campaign to one JSON file: settings, members, characters, the full log and
its seal (journal/archive.py). `campaign_import` rebuilds it in another instance."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from campaign.models import Campaign
from journal.archive import archive_chunks


class Command(BaseCommand):
    help = "Write a campaign (settings, members, characters, full audit log) to a JSON file."

    def add_arguments(self, parser):
        parser.add_argument("campaign", type=int, help="campaign id")
        parser.add_argument(
            "-o",
            "--output",
            help="file to write (default: campaign-<id>.json; '-' for the standard output)",
        )

    def handle(self, *args, campaign, output=None, **options):
        found = Campaign.objects.filter(pk=campaign).first()
        if found is None:
            raise CommandError(f"No campaign with id {campaign}.")
        if output == "-":
            for chunk in archive_chunks(campaign):
                self.stdout.write(chunk, ending="")
            return
        path = Path(output or f"campaign-{campaign}.json")
        partial = path.with_name(path.name + ".part")
        with partial.open("w", encoding="utf-8") as out:
            for chunk in archive_chunks(campaign):
                out.write(chunk)
        partial.replace(path)  # never a half-written archive under the final name
        count = found.log.count()
        self.stdout.write(f"campaign {campaign} “{found.name}”: {count} entries written to {path}")
