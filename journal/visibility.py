"""What a viewer may see of the audit log: decided here, once, for pages, fragments, live
streams and exports. Nothing else filters entries by viewer.

- A GM sees every entry of the campaign.
- A player sees entries marked for everyone, and of those:
  - every entry about their own characters, and every entry about no character (the clock,
    the scene, the group's hour rest);
  - about other characters, what the campaign's `party_visibility` makes public:
    BARS: every public entry; STATE: only the changes of vital state and conditions (no roll,
    no number); NOTHING: none.
"""

from django.db.models import Q, QuerySet

from campaign.models import Membership, PartyVisibility, Visibility
from journal.models import AuditEntry

STATE_FIELDS = ("vital", "conditions")


def sees_every_entry(membership: Membership) -> bool:
    return membership.is_gm


def visible_entries(membership: Membership) -> QuerySet[AuditEntry]:
    """The campaign's entries this member may see, newest first."""
    entries = AuditEntry.objects.filter(campaign_id=membership.campaign_id)
    if not sees_every_entry(membership):
        entries = entries.filter(player_filter(membership))
    return entries.order_by("-id")


def player_filter(membership: Membership) -> Q:
    public = Q(visibility=Visibility.EVERYONE)
    party = membership.campaign.party_visibility
    if party == PartyVisibility.BARS:
        return public
    own = Q(character__owner_id=membership.user_id) | Q(character__isnull=True)
    if party == PartyVisibility.STATE:
        return public & (own | Q(kind="change", field__in=STATE_FIELDS))
    return public & own
