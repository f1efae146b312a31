"""Prove the characters' kept chart rows and their hours summed up (journal/points.py) equal
to a recomputation from the log, for one campaign or every one; `--rebuild` replaces them
with the recomputation (after a bulk load or an archive import, which write entries without
going through the audit writer)."""

from journal import points
from journal.management.derived import DerivedFromLogCommand
from journal.models import ChartHour, ChartPoint


class Command(DerivedFromLogCommand):
    help = (
        "Check that the characters' chart rows kept with the log equal a recomputation from "
        "the log (one campaign by id, or all); --rebuild replaces them with the recomputation."
    )
    what, differ = "chart rows", "differ"

    def rebuild(self, campaign):
        points.rebuild(campaign)

    def compare(self, campaign):
        # Compared in the database on PostgreSQL (every column, the row's derived value and
        # moment too), in Python elsewhere.
        counts = points.differences(campaign)
        if counts is None:
            kept, computed = points.kept(campaign), points.recompute(campaign)
            counts = len(computed - kept), len(kept - computed)
        # The hours summed up: against the log's changes summed by hour.
        hours = points.hour_differences(campaign)
        if hours is None:
            kept, computed = points.kept_hours(campaign), points.recompute_hours(campaign)
            hours = len(computed - kept), len(kept - computed)
        if counts == (0, 0) and hours == (0, 0):
            rows = ChartPoint.objects.filter(campaign_id=campaign.pk).count()
            summed = ChartHour.objects.filter(campaign_id=campaign.pk).count()
            return f"chart rows equal the log's ({rows} rows, {summed} hours)", None
        return "", (
            f"chart rows differ from the log ({counts[0]} missing, {counts[1]} not in the log; "
            f"hours: {hours[0]} missing, {hours[1]} not in the log); "
            f"`chart_points {campaign.pk} --rebuild` rebuilds them"
        )
