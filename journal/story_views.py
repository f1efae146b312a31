"""The campaign's pictures and its dice's story: a character's PV and Flux chart, the party's
small multiples, and the statistics page. Thin views: permission, one selector, render."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from campaign.permissions import get_membership
from journal.charts import character_chart, chartable_characters, party_charts
from journal.models import PlaySession
from journal.stats import dice_story
from rules.engine.fairness import MIN_EXPECTED_PER_FACE, MINIMUM_ROLLS


def _session(request, campaign_id) -> PlaySession | None:
    """`?session=<id>`: one play session of this campaign; none given, the whole campaign.
    Anything else is a 404, as an unknown session would be."""
    raw = request.GET.get("session", "")
    if not raw:
        return None
    if not raw.isdigit():
        raise Http404
    return get_object_or_404(PlaySession, pk=int(raw), campaign_id=campaign_id)


def _sessions(campaign_id):
    return PlaySession.objects.filter(campaign_id=campaign_id).order_by("-started_at", "-pk")[:30]


@login_required
@require_GET
def character_chart_page(request, campaign_id, character_id):
    membership = get_membership(request, campaign_id)
    character = get_object_or_404(chartable_characters(membership), pk=character_id)
    session = _session(request, campaign_id)
    return render(
        request,
        "journal/chart.html",
        {
            "campaign": membership.campaign,
            "membership": membership,
            "character": character,
            "session": session,
            "sessions": _sessions(campaign_id),
            "chart": character_chart(membership, character, session=session),
        },
    )


@login_required
@require_GET
def party_chart_page(request, campaign_id):
    membership = get_membership(request, campaign_id)
    session = _session(request, campaign_id)
    if session is None:
        session = _sessions(campaign_id).first()
    return render(
        request,
        "journal/party_chart.html",
        {
            "campaign": membership.campaign,
            "membership": membership,
            "session": session,
            "sessions": _sessions(campaign_id),
            "charts": party_charts(membership, session),
        },
    )


@login_required
@require_GET
def statistics(request, campaign_id):
    membership = get_membership(request, campaign_id)
    session = _session(request, campaign_id)
    return render(
        request,
        "journal/statistics.html",
        {
            "campaign": membership.campaign,
            "membership": membership,
            "session": session,
            "sessions": _sessions(campaign_id),
            "story": dice_story(membership, session),
            "minimum": MINIMUM_ROLLS,
            "per_face": MIN_EXPECTED_PER_FACE,
        },
    )
