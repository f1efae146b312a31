"""Who may see and do what in a campaign: decided here, once, for every view.

Outsiders get a 404 for every campaign URL (they must not learn that it exists); members who
lack the right get a 403.
"""

from django.core.exceptions import PermissionDenied
from django.http import Http404

from campaign.models import Membership


def get_membership(request, campaign_id: int) -> Membership:
    """The requester's membership of the campaign, with the campaign; 404 for outsiders."""
    if not request.user.is_authenticated:
        raise Http404
    membership = (
        Membership.objects.select_related("campaign")
        .filter(campaign_id=campaign_id, user=request.user)
        .first()
    )
    if membership is None:
        raise Http404
    return membership


def get_gm_membership(request, campaign_id: int) -> Membership:
    """Like get_membership, and a 403 for a member who is not a GM of the campaign."""
    membership = get_membership(request, campaign_id)
    if not membership.is_gm:
        raise PermissionDenied
    return membership


def can_see_full_sheet(membership: Membership, character) -> bool:
    """The GM sees every sheet; a player sees the full sheet of their own characters only."""
    return membership.is_gm or character.owner_id == membership.user_id


def can_roll_for(membership: Membership, character) -> bool:
    """R9: a player rolls their own character's tests when the campaign allows it.

    The GM rolls from the dashboard; this is the players' door only.
    """
    return (
        not membership.is_gm
        and membership.campaign.players_roll
        and character.owner_id == membership.user_id
    )
