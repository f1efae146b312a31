"""Template tags for cards (play/cards.py caches their HTML) and game time."""

from datetime import timedelta

from django import template
from django.middleware.csrf import get_token
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.timesince import timesince
from django.utils.translation import gettext as _

from characters.models import Character
from journal.texts import game_time as game_time_text
from journal.texts import in_language
from play import parts
from play.actions import PARTY_ACTIONS
from play.cards import CARDS, CSRF_PLACEHOLDER, card_html, csrf_input
from play.selectors import fight_candidates, fight_view
from rules import engine

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


@register.filter
def game_time(value):
    """ "jour 3, 14:20" from a game-clock datetime (stored in UTC: it is fiction, not Paris)."""
    if not value:
        return ""
    return in_language(*game_time_text(value))


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
    return mark_safe(html.replace(CSRF_PLACEHOLDER, csrf_input(get_token(context["request"]))))


@register.simple_tag(takes_context=True)
def fight_section(context, rows=None):
    """What the fight section shows (R33): the running fight, or who may start one.

    `rows`: the campaign's characters if the page has read them already (the dashboard's
    cards), so that the section costs no query of its own.
    """
    campaign = context["campaign"]
    rows = rows or None  # a page without the rows passes "" (an unknown variable)
    fight = fight_view(campaign, rows)
    candidates = []
    if fight is None:
        # An action's answer redraws the section without the page's rows: one light read.
        candidates = fight_candidates(
            rows
            if rows is not None
            else Character.objects.filter(campaign=campaign)
            .order_by("kind", "name", "pk")
            .only("pk", "name", "kind", "vital")
        )
    # R9/R33: the next turn ends a round that moves the clock (its length): the rolls due in
    # it (R11, R13) may be typed in, so the next-turn form takes dice.
    rounds_roll = bool(
        campaign.fight
        and campaign.round_seconds > 0
        and not engine.Fight.from_json(campaign.fight).waiting
    )
    return {"fight": fight, "candidates": candidates, "rounds_roll": rounds_roll}


@register.simple_tag(takes_context=True)
def fight_strip(context, characters=None):
    """The fight as a player's page shows it: the running fight, and the viewer's own
    combatants (those of `characters`, or all their characters) with what they may do."""
    from campaign.permissions import can_roll_for

    campaign, membership = context["campaign"], context["membership"]
    fight = fight_view(campaign)
    if fight is None:
        return {"fight": None, "mine": []}
    wanted = None if characters is None else {c.pk for c in characters}
    mine = [
        (c, can_roll_for(membership, c.character))
        for c in fight.combatants
        if c.character.owner_id == membership.user_id
        and (wanted is None or c.character.pk in wanted)
    ]
    return {"fight": fight, "mine": mine}


@register.filter
def ago(moment) -> str:
    """ "à l’instant" under a minute (timesince alone says "il y a 0 minute"), else "il y a
    3 minutes"."""
    if timezone.now() - moment < timedelta(minutes=1):
        return _("just now")
    return _("%(when)s ago") % {"when": timesince(moment)}
