"""Writes for campaigns and memberships. Each runs in one transaction."""

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext as _

from campaign.models import (
    Campaign,
    DashboardView,
    Invitation,
    Membership,
    PasswordResetRequest,
    Role,
)


class CampaignError(Exception):
    """A request the rules of membership refuse; the message is for the person who asked."""


def campaign_create(*, user, name: str) -> Campaign:
    with transaction.atomic():
        campaign = Campaign.objects.create(name=name)
        Membership.objects.create(campaign=campaign, user=user, role=Role.GM)
    return campaign


def invitation_accept(*, invitation_id: int, user) -> Membership:
    """Join through a link. Joining twice is harmless: the existing membership is kept."""
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().get(pk=invitation_id)
        existing = Membership.objects.filter(campaign_id=invitation.campaign_id, user=user).first()
        if existing is not None:
            return existing
        problem = invitation.problem()
        if problem:
            raise CampaignError(problem)
        Invitation.objects.filter(pk=invitation.pk).update(uses=F("uses") + 1)
        return Membership.objects.create(
            campaign_id=invitation.campaign_id, user=user, role=invitation.role
        )


# A membership's end changes characters (their owner), so it is a service of play's, logged:
# play.services.membership_end.


def password_reset_allow(*, email: str) -> bool:
    """Record a password-reset request for `email`; whether a mail may go to it now: at most
    PASSWORD_RESET_MAILS_PER_HOUR an hour per address, whether it has an account or not."""
    digest = salted_hmac(
        "chroniqueur.password-reset", email.strip().lower(), algorithm="sha256"
    ).hexdigest()
    now = timezone.now()
    hour_ago = now - timedelta(hours=1)
    with transaction.atomic():
        PasswordResetRequest.objects.filter(requested_at__lte=hour_ago).delete()
        recent = PasswordResetRequest.objects.filter(address_digest=digest).count()
        PasswordResetRequest.objects.create(address_digest=digest, requested_at=now)
    return recent < settings.PASSWORD_RESET_MAILS_PER_HOUR


def login_lockout_clear(*, username: str) -> None:
    """Forget the failed logins of `username` (django-axes' records), from every address."""
    from axes.utils import reset

    reset(username=username)


def dashboard_view_set(*, membership_id: int, view: str) -> Membership:
    """Remember how this member's dashboard of the campaign shows the characters (cards or
    compact rows). A display choice of one member, not game state: nothing is logged."""
    if view not in DashboardView.values:
        raise CampaignError(_("Unknown dashboard view."))
    with transaction.atomic():
        Membership.objects.filter(pk=membership_id).update(dashboard_view=view)
        return Membership.objects.select_related("campaign").get(pk=membership_id)
