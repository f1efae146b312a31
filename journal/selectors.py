"""Reads for the campaign history: filters, keyset pages, play sessions and game days.

Every query starts from `journal.visibility.visible_entries`: what a viewer may see is
decided there, once, for pages, fragments and exports alike. Pages are keyset pages on the
entry id (`before` / `after`), never OFFSET, so a page costs the same at the first entry and
at the millionth, and entries added meanwhile never shift the pages already seen.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta

from django import forms
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from campaign.models import Membership, PartyVisibility
from journal.lines import batches, with_genders
from journal.models import AuditEntry, EntryKind, PlaySession
from journal.visibility import SEALED, visible_entries
from rules.engine.text import game_day

PAGE_SIZE = 50
NO_ACTOR = "none"  # the filter's value for entries the clock wrote


class HistoryFilterForm(forms.Form):
    """The history's filters; they combine, and live in the URL (a GET form)."""

    character = forms.TypedChoiceField(label=_("Character"), required=False, coerce=int)
    kind = forms.ChoiceField(
        label=_("Kind"),
        required=False,
        choices=[("", _("Rolls and changes")), *EntryKind.choices],
    )
    rule = forms.RegexField(
        label=_("Rule"),
        required=False,
        max_length=8,
        regex=r"^[Rr]\d{1,3}$",
        error_messages={"invalid": _("A rule id is R followed by its number, such as R10.")},
    )
    actor = forms.ChoiceField(label=_("Who"), required=False)
    since = forms.DateField(
        label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    # Keyset cursors: entries older than `before`, or newer than `after` (entry ids).
    before = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
    after = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)

    FILTERS = ("character", "kind", "rule", "actor", "since", "until")

    def __init__(self, data, *, membership: Membership):
        super().__init__(data)
        self.membership = membership
        campaign = membership.campaign
        characters = campaign.characters.order_by("kind", "name", "pk")
        if not membership.is_gm and campaign.party_visibility == PartyVisibility.NOTHING:
            # NPCs and other players' characters show nothing here: no need to list them.
            characters = characters.filter(owner_id=membership.user_id)
        elif not membership.is_gm:
            characters = characters.filter(Q(kind="pc") | Q(owner_id=membership.user_id))
        self.fields["character"].choices = [("", _("All characters"))] + [
            (c.pk, c.name) for c in characters
        ]
        members = campaign.memberships.select_related("user").order_by("user__username")
        self.fields["actor"].choices = [
            ("", _("Anyone")),
            (NO_ACTOR, _("The clock and the rules")),
        ] + [(str(m.user_id), m.user.username) for m in members]

    def clean(self):
        cleaned = super().clean()
        since, until = cleaned.get("since"), cleaned.get("until")
        if since and until and since > until:
            raise forms.ValidationError(_("The start date is after the end date."))
        if cleaned.get("before") is not None and cleaned.get("after") is not None:
            raise forms.ValidationError(_("Ask for older or for newer entries, not both."))
        return cleaned

    def filter_query(self) -> dict[str, str]:
        """The filters as URL parameters (without the page cursors), for links."""
        return {
            name: self.data[name] for name in self.FILTERS if self.data.get(name) not in (None, "")
        }


def _day_start(day) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def filtered_entries(membership: Membership, filters: dict) -> QuerySet[AuditEntry]:
    """The entries the viewer may see, narrowed by the form's cleaned filters, newest first."""
    entries = visible_entries(membership)
    if filters.get("character"):
        entries = entries.filter(character_id=filters["character"])
    if filters.get("kind"):
        entries = entries.filter(kind=filters["kind"])
    if filters.get("rule"):
        entries = entries.filter(rule_id=filters["rule"].upper())
    actor = filters.get("actor")
    if actor == NO_ACTOR:
        entries = entries.filter(actor__isnull=True)
    elif actor:
        entries = entries.filter(actor_id=int(actor))
    if filters.get("since"):
        entries = entries.filter(created_at__gte=_day_start(filters["since"]))
    if filters.get("until"):
        entries = entries.filter(created_at__lt=_day_start(filters["until"] + timedelta(days=1)))
    return entries


@dataclass
class Page:
    entries: list[AuditEntry]
    older: int | None  # the `before` cursor of the next older page, None at the oldest
    newer: int | None  # the `after` cursor of the next newer page, None at the newest


