"""Players propose, the GM approves (play/proposals.py): the player's form on their sheet,
and the GM's approve, edit-then-approve and refuse on the dashboard's list.

A player proposes only for their own character (403 to other members, 404 to outsiders),
and may withdraw what they proposed while it waits; only the GM decides. Bad input and the
rules' refusals come back in place with a 400.
"""

from __future__ import annotations

import dataclasses

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import reswap, retarget

from campaign.models import Campaign
from campaign.permissions import get_gm_membership, get_membership
from journal.texts import explanation, rule_message
from play import parts, player, selectors, views
from play.actions import ACTIONS
from play.models import Proposal
from play.proposals import (
    ProposalClosed,
    ProposalForm,
    closed_message,
    gm_form_data,
    proposal_approve,
    proposal_make,
    proposal_refuse,
    proposal_withdraw,
)
from rules.engine import RuleError


class RefuseForm(forms.Form):
    reply = forms.CharField(
        label=gettext_lazy("A word for the player (optional)"), max_length=200, required=False
    )


# ---------------------------------------------------------------------------------------------
# The player


@login_required
@require_POST
def proposal_create(request, campaign_id, character_id):
    """A player proposes a change to their own character; nothing changes until the GM
    approves it."""
    membership = get_membership(request, campaign_id)
    character = get_object_or_404(
        selectors.characters_for_cards(membership.campaign), pk=character_id
    )
    if membership.is_gm or character.owner_id != request.user.pk:
        raise PermissionDenied
    form = ProposalForm(request.POST)
    status, sent = 400, False
    if form.is_valid():
        try:
            proposal_make(
                character_id=character.pk,
                actor=request.user,
                action=form.cleaned_data["action"],
                arguments=form.arguments(),
                note=form.cleaned_data["note"],
            )
        except RuleError as error:
            form.add_error(None, rule_message(error, gm=False))
        else:
            status, sent = 200, True
    first = next((name for name in form.errors if name in form.fields), None)
    if first and not form.non_field_errors():
        # htmx focuses it once swapped in: the player's eyes go where the message is.
        form.fields[first].widget.attrs["autofocus"] = True
    if not request.htmx:
        if sent:
            messages.success(request, _("Proposal sent to the GM."))
            return redirect("character", campaign_id, character.pk)
        return player.sheet_response(request, membership, character, proposal_form=form, status=400)
    return render(
        request,
        "play/_propose.html",
        {
            "campaign": membership.campaign,
            "membership": membership,
            "character": character,
            "proposal_form": ProposalForm() if sent else form,
            "proposals": selectors.proposals_of(character),
            "sent": sent,
        },
        status=status,
    )


@login_required
@require_POST
def proposal_withdraw_view(request, campaign_id, proposal_id):
    """The player who made a proposal takes it back while it waits (403 to anyone else,
    the GM included: the GM refuses). htmx gets the player's list again, with the refusal
    in it when the GM decided first (400)."""
    membership = get_membership(request, campaign_id)
    proposal = _proposal(membership, proposal_id)
    if proposal.proposed_by_id != request.user.pk:
        raise PermissionDenied
    error = None
    try:
        proposal_withdraw(
            campaign_id=membership.campaign_id, proposal_id=proposal.pk, actor=request.user
        )
    except RuleError as refused:
        error = rule_message(refused, gm=False)
    if not request.htmx:
        if error:
            messages.error(request, error)
        else:
            messages.success(request, _("Proposal withdrawn."))
        return redirect("character", campaign_id, proposal.character_id)
    context = {
        "campaign": membership.campaign,
        "character": proposal.character,
        "proposals": selectors.proposals_of(proposal.character),
        "error": error,
    }
    return render(request, "play/_my_proposals.html", context, status=400 if error else 200)


# ---------------------------------------------------------------------------------------------
# The GM


def _proposal(membership, proposal_id) -> Proposal:
    return get_object_or_404(
        Proposal.objects.select_related("character", "campaign"),
        pk=proposal_id,
        campaign_id=membership.campaign_id,
    )


def proposals_part(request, campaign, *, oob=False, error=None, error_for=None) -> str:
    context = {"campaign": campaign}
    context |= parts.proposals_list(campaign, error_for=error_for, error=error, oob=oob)
    return render_to_string("play/_proposals.html", context, request=request)


def _refused_in_place(request, campaign, proposal, message):
    """The list again, with the rules' (or the form's) refusal beside that proposal."""
    html = proposals_part(request, campaign, error=message, error_for=proposal.pk)
    response = HttpResponse(html, status=400)
    return reswap(retarget(response, f"#{parts.PROPOSALS}"), "outerHTML")


