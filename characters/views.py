from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from campaign.permissions import can_see_full_sheet, get_gm_membership, get_membership
from characters.forms import CharacterForm
from characters.models import Character


def _character(membership, character_id) -> Character:
    return get_object_or_404(
        Character.objects.select_related("campaign", "owner"),
        pk=character_id,
        campaign_id=membership.campaign_id,
    )


@login_required
@require_http_methods(["GET", "POST"])
def character_create(request, campaign_id):
    membership = get_gm_membership(request, campaign_id)
    return _character_form(request, membership, Character(campaign=membership.campaign))


@login_required
@require_http_methods(["GET", "POST"])
def character_edit(request, campaign_id, character_id):
    membership = get_gm_membership(request, campaign_id)
    return _character_form(request, membership, _character(membership, character_id))


def _character_form(request, membership, character):
    campaign = membership.campaign
    form = CharacterForm(request.POST or None, instance=character, campaign=campaign)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            character = form.save()
            messages.success(request, _("%(name)s saved.") % {"name": character.name})
            return redirect("character", campaign.pk, character.pk)
        status = 400
    return render(
        request,
        "characters/form.html",
        {"campaign": campaign, "membership": membership, "form": form, "character": character},
        status=status,
    )


@login_required
@require_GET
def character_sheet(request, campaign_id, character_id):
    membership = get_membership(request, campaign_id)
    character = _character(membership, character_id)
    if not can_see_full_sheet(membership, character):
        raise PermissionDenied
    return render(
        request,
        "characters/sheet.html",
        {"campaign": membership.campaign, "membership": membership, "character": character},
    )
