"""What a viewer may see of the audit log: decided here, once, for pages, streams and exports."""

from campaign.models import AuditEntry, Campaign, Visibility


def visible_entries(campaign: Campaign, *, is_gm: bool):
    entries = AuditEntry.objects.filter(campaign=campaign)
    if not is_gm:
        entries = entries.filter(visibility=Visibility.EVERYONE)
    return entries.order_by("-id")
