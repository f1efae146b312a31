"""Card rendering with a per-card fragment cache, and game-time formatting.

A card's HTML depends only on its character's rows (whose `version` changes with every
write), the campaign's settings shown on it, the viewer's role and language. It is cached
under those, without the CSRF token, which is put in per request.
"""

from django import template
from django.core.cache import cache
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from characters.actions import PARTY_ACTIONS
from characters.selectors import card_for, characters_for_cards
from characters.texts import game_time as game_time_text
from characters.texts import in_language

register = template.Library()

CSRF_PLACEHOLDER = "__csrf_token_placeholder__"
CARD_TTL = 24 * 60 * 60


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


def card_cache_key(c, campaign, membership, oob: bool) -> str:
    return ":".join(
        map(
            str,
            (
                "card",
                campaign.pk,
                c.pk,
                c.version,
                c.owner_id,
                get_language(),
                "gm" if membership.is_gm else "player",
                ",".join(campaign.stats),
                campaign.default_roll_visibility,
                int(oob),
            ),
        )
    )


@register.simple_tag(takes_context=True)
def render_card(context, character, oob=False):
    """The card of `character`: a row, best with conditions, sequels and illness prefetched
    (the dashboard's rows are); a bare row is completed only when the card is not cached."""
    request = context["request"]
    campaign, membership = context["campaign"], context["membership"]
    key = card_cache_key(character, campaign, membership, oob)
    html = cache.get(key)
    if html is None:
        if not hasattr(character, "_prefetched_objects_cache"):
            character = characters_for_cards(campaign).get(pk=character.pk)
        html = render_to_string(
            "characters/_card.html",
            {
                "card": card_for(character, campaign),
                "campaign": campaign,
                "membership": membership,
                "oob": oob,
                "csrf_input": CSRF_PLACEHOLDER,
                "LANGUAGE_CODE": get_language(),
            },
        )
        cache.set(key, html, CARD_TTL)
    token_input = format_html(
        '<input type="hidden" name="csrfmiddlewaretoken" value="{}">', get_token(request)
    )
    # Safe: the cached HTML is the template's own output, the token input is escaped.
    return mark_safe(html.replace(CSRF_PLACEHOLDER, token_input))
