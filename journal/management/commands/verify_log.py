"""Prove that no audit entry was altered, removed or inserted behind the app's back."""

from django.core.management.base import BaseCommand, CommandError

from campaign.models import Campaign
from journal.audit import verify_chain


class Command(BaseCommand):
    help = "Check the audit log's hash chain of one campaign (by id) or of every campaign."

    def add_arguments(self, parser):
        parser.add_argument("campaign", nargs="?", type=int, help="campaign id (default: all)")

    def handle(self, *args, campaign=None, **options):
        campaigns = Campaign.objects.order_by("pk")
        if campaign is not None:
            campaigns = campaigns.filter(pk=campaign)
            if not campaigns.exists():
                raise CommandError(f"No campaign with id {campaign}.")
        broken = []
        for item in campaigns:
            problem = verify_chain(item)
            count = item.log.count()
            if problem is None:
                self.stdout.write(
                    f"campaign {item.pk} “{item.name}”: {count} entries, chain intact"
                )
            else:
                broken.append(item.pk)
                self.stdout.write(
                    f"campaign {item.pk} “{item.name}”: entry {problem.entry_id} is the first "
                    f"broken one: {problem.reason}"
                )
        if broken:
            raise CommandError(f"Audit log altered in campaign(s) {', '.join(map(str, broken))}.")