def _edit_panel(request, membership, proposal, form, status=200):
    """The GM's own action form, filled in with the proposal, that approves it as edited."""
    campaign, character = membership.campaign, proposal.character
    spec = ACTIONS[proposal.action]
    title = _("%(who)s’s proposal: %(action)s") % {
        "who": proposal.proposer_name,
        "action": spec.label,
    }
    panel = parts.action_panel(spec, form, campaign, character, in_panel=bool(request.htmx))
    panel = dataclasses.replace(
        panel,
        action=dataclasses.replace(spec, label=title),
        url=reverse("proposal_approve", args=[campaign.pk, proposal.pk]),
    )
    context = {
        "campaign": campaign,
        "membership": membership,
        "form": form,
        "action": spec,
        "character": character,
        "panel": panel,
    }
    return views.render_action_form(request, context, status)


def _gm_form(proposal, data, membership):
    form = ACTIONS[proposal.action].form(
        data, campaign=membership.campaign, character=proposal.character
    )
    form.fields["edited"] = forms.CharField(widget=forms.HiddenInput, initial="1", required=False)
    return form


@login_required
@require_GET
def proposal_edit(request, campaign_id, proposal_id):
    membership = get_gm_membership(request, campaign_id)
    proposal = _proposal(membership, proposal_id)
    if not proposal.pending:  # decided meanwhile (another tab, another GM): the list says so
        closed = ProposalClosed(*closed_message(proposal))
        return _refused(request, membership, proposal, rule_message(closed))
    form = _gm_form(proposal, None, membership)
    form.initial = gm_form_data(proposal)
    return _edit_panel(request, membership, proposal, form)


@login_required
@require_POST
def proposal_approve_view(request, campaign_id, proposal_id):
    """Approve as proposed (a bare POST), or as the GM edited it (the action's form, `edited`):
    either way through the GM's own action form and service."""
    membership = get_gm_membership(request, campaign_id)
    proposal = _proposal(membership, proposal_id)
    campaign = membership.campaign
    edited = bool(request.POST.get("edited"))
    form = _gm_form(proposal, request.POST if edited else gm_form_data(proposal), membership)
    if form.is_valid():
        try:
            approved = proposal_approve(
                campaign_id=campaign.pk,
                proposal_id=proposal.pk,
                actor=request.user,
                **form.service_arguments(),
            )
        except RuleError as error:
            form.add_error(None, rule_message(error))
        else:
            return _after_approval(request, membership, approved)
    if edited:
        return _edit_panel(request, membership, proposal, form, status=400)
    message = " ".join(str(e) for errors in form.errors.values() for e in errors)
    return _refused(request, membership, proposal, message)


def _refused_answer(request, membership, proposal):
    campaign = Campaign.objects.get(pk=membership.campaign_id)
    shown = parts.page_parts(request, campaign.pk)
    changed = [proposal.character_id] if shown.shows_card(proposal.character_id) else []
    context = {
        "campaign": campaign,
        "membership": membership,
        "parts": shown,
        "changed_characters": selectors.characters_for_cards(campaign).filter(pk__in=changed),
    }
    context |= parts.proposals_list(campaign)
    return render(request, "play/_proposal_answer.html", context)


def _refused(request, membership, proposal, message):
    """A refusal beside its proposal: in the list (htmx), or on the dashboard redrawn."""
    if request.htmx:
        return _refused_in_place(request, membership.campaign, proposal, message)
    return views.dashboard_response(
        request, membership, status=400, proposal_error=(proposal.pk, message)
    )


def _after_approval(request, membership, approved):
    result, character = approved.result, approved.proposal.character
    lines = explanation(result.outcome)
    if not request.htmx:
        for line in lines:
            messages.info(request, line)
        return redirect("campaign", membership.campaign_id)
    slot = parts.slot_for(character)
    context = views.action_fragments(
        request, membership, result, slot=slot, lines=lines, closed_panel=slot
    )
    html = render_to_string("play/_action_result.html", context, request=request)
    if context["parts"].log:  # the dashboard: its list of proposals loses this one
        html += proposals_part(request, context["campaign"], oob=True)
    return HttpResponse(html)


@login_required
@require_POST
def proposal_refuse_view(request, campaign_id, proposal_id):
    membership = get_gm_membership(request, campaign_id)
    proposal = _proposal(membership, proposal_id)
    campaign = membership.campaign
    form = RefuseForm(request.POST)
    message = None
    if form.is_valid():
        try:
            proposal_refuse(
                campaign_id=campaign.pk,
                proposal_id=proposal.pk,
                actor=request.user,
                reply=form.cleaned_data["reply"],
            )
        except RuleError as error:
            message = rule_message(error)
    else:
        message = " ".join(e for errors in form.errors.values() for e in errors)
    if message is None:
        if request.htmx:
            return _refused_answer(request, membership, proposal)
        messages.success(request, _("Proposal refused."))
        return redirect("campaign", campaign_id)
    return _refused(request, membership, proposal, message)
