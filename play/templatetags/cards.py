"""Template tags for cards (play/cards.py caches their HTML) and game time.

They render what the view gives them: no query and no permission check here (the selectors
in play/selectors.py read and decide; tests/test_layers.py checks it)."""

from datetime import timedelta

from django import template
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.timesince import timesince
from django.utils.translation import gettext as _

from journal.texts import game_time as game_time_text
from journal.texts import in_language
from play import parts
from play.actions import GROUP_BUTTONS, PARTY_ACTIONS
from play.cards import CARDS, CSRF_PLACEHOLDER, card_html, request_csrf_input
from rules.engine.text import MINUS, on_moment, without_rule_ids

register = template.Library()


@register.simple_tag
def clock_questions(campaign, characters=None):
    """The quick clock buttons' questions when someone may die on the way (play/parts.py);
    `characters`: the dashboard's rows, absent from a part drawn alone."""
    return parts.clock_questions(campaign, characters or None)


@register.simple_tag
def party_links():
    """The party bar's links; the clock's quick buttons sit beside them."""
    return [(name, action.label) for name, action in PARTY_ACTIONS.items()]


@register.simple_tag
def group_buttons():
    """The group bar's buttons: the actions several ticked characters may take at once."""
    return GROUP_BUTTONS


@register.filter
def game_time(value):
    """ "jour 3, 14:20" from a game-clock datetime (stored in UTC: it is fiction, not Paris)."""
    if not value:
        return ""
    return in_language(*game_time_text(value))


@register.filter
def game_time_on(value):
    """ "le jour 3 à 14:20": a game time inside a sentence (« coma prévu le jour 3 à 14:20 »)."""
    if not value:
        return ""
    return in_language(*on_moment(value))


@register.filter
def number(value):
    """A whole number as print sets it: "−4", with the minus sign (−), not a hyphen."""
    if isinstance(value, int) and value < 0:
        return f"{MINUS}{-value}"
    return value


@register.filter
def for_reader(text, is_gm):
    """`text` as its reader reads it: the GM with the rules' ids ("(R5)"), a player without."""
    return text if is_gm else without_rule_ids(str(text))


@register.filter
def modifier_label(modifier: dict) -> str:
    """A logged roll modifier's label in the page's language (older entries have no English)."""
    return in_language(modifier["label"], modifier.get("label_en") or modifier["label"])


@register.simple_tag(takes_context=True)
def render_card(context, character, oob=False, view=CARDS):
    """The card of `character` (see card_html), or its compact row, with this request's CSRF
    token."""
    campaign, membership = context["campaign"], context["membership"]
    html = card_html(character, campaign=campaign, membership=membership, oob=oob, view=view)
    # Safe: the cached HTML is the template's own output, the token input is escaped.
    return mark_safe(html.replace(CSRF_PLACEHOLDER, request_csrf_input(context["request"])))


@register.filter
def ago(moment) -> str:
    """ "à l’instant" under a minute (timesince alone says "il y a 0 minute"), else "il y a
    3 minutes"."""
    if timezone.now() - moment < timedelta(minutes=1):
        return _("just now")
    return _("%(when)s ago") % {"when": timesince(moment)}
