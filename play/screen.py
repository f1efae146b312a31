"""The table screen: what a TV at the table shows, read as a viewer with no GM rights and no
character of their own (everyone at the table sees it).

- The party: the player characters in play, as the campaign's `party_visibility` lets a
  player see the rest of the party (names only; with the vital state; with the PV and Flux
  bars). NPCs are the GM's to reveal: they appear only in the fight's order, with their vital
  state when the campaign shows the party's.
- The values shown are those the table was told: a PV, Flux or vital state that a GM-only
  change moved is shown as it stood before that change, until an entry everyone sees says
  where it stands (`public_values`). The rolls themselves are never on the screen.
- The fight's round, order and whose turn it is, as the players' phones show them.
- The game clock and the scene (entries about no character: every player sees them).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from django.db.models import Q
from django.utils.translation import get_language

from campaign.models import Campaign, PartyVisibility, Visibility
from characters.models import Character, Kind
from journal.models import AuditEntry, EntryKind
from play.services.table import screen_token_digest
from rules import engine
from rules.engine import text as engine_text

PUBLIC_FIELDS = ("pv", "flux", "vital")


def campaign_for_token(campaign_id: int, token: str) -> Campaign | None:
    """The campaign whose table screen link this is, or None (none, revoked, replaced, wrong).
    The digests are compared in constant time."""
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None or not campaign.screen_token_hash:
        return None
    if not hmac.compare_digest(campaign.screen_token_hash, screen_token_digest(token)):
        return None
    return campaign


def public_values(campaign: Campaign, ids) -> dict[tuple[int, str], object]:
    """For each (character, field) of `PUBLIC_FIELDS` whose latest changes are GM-only: the
    value it had before the first of them (what the table last saw). Fields absent from the
    answer show their current value."""
    ids = list(ids)
    changes = AuditEntry.objects.filter(
        campaign=campaign, kind=EntryKind.CHANGE, character_id__in=ids, field__in=PUBLIC_FIELDS
    )
    hidden = list(
        changes.filter(visibility=Visibility.GM_ONLY)
        .order_by("id")
        .values_list("id", "character_id", "field", "before")
    )
    if not hidden:
        return {}
    last_public = {}
    for entry_id, character_id, field in (
        changes.exclude(visibility=Visibility.GM_ONLY)
        .order_by("id")
        .values_list("id", "character_id", "field")
    ):
        last_public[(character_id, field)] = entry_id
    values = {}
    for entry_id, character_id, field, before in hidden:
        key = (character_id, field)
        if entry_id > last_public.get(key, 0) and key not in values:
            values[key] = before
    return values


@dataclass(frozen=True)
class ScreenCharacter:
    pk: int
    name: str
    kind: str
    vital: str  # the value, "" when the campaign does not show it
    vital_text: str
    down: str  # "", or why the character is down: the vital state, or "pv" at 0 PV or less
    pv: int | None  # None: the bars are not shown
    pv_max: int
    flux: int | None
    flux_max: int

    @property
    def pv_percent(self) -> int:
        return Character.percent(self.pv or 0, self.pv_max)

    @property
    def flux_percent(self) -> int:
        return Character.percent(self.flux or 0, self.flux_max)


@dataclass(frozen=True)
class ScreenFight:
    round: int
    order: list[ScreenCharacter]
    current: int  # the pk whose turn it is


@dataclass(frozen=True)
class Screen:
    campaign: Campaign
    party: list[ScreenCharacter]
    fight: ScreenFight | None
    shows_state: bool
    shows_bars: bool


def screen_for(campaign: Campaign) -> Screen:
    lang = 1 if get_language() == "en" else 0
    shown = campaign.party_visibility
    shows_state = shown in (PartyVisibility.STATE, PartyVisibility.BARS)
    shows_bars = shown == PartyVisibility.BARS
    order = [int(key) for key in campaign.fight["order"]] if campaign.fight else []
    rows = list(
        Character.objects.filter(campaign=campaign)
        .filter(Q(pk__in=order) | Q(kind=Kind.PC, in_play=True))
        .order_by("name", "pk")
    )
    told = public_values(campaign, [row.pk for row in rows])

    def seen(row: Character, bars: bool) -> ScreenCharacter:
        pv = told.get((row.pk, "pv"), row.pv)
        flux = told.get((row.pk, "flux"), row.flux)
        vital = engine.Vital(told.get((row.pk, "vital"), row.vital))
        down = ""
        if shows_state and vital != engine.Vital.UP:
            down = vital.value
        elif bars and pv <= 0:
            down = "pv"
        return ScreenCharacter(
            pk=row.pk,
            name=row.name,
            kind=row.kind,
            vital=vital.value if shows_state else "",
            vital_text=engine_text.VITAL_TEXT[vital][lang] if shows_state else "",
            down=down,
            pv=pv if bars else None,
            pv_max=row.pv_max,
            flux=flux if bars else None,
            flux_max=row.flux_max,
        )

    party = [seen(row, shows_bars) for row in rows if row.kind == Kind.PC and row.in_play]
    fight = None
    if campaign.fight:
        by_pk = {row.pk: row for row in rows}
        fight = ScreenFight(
            round=int(campaign.fight["round"]),
            order=[
                seen(by_pk[pk], shows_bars and by_pk[pk].kind == Kind.PC)
                for pk in order
                if pk in by_pk
            ],
            current=order[int(campaign.fight["turn"])],
        )
    return Screen(campaign, party, fight, shows_state, shows_bars)
