"""The pictures and the luck table a page (the recap, the history) includes for a session:
`{% include "journal/_party_chart.html" with session=session %}` and `_luck_table.html`
read them through these tags, for the `membership` of the page's context."""

from django import template

from journal.charts import character_chart, chartable_characters, party_charts
from journal.selectors import latest_session as latest_session_of
from journal.stats import dice_story

register = template.Library()


@register.simple_tag(takes_context=True)
def session_party_charts(context, session):
    return party_charts(context["membership"], session)


@register.simple_tag(takes_context=True)
def session_dice_story(context, session):
    return dice_story(context["membership"], session)


@register.simple_tag(takes_context=True)
def chart_for(context, character_id, session=None):
    """The chart of a character the page's member may chart, else None (`session`: one play
    session's; none: the whole campaign)."""
    membership = context["membership"]
    character = chartable_characters(membership).filter(pk=character_id).first()
    if character is None:
        return None
    return character_chart(membership, character, session=session)


@register.simple_tag(takes_context=True)
def latest_session(context):
    return latest_session_of(context["membership"].campaign_id)


@register.filter
def entry_classes(entry) -> str:
    """A log entry's classes, on the history, the dashboard's log and a sheet's feed: its kind,
    « gm-only », « has-seal » (a sealed roll shown with its seal), « undone » (an undone change,
    or a roll of an action undone)."""
    classes = ["entry", f"kind-{entry.kind}"]
    if entry.visibility == "gm":
        classes.append("gm-only")
    if getattr(entry, "seal_view", None):
        classes.append("has-seal")
    undone = getattr(entry, "undone_by", None)
    if undone or (getattr(entry, "action_undone", False) and entry.kind == "roll"):
        classes.append("undone")
    return " ".join(classes)
