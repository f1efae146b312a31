"""What a viewer may see of the audit log: decided here, once, for pages, fragments, live
streams and exports. Nothing else filters entries by viewer.

- A GM sees every entry of the campaign.
- A player sees entries marked for everyone and the GM's sealed rolls (GM-only rolls, shown
  sealed: what they were for and a commitment, never the result, until the GM reveals them;
  journal/sealing.py), and the GM-only requests for a roll (R34) made of their own characters:
  a request's entries follow its roll's visibility, but the player asked must be told (what
  test, and at which difficulty), and of those (a player's proposals to the GM, whatever the
  campaign's `party_visibility`, only those about their own characters):
  - every entry about their own characters, and every entry about no character (the clock,
    the scene, the group's hour rest); the entry that took a character from a player counts
    as about her own character for her (its `before` names her), so that her pages learn she
    no longer plays it, whatever the campaign shows of others' characters;
  - about other characters, what the campaign's `party_visibility` makes public:
    BARS: every public entry; STATE: only the changes of vital state and conditions (no roll,
    no number); NOTHING: none.
"""

from typing import NamedTuple

from django.db.models import Q, QuerySet
from django.db.models.query import ModelIterable

from campaign.models import Membership, PartyVisibility, Visibility
from journal import sealing
from journal.models import AuditEntry, EntryKind
from journal.texts import PROPOSAL_FIELD, REQUEST_FIELD

STATE_FIELDS = ("vital", "conditions")
OWNER_FIELD = "owner"  # a character's player changed: `before` and `after` are user ids


def sees_every_entry(membership: Membership) -> bool:
    return membership.is_gm


def visible_entries(membership: Membership) -> QuerySet[AuditEntry]:
    """The campaign's entries this member may see, newest first.

    Every entry read from it (or from any queryset made from it by filtering, slicing,
    ordering, `.iterator()`) comes shown as this member may see it (`shown`): a sealed roll
    carries its `seal_view`, and for a player before the reveal nothing of its result. Reading
    columns with `.values()` bypasses that: read only what a player may know that way (ids,
    batches, characters, `entry_facts`).
    """
    entries = AuditEntry.objects.filter(campaign_id=membership.campaign_id)
    if not sees_every_entry(membership):
        entries = entries.filter(player_filter(membership))
    entries = entries.order_by("-id")
    entries._viewer = membership
    entries._iterable_class = _ShownIterable
    return entries


class _ShownIterable(ModelIterable):
    """Model instances of `visible_entries`, each through `shown` for the queryset's viewer;
    the campaign's reveals are read once, at the first sealed roll or reveal met."""

    def __iter__(self):
        viewer = self.queryset._viewer
        reveals = None
        for entry in super().__iter__():
            if viewer is not None and entry.kind == EntryKind.ROLL:
                if reveals is None and (entry.visibility == Visibility.GM_ONLY or entry.field):
                    reveals = sealing.reveals_by_roll(entry.campaign_id)
                sealing.present(entry, sees_all=sees_every_entry(viewer), reveals=reveals or {})
            yield entry


def shown(membership: Membership, entries) -> list[AuditEntry]:
    """Entries read some other way (already model instances), as `membership` may see them:
    what `visible_entries` does to what it reads. The caller has checked that the member may
    see each entry at all (`sees_entry`)."""
    entries = list(entries)
    reveals = None
    for entry in entries:
        if entry.kind == EntryKind.ROLL:
            if reveals is None:
                reveals = sealing.reveals_by_roll(entry.campaign_id)
            sealing.present(entry, sees_all=sees_every_entry(membership), reveals=reveals)
    return entries


class EntryFacts(NamedTuple):
    """What `sees_entry` reads of an entry: its columns, and its character's owner."""

    id: int
    batch: object
    visibility: str
    character_id: int | None
    owner_id: int | None
    kind: str
    field: str
    # A sealed roll's commitment (journal/sealing.py), which players are told of; else None.
    commitment: str | None = None
    # An owner change's former owner (its `before`), who is told of it; else None.
    former_owner_id: int | None = None


def entry_facts(entries: QuerySet[AuditEntry]) -> list[EntryFacts]:
    """`entries` as the facts `sees_entry` needs, in one query."""
    rows = entries.values_list(
        "id",
        "batch",
        "visibility",
        "character_id",
        "character__owner_id",
        "kind",
        "field",
        "roll__seal__commitment",
        "before",
    )
    return [EntryFacts(*row[:-1], former_owner(row[6], row[-1])) for row in rows]


def former_owner(field: str, before) -> int | None:
    """The user an owner change took the character from (its `before`), else None."""
    return before if field == OWNER_FIELD and isinstance(before, int) else None


def is_sealed(entry: EntryFacts) -> bool:
    """A GM-only roll a player sees sealed (one with a commitment: journal/sealing.py)."""
    return (
        entry.visibility == Visibility.GM_ONLY
        and entry.kind == EntryKind.ROLL
        and bool(entry.commitment)
    )


def sees_entry(membership: Membership, entry: EntryFacts) -> bool:
    """The rule of `visible_entries` for one entry already read, in Python: a live stream
    reads a batch once for every viewer of the campaign, then decides for each. It must agree
    with `player_filter` (tests/journal/test_visibility.py holds them side by side)."""
    if sees_every_entry(membership):
        return True
    own = (
        entry.character_id is None
        or (entry.owner_id is not None and entry.owner_id == membership.user_id)
        or entry.former_owner_id == membership.user_id
    )
    asked_of_them = entry.field == REQUEST_FIELD and entry.character_id is not None and own
    if entry.visibility != Visibility.EVERYONE and not is_sealed(entry) and not asked_of_them:
        return False
    if entry.field == PROPOSAL_FIELD:
        return own
    party = membership.campaign.party_visibility
    if party == PartyVisibility.BARS:
        return True
    if party == PartyVisibility.STATE:
        return own or (entry.kind == "change" and entry.field in STATE_FIELDS)
    return own


# A GM-only roll written with a seal (rolls from before sealed rolls existed have none).
SEALED = Q(visibility=Visibility.GM_ONLY, kind=EntryKind.ROLL, roll__seal__has_key="commitment")


def player_filter(membership: Membership) -> Q:
    public = (Q(visibility=Visibility.EVERYONE) | SEALED) & (
        ~Q(field=PROPOSAL_FIELD) | Q(character__owner_id=membership.user_id)
    )
    # A GM-only request (R34) is told to the player asked, and to nobody else.
    public |= Q(field=REQUEST_FIELD, character__owner_id=membership.user_id)
    party = membership.campaign.party_visibility
    if party == PartyVisibility.BARS:
        return public
    own = (
        Q(character__owner_id=membership.user_id)
        | Q(character__isnull=True)
        | Q(field=OWNER_FIELD, before=membership.user_id)
    )
    if party == PartyVisibility.STATE:
        return public & (own | Q(kind="change", field__in=STATE_FIELDS))
    return public & own


def readable_results(membership: Membership, entries: QuerySet[AuditEntry]) -> QuerySet[AuditEntry]:
    """Of `entries` (from `visible_entries`), the rolls whose result this member may read: a
    sealed roll counts for a player only once the GM has revealed it (journal/sealing.py).
    Statistics read the results with `.values()`, so they must drop the others here."""
    if sees_every_entry(membership):
        return entries
    revealed = list(sealing.reveals_by_roll(membership.campaign_id))
    return entries.exclude(Q(visibility=Visibility.GM_ONLY) & ~Q(id__in=revealed))
