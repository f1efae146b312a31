from django import template

from journal.visibility import visible_entries

register = template.Library()


@register.simple_tag
def live_log_id(membership) -> int:
    """The latest log id this member may see: the page shows the state as of (at least) it.

    Rendered before the cards are read (base.html puts the live block above the content), so
    that a change committed in between is announced again rather than missed.
    """
    return visible_entries(membership).values_list("pk", flat=True).first() or 0
