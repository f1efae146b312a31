"""What a viewer may see of the audit log: decided here, once, for pages, fragments, live
streams and exports. Nothing else filters entries by viewer.

- A GM sees every entry of the campaign.
- A player sees entries marked for everyone, and of those (a player's proposals to the GM,
  whatever the campaign's `party_visibility`, only those about their own characters):
  - every entry about their own characters, and every entry about no character (the clock,
    the scene, the group's hour rest);
  - about other characters, what the campaign's `party_visibility` makes public:
    BARS: every public entry; STATE: only the changes of vital state and conditions (no roll,
    no number); NOTHING: none.
"""

from typing import NamedTuple

from django.db.models import Q, QuerySet

from campaign.models import Membership, PartyVisibility, Visibility
from journal.models import AuditEntry
from journal.texts import PROPOSAL_FIELD

STATE_FIELDS = ("vital", "conditions")


def sees_every_entry(membership: Membership) -> bool:
    return membership.is_gm


def visible_entries(membership: Membership) -> QuerySet[AuditEntry]:
    """The campaign's entries this member may see, newest first."""
    entries = AuditEntry.objects.filter(campaign_id=membership.campaign_id)
    if not sees_every_entry(membership):
        entries = entries.filter(player_filter(membership))
    return entries.order_by("-id")


class EntryFacts(NamedTuple):
    """What `sees_entry` reads of an entry: its columns, and its character's owner."""

    id: int
    batch: object
    visibility: str
    character_id: int | None
    owner_id: int | None
    kind: str
    field: str


def entry_facts(entries: QuerySet[AuditEntry]) -> list[EntryFacts]:
    """`entries` as the facts `sees_entry` needs, in one query."""
    rows = entries.values_list(
        "id", "batch", "visibility", "character_id", "character__owner_id", "kind", "field"
    )
    return [EntryFacts(*row) for row in rows]


def sees_entry(membership: Membership, entry: EntryFacts) -> bool:
    """The rule of `visible_entries` for one entry already read, in Python: a live stream
    reads a batch once for every viewer of the campaign, then decides for each. It must agree
    with `player_filter` (tests/journal/test_visibility.py holds them side by side)."""
    if sees_every_entry(membership):
        return True
    if entry.visibility != Visibility.EVERYONE:
        return False
    own = entry.character_id is None or (
        entry.owner_id is not None and entry.owner_id == membership.user_id
    )
    if entry.field == PROPOSAL_FIELD:
        return own
    party = membership.campaign.party_visibility
    if party == PartyVisibility.BARS:
        return True
    if party == PartyVisibility.STATE:
        return own or (entry.kind == "change" and entry.field in STATE_FIELDS)
    return own


def player_filter(membership: Membership) -> Q:
    public = Q(visibility=Visibility.EVERYONE) & (
        ~Q(field=PROPOSAL_FIELD) | Q(character__owner_id=membership.user_id)
    )
    party = membership.campaign.party_visibility
    if party == PartyVisibility.BARS:
        return public
    own = Q(character__owner_id=membership.user_id) | Q(character__isnull=True)
    if party == PartyVisibility.STATE:
        return public & (own | Q(kind="change", field__in=STATE_FIELDS))
    return public & own
