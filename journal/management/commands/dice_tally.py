"""Prove the dice's kept tally (journal/tally.py) equal to a recomputation from the log, for
one campaign or every one; `--rebuild` replaces it with the recomputation (after a bulk load
or an archive import, which write entries without going through the audit writer)."""

from journal import tally
from journal.management.derived import DerivedFromLogCommand


class Command(DerivedFromLogCommand):
    help = (
        "Check that the dice statistics kept with the log equal a recomputation from the log "
        "(one campaign by id, or all); --rebuild replaces them with the recomputation."
    )
    what = "dice tally"

    def rebuild(self, campaign):
        tally.rebuild(campaign)

    def compare(self, campaign):
        kept, computed = tally.kept(campaign), tally.as_rows(tally.recompute(campaign))
        if kept == computed:
            return f"dice tally equals the log's ({len(kept)} rows)", None
        keys = sorted(set(kept) ^ set(computed) | {k for k in kept if kept[k] != computed.get(k)})
        return "", (
            f"dice tally differs from the log in {len(keys)} rows (first: {keys[0]}); "
            f"`dice_tally {campaign.pk} --rebuild` rebuilds it"
        )
