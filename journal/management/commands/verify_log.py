"""Prove that no audit entry was altered, removed or inserted behind the app's back, and with
`--seal` that today's log extends a seal kept from before (nothing deleted from its end)."""

from django.core.management.base import BaseCommand, CommandError

from campaign.models import Campaign
from journal.audit import BadSeal, ChainProblem, Seal, check_seal, walk_chain_parallel

SEAL_PROBLEMS = {
    "other_campaign": "the seal is another campaign's",
    "missing": "entry {entry} (seq {count}), the seal's last entry, is no longer in the log "
    "(the end of the log was deleted)",
    "changed": "entry {entry} is no longer the entry sealed (seq {count}, hash {prefix}…): "
    "the log was rewritten",
}


def describe(problem: ChainProblem) -> str:
    return f"entry {problem.entry_id} (seq {problem.seq}) is the first broken one: {problem.reason}"


class Command(BaseCommand):
    help = (
        "Check the audit log's keyed hash chain of one campaign (by id) or of every campaign; "
        "with --seal, also prove that the log extends that seal."
    )

    def add_arguments(self, parser):
        parser.add_argument("campaign", nargs="?", type=int, help="campaign id (default: all)")
        parser.add_argument(
            "--seal",
            help="a seal kept from an export, a recap or the history page "
            "(CHQ1-<campaign>-<entry>-<count>-<hash>); its campaign is checked",
        )

    def handle(self, *args, campaign=None, seal=None, **options):
        if seal is not None:
            try:
                seal = Seal.parse(seal)
            except BadSeal:
                raise CommandError(
                    f"Not a seal: {seal!r} (expected CHQ1-<campaign>-<entry>-<count>-<hash>)."
                ) from None
            if campaign is not None and campaign != seal.campaign_id:
                raise CommandError(f"The seal is campaign {seal.campaign_id}'s, not {campaign}'s.")
            campaign = seal.campaign_id
        campaigns = Campaign.objects.order_by("pk")
        if campaign is not None:
            campaigns = campaigns.filter(pk=campaign)
            if not campaigns.exists():
                raise CommandError(f"No campaign with id {campaign}.")
        broken = []
        for item in campaigns:
            name = f"campaign {item.pk} “{item.name}”"
            if seal is not None:
                if not self._check_seal(item, name, seal):
                    broken.append(item.pk)
                continue
            walk = walk_chain_parallel(item.pk)
            if walk.problem is None:
                self.stdout.write(f"{name}: {walk.count} entries, chain intact")
            else:
                broken.append(item.pk)
                self.stdout.write(f"{name}: {describe(walk.problem)}")
        if broken:
            raise CommandError(f"Audit log altered in campaign(s) {', '.join(map(str, broken))}.")

    def _check_seal(self, item, name, seal) -> bool:
        check = check_seal(item.pk, seal, full=True)
        if check.problem is None:
            self.stdout.write(
                f"{name}: {check.current.count} entries, chain intact, extends seal {seal} "
                f"(now {check.current})"
            )
            return True
        if check.problem == "broken":
            self.stdout.write(f"{name}: {describe(check.chain)}")
        else:
            reason = SEAL_PROBLEMS[check.problem].format(
                entry=seal.entry_id, count=seal.count, prefix=seal.prefix
            )
            self.stdout.write(f"{name}: does not extend seal {seal}: {reason}")
        return False
