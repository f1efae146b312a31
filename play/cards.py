"""A character's card as HTML, cached per character version.

A card's HTML depends only on its character's rows (whose `version` changes with every
write), the campaign's settings shown on it, the character's seat in the running fight (R33),
the game clock for a stabilised character (whether a waking try is offered, R13), for the
GM the count of the player's proposals waiting, the viewer's role and language. It is cached
under those, without the CSRF token, which is put in per request (or per live stream), and
without the out-of-band mark of an action's response: the card an action just changed is then
cached for the live stream's push of the same version.
"""

import re

from django.core.cache import cache
from django.db.models import prefetch_related_objects
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.translation import get_language

from campaign.models import DashboardView
from characters.models import Vital
from play.selectors import (
    card_for,
    card_prefetches,
    characters_for_cards,
    fight_seat,
    pending_proposals,
)

CSRF_PLACEHOLDER = "__csrf_token_placeholder__"
OOB_PLACEHOLDER = "__oob_placeholder__"
OOB_ATTRIBUTE = ' hx-swap-oob="true"'
CARD_TTL = 24 * 60 * 60
PRELOADED = "_card_preloaded"  # (cache key, cached HTML or None), set by `preload`

# What a character looks like on the GM's dashboard (Membership.dashboard_view): a card, or
# a dense row (compact). A character's sheet and the players' pages show cards.
CARDS, COMPACT = DashboardView.CARDS.value, DashboardView.COMPACT.value
TEMPLATES = {CARDS: "play/_card.html", COMPACT: "play/_row.html"}


def _tidy(html: str) -> str:
    """The card without its templates' indentation and blank lines (a tenth of its bytes):
    each line break and the spaces after it become one line break. A card holds no <pre> nor
    <textarea>, where spaces would count."""
    return _INDENT.sub("\n", html)


_INDENT = re.compile(r"\n\s+")


def shown_view(value) -> str:
    """`value` (a page's ?view= or header) if it names a view, else cards."""
    return value if value in TEMPLATES else CARDS


def card_cache_key(c, campaign, membership, view=CARDS, proposals=0) -> str:
    return ":".join(
        map(
            str,
            (
                view,
                campaign.pk,
                c.pk,
                c.version,
                c.owner_id,
                get_language(),
                "gm" if membership.is_gm else "player",
                ",".join(campaign.stats),
                campaign.default_roll_visibility,
                getattr(fight_seat(campaign, c.pk), "key", "-"),
                # A stabilised character's waking try depends on the game clock (R13: one
                # per game hour); no other action a card offers does.
                campaign.clock.isoformat() if c.vital == Vital.STABILISED else "-",
                # The GM's card counts the player's proposals waiting: no new version of the
                # character says when one comes or goes (play/proposals.py).
                proposals if membership.is_gm else "-",
            ),
        )
    )


def card_html(character, *, campaign, membership, oob=False, view=CARDS) -> str:
    """The card of `character` for this viewer, with `CSRF_PLACEHOLDER` where the token goes.

    `character` is a row, best with conditions, sequels and illness prefetched (the
    dashboard's rows are); a bare row is completed only when the card is not cached. The
    live stream pushes this same HTML (live/stream.py). `oob`: marked for an out-of-band
    swap (htmx), as an action's response sends it. `view`: a card, or the compact dashboard's
    row (the same id, so that every update finds it).
    """
    proposals = pending_proposals(character) if membership.is_gm else 0
    key = card_cache_key(character, campaign, membership, view, proposals)
    preloaded = getattr(character, PRELOADED, None)
    html = preloaded[1] if preloaded and preloaded[0] == key else cache.get(key)
    if html is None:
        if not hasattr(character, "_prefetched_objects_cache"):
            character = characters_for_cards(campaign).get(pk=character.pk)
        html = render_to_string(
            TEMPLATES[view],
            {
                "card": card_for(character, campaign),
                "campaign": campaign,
                "membership": membership,
                "oob_attribute": OOB_PLACEHOLDER,
                "csrf_input": CSRF_PLACEHOLDER,
                "LANGUAGE_CODE": get_language(),
                "pending_proposals": proposals,
            },
        )
        html = _tidy(html)
        if not character.in_play:
            # Off the table (play/services/table.py): a dashboard that still holds the card
            # (another tab, a live push) hides its slot (static/app.css); its sheet shows it.
            html = html.replace("<article ", "<article data-off-table ", 1)
        cache.set(key, html, CARD_TTL)
    return html.replace(OOB_PLACEHOLDER, OOB_ATTRIBUTE if oob else "", 1)


def preload(rows, *, campaign, membership, view=CARDS, also=()) -> None:
    """Look up the cards of `rows` (read with `characters_for_cards(..., prefetch=False)`) in
    one cache call, and read what a card needs beside its row (conditions, sequels, requests)
    only for the rows whose card is not cached, and for `also` (rows the page reads the state
    of anyway: the fight's combatants). A warm dashboard then reads no related rows at all."""
    keys = {}
    for row in rows:
        proposals = pending_proposals(row) if membership.is_gm else 0
        keys[row.pk] = card_cache_key(row, campaign, membership, view, proposals)
    found = cache.get_many(list(keys.values()))
    for row in rows:
        setattr(row, PRELOADED, (keys[row.pk], found.get(keys[row.pk])))
    wanted = {row.pk for row in rows if keys[row.pk] not in found} | {row.pk for row in also}
    bare = {row.pk: row for row in (*rows, *also) if row.pk in wanted}
    if bare:
        prefetch_related_objects(list(bare.values()), *card_prefetches())


def csrf_input(token: str) -> str:
    return format_html('<input type="hidden" name="csrfmiddlewaretoken" value="{}">', token)


def request_csrf_input(request) -> str:
    """The CSRF input for every card of this request: the token masked once (`get_token`
    masks it anew on each call, which a dashboard of 30 cards paid 30 times)."""
    token_input = getattr(request, "_card_csrf_input", None)
    if token_input is None:
        token_input = request._card_csrf_input = csrf_input(get_token(request))
    return token_input
