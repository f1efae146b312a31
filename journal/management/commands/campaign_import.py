"""Rebuild a campaign from a `campaign_export` archive, after verifying its log with this
instance's keys; a file that does not verify, or whose ids are taken here, is refused and
nothing is written (journal/archive.py)."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from journal.archive import ArchiveError, campaign_import, load


class Command(BaseCommand):
    help = (
        "Import a campaign archive written by campaign_export. The log must verify with this "
        "instance's audit log keys: an archive from another instance needs that instance's "
        "key in AUDIT_LOG_OLD_KEYS."
    )

    def add_arguments(self, parser):
        parser.add_argument("archive", help="the archive's path ('-' for the standard input)")
        parser.add_argument(
            "--seal",
            help="a seal (CHQ1-…) kept from this campaign: the archive's log must extend it",
        )

    def handle(self, *args, archive, seal=None, **options):
        try:
            if archive == "-":
                data = load(getattr(sys.stdin, "buffer", sys.stdin))
            else:
                path = Path(archive)
                if not path.is_file():
                    raise CommandError(f"No such file: {archive}.")
                with path.open("rb") as stream:
                    data = load(stream)
            campaign = campaign_import(data=data, held_seal=seal)
        except ArchiveError as error:
            raise CommandError(str(error)) from None
        count = campaign.log.count()
        seal = data.get("seal")
        self.stdout.write(
            f"campaign {campaign.pk} “{campaign.name}” imported: {count} entries, chain verified"
            + (f", up to its seal {seal}" if seal else "")
        )
