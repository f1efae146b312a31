"""The dashboard's parts as htmx sees them: what an action's panel shows and where it posts,
and which parts of the page an answer may redraw.

Templates lay these out; every decision (which action has a preview of its odds, which one a
grid of shares, which page asked) is taken here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from django.urls import Resolver404, get_script_prefix, resolve, reverse

from play.actions import CheckForm, ShareHourRestForm

# An htmx request aimed at one of these ids (its HX-Target) is answered by that part alone.
PARTY_BAR, LOG = "party-bar", "roll-log"
SLOT_ID = re.compile(r"^(?:panel|result)-(?:\d+|party)$")


@dataclass(frozen=True)
class Slot:
    """Beside a card (or under the party bar): a panel for an action's form. Its id is
    stable, so htmx always finds it."""

    key: str  # a character's id, or "party"

    @property
    def panel_id(self) -> str:
        return f"panel-{self.key}"


PARTY = Slot("party")


def slot_for(character) -> Slot:
    return PARTY if character is None else Slot(str(character.pk))


@dataclass(frozen=True)
class ActionPanel:
    """An action's form, in a panel of the dashboard (htmx) or as a page of its own."""

    action: object  # play.actions.Action
    form: object
    character: object | None
    url: str
    cancel_url: str
    slot: Slot
    in_panel: bool
    probability_url: str | None = None  # a test: its odds, updated as the form is typed in
    shares: list | None = None  # the hour rest's shares: (character, PV field, Flux field)


def action_panel(action, form, campaign, character, *, in_panel: bool) -> ActionPanel:
    if character is None:
        url = reverse("party_action", args=[campaign.pk, action.name])
    else:
        url = reverse("character_action", args=[campaign.pk, character.pk, action.name])
    probability_url = None
    if isinstance(form, CheckForm) and character is not None:
        probability_url = reverse("check_probability", args=[campaign.pk, character.pk])
    return ActionPanel(
        action=action,
        form=form,
        character=character,
        url=url,
        cancel_url=reverse("campaign", args=[campaign.pk]),
        slot=slot_for(character),
        in_panel=in_panel,
        probability_url=probability_url,
        shares=form.rows() if isinstance(form, ShareHourRestForm) else None,
    )


@dataclass(frozen=True)
class PageParts:
    """The parts of the page an htmx request came from: an out-of-band swap whose target is
    not on the page is an htmx error, so an answer redraws only these."""

    party_bar: bool = False
    log: bool = False
    all_cards: bool = False
    cards: frozenset[int] = field(default_factory=frozenset)

    def shows_card(self, pk: int) -> bool:
        return self.all_cards or pk in self.cards


DASHBOARD = PageParts(party_bar=True, log=True, all_cards=True)


def page_parts(request, campaign_id: int) -> PageParts:
    """The GM's dashboard shows every part; a character's sheet shows that card alone."""
    path = urlsplit(request.htmx.current_url or "").path
    prefix = get_script_prefix()
    if path.startswith(prefix):
        path = "/" + path.removeprefix(prefix)
    try:
        match = resolve(path)
    except Resolver404:
        return PageParts()
    if match.kwargs.get("campaign_id") != campaign_id:
        return PageParts()
    if match.url_name == "campaign":
        return DASHBOARD
    if match.url_name == "character":
        return PageParts(cards=frozenset({match.kwargs["character_id"]}))
    return PageParts()
