"""Writes of the journal's own: opening a play session."""

from django.db import transaction

from campaign.models import Campaign
from journal.models import PlaySession


def session_start(*, campaign_id: int, user) -> PlaySession:
    """The GM opens a play session: the history groups what follows under it."""
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        return PlaySession.objects.create(campaign=campaign, started_by=user)