def keyset_page(
    entries: QuerySet[AuditEntry],
    *,
    before: int | None = None,
    after: int | None = None,
    size: int = PAGE_SIZE,
) -> Page:
    """One page, newest first: the `size` entries below `before`, or just above `after`.

    `after=0` is the oldest page. Each bound is an index range on (campaign, id).
    """
    if after is not None:
        rows = list(entries.filter(id__gt=after).order_by("id")[: size + 1])
        more_newer = len(rows) > size
        rows = rows[:size][::-1]
        more_older = bool(rows) and entries.filter(id__lt=rows[-1].pk).exists()
    else:
        below = entries if before is None else entries.filter(id__lt=before)
        rows = list(below.order_by("-id")[: size + 1])
        more_older = len(rows) > size
        rows = rows[:size]
        more_newer = before is not None and entries.filter(id__gte=before).exists()
    return Page(
        rows,
        older=rows[-1].pk if rows and more_older else None,
        newer=(rows[0].pk if rows else (before or 0) - 1) if more_newer else None,
    )


def day_of(moment: datetime | None) -> int | None:
    return None if moment is None else game_day(moment)


@dataclass
class DayGroup:
    day: int | None
    entries: list[AuditEntry] = field(default_factory=list)

    @property
    def actions(self):
        """The day's entries one line per action (journal/lines.py)."""
        return batches(self.entries)


@dataclass
class SessionGroup:
    session: PlaySession | None  # None: entries from before the first session
    days: list[DayGroup] = field(default_factory=list)


def latest_session(campaign_id: int) -> PlaySession | None:
    """The campaign's latest play session, if it has had one."""
    return PlaySession.objects.filter(campaign_id=campaign_id).first()


def sessions_covering(campaign_id: int, entries: list[AuditEntry]) -> list[PlaySession]:
    """The play sessions the entries fall in, latest first (two small indexed queries)."""
    if not entries:
        return []
    lo = min(e.created_at for e in entries)
    hi = max(e.created_at for e in entries)
    sessions = PlaySession.objects.filter(campaign_id=campaign_id).select_related("started_by")
    inside = list(sessions.filter(started_at__gt=lo, started_at__lte=hi).order_by("-started_at"))
    first = sessions.filter(started_at__lte=lo).order_by("-started_at", "-pk").first()
    return inside + ([first] if first is not None else [])


def group_entries(campaign_id: int, entries: list[AuditEntry]) -> list[SessionGroup]:
    """Entries (newest first) grouped by play session, then by game day."""
    sessions = sessions_covering(campaign_id, with_genders(entries))
    groups: list[SessionGroup] = []
    index = 0
    for entry in entries:
        while index < len(sessions) and sessions[index].started_at > entry.created_at:
            index += 1
        session = sessions[index] if index < len(sessions) else None
        if not groups or groups[-1].session != session:
            groups.append(SessionGroup(session))
        days = groups[-1].days
        day = day_of(entry.game_time)
        if not days or days[-1].day != day:
            days.append(DayGroup(day))
        days[-1].entries.append(entry)
    return groups


def batch_sizes(entries: list[AuditEntry], undone: Iterable[int] = ()) -> dict:
    """How many changes that still stand each batch on the page holds (the GM may undo a
    whole action: what was undone already is not undone twice)."""
    batches = {e.batch for e in entries if e.kind == EntryKind.CHANGE}
    if not batches:
        return {}
    undone = set(undone)
    rows = AuditEntry.objects.filter(batch__in=batches, kind=EntryKind.CHANGE).values_list(
        "batch", "pk"
    )
    sizes: dict = {}
    for batch, pk in rows:
        if pk not in undone:
            sizes[batch] = sizes.get(batch, 0) + 1
    return sizes


def session_entries(membership: Membership, session: PlaySession) -> QuerySet[AuditEntry]:
    """The entries of one play session the viewer may see, oldest first."""
    entries = visible_entries(membership).filter(created_at__gte=session.started_at)
    following = (
        PlaySession.objects.filter(
            campaign_id=session.campaign_id, started_at__gt=session.started_at
        )
        .order_by("started_at")
        .values_list("started_at", flat=True)
        .first()
    )
    if following is not None:
        entries = entries.filter(created_at__lt=following)
    return entries.order_by("id")


SEALED_SHOWN = 10  # a sheet's latest sealed rolls


def sealed_rolls(membership: Membership, character_id: int, limit: int = SEALED_SHOWN):
    """The character's latest sealed rolls this member may see, newest first, each with its
    `seal_view` (sealed, or revealed with what checks it): journal/sealing.py."""
    return list(visible_entries(membership).filter(SEALED, character_id=character_id)[:limit])
