"""The dashboard's parts as htmx sees them: what an action's panel shows and where it posts.

Templates lay these out; every decision (which action has a preview of its odds, which one a
grid of shares) is taken here.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse

from play.actions import CheckForm, ShareHourRestForm


@dataclass(frozen=True)
class ActionPanel:
    """An action's form, in a panel of the dashboard (htmx) or as a page of its own."""

    action: object  # play.actions.Action
    form: object
    character: object | None
    url: str
    cancel_url: str
    probability_url: str | None = None  # a test: its odds, updated as the form is typed in
    shares: list | None = None  # the hour rest's shares: (character, PV field, Flux field)


def action_panel(action, form, campaign, character) -> ActionPanel:
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
        probability_url=probability_url,
        shares=form.rows() if isinstance(form, ShareHourRestForm) else None,
    )
