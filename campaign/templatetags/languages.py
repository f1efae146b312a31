"""The language switch of every page: which languages to offer is decided here, not in HTML."""

from django import template
from django.conf import settings
from django.utils.translation import get_language, get_language_info

register = template.Library()


@register.simple_tag
def other_languages() -> list[tuple[str, str]]:
    """(code, name in that language) of each language the page is not in."""
    current = get_language()
    return [
        (code, get_language_info(code)["name_local"].capitalize())
        for code, _name in settings.LANGUAGES
        if code != current
    ]
