"""`{% cached_url %}` (campaign/templatetags/urls.py) gives the address `{% url %}` gives, for
every shape of arguments the cards use, under any script prefix."""

import pytest
from django.urls import reverse, set_script_prefix

from campaign.templatetags.urls import cached_url

CASES = [
    ("character_card", (12, 345)),
    ("character_action", (12, 345, "damage")),
    ("character_action", (12, 9, "add_condition")),
    ("fight_spend", (3, 45, "reflex")),
    ("fight_move", (3, 45, "out")),
    ("roll_answer", (7, 8)),
    ("campaign", (1,)),
]


@pytest.mark.parametrize("prefix", ["/", "/chroniqueur/"])
@pytest.mark.parametrize(("name", "args"), CASES)
def test_it_is_the_url_reverse_gives(name, args, prefix):
    set_script_prefix(prefix)
    try:
        assert cached_url(name, *args) == reverse(name, args=args)
        # Another character of the same shape: its own ids, not the first one's.
        other = tuple(a + 1 if isinstance(a, int) else a for a in args)
        assert cached_url(name, *other) == reverse(name, args=other)
    finally:
        set_script_prefix("/")


def test_ids_that_look_alike_are_put_in_their_own_place():
    # Campaign 1 and character 11: a replacement of the wrong digits would show at once.
    assert cached_url("character_action", 1, 11, "heal") == "/c/1/characters/11/act/heal/"
