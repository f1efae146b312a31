import io

import segno
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaign import services
from campaign.forms import CampaignCreateForm, InvitationForm, SignupForm
from campaign.models import Invitation, Membership
from campaign.permissions import get_gm_membership, get_membership


def locked_out(request, original_response=None, credentials=None):
    """django-axes' answer to a login it refuses (settings AXES_LOCKOUT_CALLABLE): too many
    failures for this username from this address. 429, with the way back."""
    minutes = max(1, round(settings.AXES_COOLOFF_TIME.total_seconds() / 60))
    context = {"failure_limit": settings.AXES_FAILURE_LIMIT, "minutes": minutes}
    return render(request, "registration/locked_out.html", context, status=429)


class ResetPasswordConfirmView(auth_views.PasswordResetConfirmView):
    """Django's view; a password set through the mailed link also lifts the login lockout of
    that account (the link proves the address; whoever guessed passwords never had it)."""

    def form_valid(self, form):
        response = super().form_valid(form)
        services.login_lockout_clear(username=form.user.get_username())
        return response


@require_http_methods(["GET", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    if request.method == "POST":
        if form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            next_url = request.GET.get("next", "")
            if not url_has_allowed_host_and_scheme(
                next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
            ):
                next_url = "home"  # never an open redirect to another site
            return redirect(next_url)
        return render(request, "registration/signup.html", {"form": form}, status=400)
    return render(request, "registration/signup.html", {"form": form})


@require_GET
def home(request):
    if not request.user.is_authenticated:
        return render(request, "campaign/welcome.html")
    memberships = Membership.objects.filter(user=request.user).select_related("campaign")
    return render(
        request,
        "campaign/home.html",
        {"memberships": memberships, "form": CampaignCreateForm()},
    )


@login_required
@require_POST
def campaign_create(request):
    form = CampaignCreateForm(request.POST)
    if not form.is_valid():
        memberships = Membership.objects.filter(user=request.user).select_related("campaign")
        return render(
            request, "campaign/home.html", {"memberships": memberships, "form": form}, status=400
        )
    campaign = services.campaign_create(user=request.user, name=form.cleaned_data["name"])
    # A campaign without players has nothing to run: the next step is inviting them.
    messages.success(
        request,
        _("Campaign “%(name)s” created. Next step: invite your players.") % {"name": campaign.name},
    )
    return redirect("members", campaign.pk)


def _join_url(request, invitation) -> str:
    # One place builds the link, so the text a GM copies and the QR code never differ.
    return request.build_absolute_uri(reverse("join", args=[invitation.token]))


def members_page(request, membership, invite_form, status=200):
    campaign = membership.campaign
    members = list(campaign.memberships.select_related("user"))
    invitations = []
    if membership.is_gm:
        invitations = list(campaign.invitations.filter(revoked_at__isnull=True))
        for invitation in invitations:
            invitation.link = _join_url(request, invitation)
    return render(
        request,
        "campaign/members.html",
        {
            "campaign": campaign,
            "membership": membership,
            "members": members,
            "invitations": invitations,
            "nobody_invited": len(members) == 1 and not invitations,
            "invite_form": invite_form,
            "now": timezone.now(),
        },
        status=status,
    )


@login_required
@require_GET
def members(request, campaign_id):
    membership = get_membership(request, campaign_id)
    return members_page(request, membership, InvitationForm() if membership.is_gm else None)


@login_required
@require_POST
def invitation_create(request, campaign_id):
    membership = get_gm_membership(request, campaign_id)
    form = InvitationForm(request.POST)
    if not form.is_valid():
        return members_page(request, membership, form, status=400)
    form.instance.campaign = membership.campaign
    form.instance.created_by = request.user
    invitation = form.save()
    messages.success(request, _("Invitation link created."))
    # The anchor scrolls a phone straight to the new link and its QR code.
    return redirect(f"{reverse('members', args=[campaign_id])}#invitation-{invitation.pk}")


@login_required
@require_POST
def invitation_revoke(request, campaign_id, invitation_id):
    get_gm_membership(request, campaign_id)
    invitation = get_object_or_404(Invitation, pk=invitation_id, campaign_id=campaign_id)
    if invitation.revoked_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
    messages.success(request, _("Invitation revoked: the link no longer works."))
    return redirect("members", campaign_id)


@login_required
@require_GET
def invitation_qr(request, campaign_id, invitation_id):
    get_gm_membership(request, campaign_id)
    invitation = get_object_or_404(Invitation, pk=invitation_id, campaign_id=campaign_id)
    out = io.BytesIO()
    # A file, not inline markup: an <img> shows an SVG only if it declares its namespace
    # (svg_inline leaves it out), and its width and height give the image a natural size.
    segno.make(_join_url(request, invitation), error="m").save(
        out, kind="svg", xmldecl=False, scale=6, dark="#000", light="#fff"
    )
    return HttpResponse(out.getvalue(), content_type="image/svg+xml")


@require_http_methods(["GET", "POST"])
def join(request, token):
    invitation = Invitation.objects.select_related("campaign").filter(token=token).first()
    if invitation is None:
        return render(
            request,
            "campaign/join.html",
            {"problem": _("This invitation link is not valid.")},
            status=404,
        )
    if not request.user.is_authenticated:
        return render(request, "campaign/join.html", {"invitation": invitation, "anonymous": True})
    if request.method == "POST":
        try:
            services.invitation_accept(invitation_id=invitation.pk, user=request.user)
        except services.CampaignError as error:
            return render(
                request,
                "campaign/join.html",
                {"invitation": invitation, "problem": str(error)},
                status=410,
            )
        messages.success(request, _("Welcome to %(name)s!") % {"name": invitation.campaign.name})
        return redirect("campaign", invitation.campaign_id)
    problem = invitation.problem()
    return render(
        request,
        "campaign/join.html",
        {"invitation": invitation, "problem": problem},
        status=410 if problem else 200,
    )
