from django import template
from django.urls import reverse

from journal.visibility import visible_entries
from live.stream import holds_streams

register = template.Library()


@register.simple_tag
def live_log_id(membership) -> int:
    """The latest log id this member may see: the page shows the state as of (at least) it.

    Rendered before the cards are read (base.html puts the live block above the content), so
    that a change committed in between is announced again rather than missed.
    """
    return visible_entries(membership).values_list("pk", flat=True).first() or 0


@register.simple_tag(takes_context=True)
def live_stream_url(context, campaign) -> str:
    """The campaign's stream, or "" when this server does not hold streams (WSGI): the page
    then polls from the start. Asked anyway, the stream would answer 204, which htmx's SSE
    extension does not take to mean "stop": it would ask again and again (every 64 s at
    last), logging an error each time."""
    if not holds_streams(context.get("request")):
        return ""
    return reverse("campaign_events", args=[campaign.pk])
