"""Campaign pages whose writes change the game: the settings (the rules' Choices) and a member
leaving or being removed (their characters lose their player). Both go through play's
services, so the log says what changed; the pages themselves are the campaign app's."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaign.forms import CampaignSettingsForm, InvitationForm
from campaign.models import Membership
from campaign.permissions import get_gm_membership, get_membership
from campaign.services import CampaignError
from campaign.views import members_page
from journal.archive import archive_chunks
from play import services


@login_required
@require_http_methods(["GET", "POST"])
def campaign_settings(request, campaign_id):
    membership = get_gm_membership(request, campaign_id)
    campaign = membership.campaign
    form = CampaignSettingsForm(request.POST or None, instance=campaign)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            values = {name: form.cleaned_data[name] for name in form.Meta.fields}
            try:
                services.campaign_settings_update(
                    campaign_id=campaign.pk, actor=request.user, **values
                )
            except ValidationError as error:
                form.add_error(None, error)
            else:
                messages.success(request, _("Settings saved."))
                return redirect("campaign_settings", campaign.pk)
        status = 400
    return settings_page(request, membership, form=form, status=status)


def settings_page(request, membership, *, form=None, status=200, new_screen_url=""):
    """The settings page; `new_screen_url`: the table screen link just made, shown this once
    (only its digest is kept)."""
    campaign = membership.campaign
    return render(
        request,
        "campaign/settings.html",
        {
            "campaign": campaign,
            "membership": membership,
            "form": form or CampaignSettingsForm(instance=campaign),
            "new_screen_url": new_screen_url,
        },
        status=status,
    )


@login_required
@require_GET
def campaign_archive(request, campaign_id):
    """The whole campaign as one JSON file (journal/archive.py), the GM's own copy: the same
    file as `manage.py campaign_export`, which `campaign_import` rebuilds elsewhere."""
    membership = get_gm_membership(request, campaign_id)
    response = StreamingHttpResponse(
        archive_chunks(membership.campaign_id), content_type="application/json; charset=utf-8"
    )
    filename = f"chroniqueur-campaign-{membership.campaign_id}.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@login_required
@require_POST
def member_remove(request, campaign_id, membership_id):
    get_gm_membership(request, campaign_id)
    target = get_object_or_404(Membership, pk=membership_id, campaign_id=campaign_id)
    return _end_membership(request, target, redirect_to=reverse("members", args=[campaign_id]))


@login_required
@require_POST
def member_role(request, campaign_id, membership_id):
    """The GM makes a member GM or player (so the only GM may name another, then leave)."""
    own = get_gm_membership(request, campaign_id)
    target = get_object_or_404(Membership, pk=membership_id, campaign_id=campaign_id)
    try:
        services.membership_role_set(
            membership_id=target.pk, actor=request.user, role=request.POST.get("role", "")
        )
    except CampaignError as error:
        messages.error(request, str(error))
        return members_page(request, own, InvitationForm(), status=400)
    messages.success(request, _("Role changed."))
    return redirect("members", campaign_id)


@login_required
@require_POST
def leave(request, campaign_id):
    membership = get_membership(request, campaign_id)
    return _end_membership(request, membership, redirect_to=reverse("home"))


def _end_membership(request, membership, *, redirect_to):
    try:
        services.membership_end(membership_id=membership.pk, actor=request.user)
    except CampaignError as error:
        messages.error(request, str(error))
        own = get_membership(request, membership.campaign_id)
        return members_page(request, own, InvitationForm() if own.is_gm else None, status=409)
    return redirect(redirect_to)
