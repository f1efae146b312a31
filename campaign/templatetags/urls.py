"""`{% cached_url %}`: `{% url %}` for pages that ask for many addresses (the dashboard's
cards, its navigation). Reversing is about 80 µs here; a card asked for 16 of them."""

import functools

from django import template
from django.urls import get_script_prefix, reverse

register = template.Library()

# `cached_url`: a sentinel per numeric argument, as no real id is (ten digits, never a pk here).
_SENTINELS = tuple(str(9_087_650_001 + i) for i in range(4))


@functools.cache
def _url_pattern(prefix: str, name: str, shape: tuple) -> str:
    """`name` reversed once for this script prefix and this shape of arguments: each number
    as a sentinel, each text as itself."""
    args = [_SENTINELS[i] if part is None else part for i, part in enumerate(shape)]
    return reverse(name, args=args)


@register.simple_tag
def cached_url(name, *args):
    """`{% url %}` for the cards' many addresses (a card asks for about 16, each a `reverse`,
    15 % of drawing a card): the address is reversed once per process for each view and shape
    of arguments, and the ids are put in its place. The same address `{% url %}` gives."""
    shape = tuple(None if isinstance(arg, int) else str(arg) for arg in args)
    path = _url_pattern(get_script_prefix(), name, shape)
    for i, arg in enumerate(args):
        if isinstance(arg, int):
            path = path.replace(_SENTINELS[i], str(arg), 1)
    return path
