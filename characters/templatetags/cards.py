from django import template

from characters.actions import PARTY_ACTIONS

register = template.Library()


@register.simple_tag
def party_links():
    """The party bar's links; the clock's quick buttons sit beside them."""
    return [(name, action.label) for name, action in PARTY_ACTIONS.items()]
