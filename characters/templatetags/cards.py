from django import template

from characters.actions import ACTIONS, PARTY_ACTIONS

register = template.Library()

QUICK = {"damage", "heal", "spend_flux", "restore_flux"}


@register.simple_tag
def action_links():
    """The card's "more actions" links: every action but the quick ones on the card itself."""
    return [(name, action.label) for name, action in ACTIONS.items() if name not in QUICK]


@register.simple_tag
def party_links():
    return [(name, action.label) for name, action in PARTY_ACTIONS.items() if name != "clock"] + [
        ("clock", PARTY_ACTIONS["clock"].label)
    ]
