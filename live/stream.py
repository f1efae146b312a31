"""The live stream of a campaign: Server-Sent Events from an async view, and a polling fallback.

Each event says which characters changed and at which log id:

    id: 1234
    event: change
    data: {"characters": [3, 7], "log_id": 1234, "cards": [3]}

`"campaign": true` is added when the batch changed the campaign itself (the clock, the scene,
the hour rests) in entries this viewer may see: no character id says so, and a GM's dashboard
redraws its clock bar from it.

`"log_seal": {"from": …, "to": …}` is added when the log extends the seal it had before this
batch ("from") up to its seal now ("to"): every open page checks after each change that the log
extends the seal it kept (journal.views.history_seal); the process makes that check once per
change for all its pages (`_log_check`, the same check as journal.audit.check_seal), and a page that
kept "from" keeps "to" without asking (static/live.js). A seal says no more than the seal
endpoint tells any member; it comes only with a change the viewer is told of.

`"proposals": false` is added for a player when none of the entries they are told of is a step
of a proposal (play/proposals.py): the owner's list of proposals on the sheet stays as it is.
It is read with the batch's entries, so a GM's change (told by the event alone) and a change
caught up on do not say it, and the page refetches that list as before.

`cards` names the cards among them that the page said it shows (`?cards=3,9`) and that this
viewer may see in full: their new HTML follows in a message of its own, as soon as it is
rendered, so that rendering never delays the announcement. It belongs to the change just
before it on the stream (it has no `id:` of its own: a stream's position moves only with the
changes it announces). Its data is the cards' HTML, one `data:` line per line, each card marked
for an out-of-band swap, so that htmx's SSE extension swaps it as it is (`sse-swap="cards"`
in templates/live/_live.html; static/live.js holds back a card the page has already, or
one under an action in flight):

    event: cards
    data: <article class="card …" id="character-3" data-version="8" … hx-swap-oob="true"
    data:   hx-get="…">
    …

A GM's compact dashboard asks for its rows instead (`?view=compact`): the same ids, the row's
HTML (templates/play/_row.html) instead of the card's.

A player's home (the party's rows: templates/play/player_home.html) asks for its rows
(`?rows=1`): `rows` in the change names the characters it covers, and a message of its own
follows with the row of each as this viewer's home shows it, as JSON (one line):

    event: rows
    data: {"log_id": 1234, "rows": {"3": "<li id=\"party-3\" …>…</li>", "7": "<p id=\"own-7\" …>"}}

Its owner gets the character's row of their own list (`own-<id>`), every other player its row
of the party (`party-<id>`), as the campaign's party visibility shows it to any player but the
owner, so each is drawn once per change and process for every home that shows it
(`_home_rows`); a character covered without a row (an NPC: no home shows it) has none. The
page swaps each row in place, and refetches its lists when a row does not match what it
shows (the GM gave or took the character) or a character was not covered (static/live.js).

That HTML is what the card's own URL would return to this viewer (the same permission check,
with the membership re-read at the event, and the same cached HTML: play/cards.py). A
change thus costs each process one read of the event for all of its campaign's viewers
(`_event_views`: their memberships and the batch, judged per viewer by
journal.visibility.sees_entry) and one render per viewer and card, not one request per open
card.

The page's other parts that a change redraws are pushed too, when the page names them
(`?parts=roll-log,party-bar,fight` on the GM's dashboard, `?parts=fight-strip&strip=home` on a
player's home or `strip=<character id>` on their sheet, `feed` with `feed=<character id>` on a
sheet): `parts` in the change names those
whose HTML follows, in a message of its own (`PartsMessage`), as JSON, with each stream's CSRF
token in its forms:

    event: parts
    data: {"log_id": 1234, "parts": {"roll-log": "<section class=\"log panel\" id=\"roll-log\" …"}}

A GM who sees every entry gets their log on every change they are told of, their clock bar and
fight section (R33) when the campaign changed, each drawn once per event for every GM
(`_gm_parts`); a player gets their fight strip when the campaign changed, drawn once per event
for every player whose strip shows the same combatants of theirs on the same page: without one
of theirs in the fight (or without a fight), one drawing for all (`parts_message`); a sheet's
feed comes with a change of its character to a viewer who may see that sheet, drawn for each
player (their visibility, their own doings) and once for every GM (`_feed_html`). Each is
what the page's own GET aimed at that part returns to this viewer. A page never gets another
role's part, whatever it names. Every other element (the sheet's proposals) and every
change a stream catches up on after a reconnection come as ids only, and the page refetches
them through the viewer's permissions.

The id is the last audit entry of the batch that made the change. What a viewer is told goes
through journal.visibility: a batch is announced to a viewer only with the characters of the
entries they may see, and not at all when they may see none of it. Such a batch still moves the
stream's own position (so it is never re-examined), but no `id:` line is sent for it: the
viewer learns nothing, not even that something happened; after a reconnection the server
re-reads from the last id the client saw and skips it again.

A stream ends with a last message the page understands, and no `id:`:

    event: end
    data: {"reason": "logout"}

`logout` (its session was ended or no longer holds: logged out, password changed, account
disabled), `expired` (its session expired), `removed` (no longer a member of the campaign), or
`busy` (this account already holds STREAMS_PER_ACCOUNT streams in this process: the page polls
instead). A guard per process checks every open stream's session and membership every
GUARD_EVERY seconds in two or three queries, whatever the number of streams (a logout in the
same process ends that session's streams at once: `end_session_streams`); a change
announced to a stream whose viewer is no longer a member ends it too. static/live.js then
stops reconnecting and says why (or polls, when busy).

Order of operations, so that nothing is lost or sent twice: subscribe (on PostgreSQL, once
this process LISTENs), then read the log after the client's id, then take live events whose id
is above everything already read. When the listening connection comes back after a drop,
every stream re-reads the log after its position the same way.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import cached_property
from importlib import import_module

from asgiref.sync import SyncToAsync, sync_to_async
from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.core.handlers.asgi import ASGIRequest
from django.db import InterfaceError, OperationalError, connections
from django.db.models import Max
from django.http import Http404, HttpResponse, JsonResponse, StreamingHttpResponse
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.urls import get_script_prefix, reverse, set_script_prefix
from django.utils import timezone, translation
from django.utils.crypto import constant_time_compare
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from campaign.models import Campaign, Membership
from campaign.permissions import can_roll_for, can_see_full_sheet, get_membership
from characters.models import Character
from journal import events as live
from journal.audit import check_from
from journal.feed import feed as feed_of
from journal.models import AuditEntry
from journal.texts import PROPOSAL_FIELD
from journal.visibility import (
    EntryFacts,
    entry_facts,
    is_sealed,
    sees_entry,
    sees_every_entry,
    visible_entries,
)
from play.cards import CARDS, CSRF_PLACEHOLDER, card_html, csrf_input, shown_view
from play.parts import FIGHT_PART, FIGHT_STRIP, LOG, PARTY_BAR, gm_part
from play.selectors import (
    FightStrip,
    characters_for_cards,
    fight_view,
    party_member,
)

READ_THREADS = 4  # threads (so database connections) that every stream of a process shares
HEARTBEAT = 15.0  # seconds between comment lines, so proxies and phones keep the stream open
RETRY_MS = 2000  # how long EventSource waits before reconnecting
MAX_CARDS = 1000  # card ids a page may name
# The parts other than cards and rows a page may ask to be pushed (`?parts=`): the GM's log,
# clock bar and fight section (the dashboard), a player's fight strip (their home, their sheet).
GM_PARTS = (LOG, PARTY_BAR, FIGHT_PART)
FEED = "feed"  # a sheet's feed (journal/feed.py), of the character the page names (`?feed=`)
PARTS = frozenset((*GM_PARTS, FIGHT_STRIP, FEED))
HOME_STRIP = "home"
RETRY_DELAYS = (0.05, 0.25)  # seconds before a failed read is tried again
LINE_BREAK = re.compile(r"\r\n|\r|\n")  # what ends a line of an event stream
STREAMS_PER_ACCOUNT = settings.LIVE_STREAMS_PER_ACCOUNT  # open streams per account per process
GUARD_EVERY = 2.0  # seconds between two checks of every open stream's session and membership


@dataclass(frozen=True)
class Shown:
    """What a stream's page shows: the cards it wants pushed, in its language and prefix."""

    cards: frozenset[int] = frozenset()
    language: str = settings.LANGUAGE_CODE
    script_prefix: str = "/"
    view: str = CARDS  # the GM's dashboard as cards or as compact rows (`?view=compact`)
    rows: bool = False  # a player's home: the party's rows pushed with each change (`?rows=1`)
    # The page's parts other than cards and rows it wants pushed (`?parts=roll-log,fight`):
    # among PARTS; and which page a player's fight strip is on (`?strip=home` or the sheet's
    # character id), for the strip's own links.
    parts: frozenset[str] = frozenset()
    strip: str = ""
    feed: int | None = None  # the character whose feed the page shows (`?feed=`)


NOTHING_SHOWN = Shown()


@dataclass(frozen=True)
class Change:
    log_id: int
    characters: tuple[int, ...]
    cards: tuple[int, ...] = ()  # those whose HTML follows (`CardsMessage`)
    campaign: bool = False  # the campaign's own state changed (clock, scene, hour rests)
    # The GM's sealed rolls of the batch a player is told of: (entry id, commitment), never
    # the result (journal/sealing.py); static/sealed.js remembers them until the reveal.
    sealed: tuple[tuple[int, str], ...] = ()
    # (the log's seal just before this batch, the log's seal now) when the log extends the
    # first (`_log_check`): a page that kept the first needs not ask (static/live.js).
    log_seal: tuple[str, str] | None = None
    rows: tuple[int, ...] = ()  # a player's home: the characters whose rows follow (`RowsMessage`)
    # False when the batch, read for this player, has no step of a proposal (play/proposals.py):
    # the owner's list of proposals on the sheet needs no refetch. None: not read (a GM's view,
    # a change caught up on), the page refetches it as before.
    proposals: bool | None = None
    parts: tuple[str, ...] = ()  # the page's parts whose HTML follows (`PartsMessage`)

    def as_dict(self) -> dict:
        data = {"characters": list(self.characters), "log_id": self.log_id}
        if self.cards:
            data["cards"] = list(self.cards)
        if self.rows:
            data["rows"] = list(self.rows)
        if self.parts:
            data["parts"] = list(self.parts)
        if self.proposals is False:
            data["proposals"] = False
        if self.campaign:
            data["campaign"] = True
        if self.sealed:
            data["sealed"] = {str(entry_id): commitment for entry_id, commitment in self.sealed}
        if self.log_seal:
            data["log_seal"] = {"from": self.log_seal[0], "to": self.log_seal[1]}
        return data

    @property
    def anything(self) -> bool:
        """Whether this viewer is told of it at all."""
        return bool(self.characters) or self.campaign

    @cached_property
    def sse(self) -> bytes:
        """The event's bytes: serialised once, whatever the number of streams it goes to."""
        data = json.dumps(self.as_dict(), separators=(",", ":"))
        return f"id: {self.log_id}\nevent: change\ndata: {data}\n\n".encode()


@dataclass(frozen=True)
class CardsMessage:
    """The new HTML of the cards a change announced, marked for an out-of-band swap, with
    CSRF_PLACEHOLDER where each stream puts its own token. Serialised once, whatever the number
    of streams it goes to."""

    log_id: int
    html: dict[int, str]

    @cached_property
    def body(self) -> str:
        # SSE ends a line at CR, LF or CRLF (a name typed in a textarea brings CRLF): each line
        # of the HTML gets its own `data:` field. HTML parsing reads CR as LF: nothing is lost.
        lines = LINE_BREAK.split("\n".join(html.strip() for html in self.html.values()))
        return "event: cards\n" + "".join(f"data: {line}\n" for line in lines) + "\n"

    def sse(self, token_input: str) -> bytes:
        return self.body.replace(CSRF_PLACEHOLDER, token_input).encode()


@dataclass(frozen=True)
class RowsMessage:
    """A player's home rows of the characters a change covered (`Change.rows`), by character
    id: those without a row on a home are left out."""

    log_id: int
    html: dict[int, str]

    @cached_property
    def sse(self) -> bytes:
        data = json.dumps({"log_id": self.log_id, "rows": self.html}, separators=(",", ":"))
        return f"event: rows\ndata: {data}\n\n".encode()


@dataclass(frozen=True)
class PartsMessage:
    """The page's parts a change announced (`Change.parts`), by element id, as the page's own
    GET aimed at each draws it for this viewer, with CSRF_PLACEHOLDER where each stream puts its
    own token (the token alone: the parts use `{% csrf_token %}`)."""

    log_id: int
    html: dict[str, str]

    @cached_property
    def body(self) -> str:
        data = json.dumps({"log_id": self.log_id, "parts": self.html}, separators=(",", ":"))
        return f"event: parts\ndata: {data}\n\n"

    def sse(self, token: str) -> bytes:
        return self.body.replace(CSRF_PLACEHOLDER, token).encode()


@dataclass(frozen=True)
class End:
    """The stream's last message: why it ends (see the module's docstring)."""

    reason: str

    @cached_property
    def sse(self) -> bytes:
        return f"event: end\ndata: {json.dumps({'reason': self.reason})}\n\n".encode()


LOGOUT, EXPIRED, REMOVED, BUSY = (End(r) for r in ("logout", "expired", "removed", "busy"))


# ---------------------------------------------------------------------------------------------
# Reads (sync, through the visibility rule)

# Streams live for hours. Run under the request's own thread (what sync_to_async does by
# default in a view), each would keep a database connection for its whole life: hundreds of
# viewers, hundreds of connections. Their reads share these few threads instead.
_readers = ThreadPoolExecutor(max_workers=READ_THREADS, thread_name_prefix="live-read")


def _in_reader_thread(function, *args):
    try:
        for delay in (*RETRY_DELAYS, None):
            try:
                return function(*args)
            except (OperationalError, InterfaceError):
                # The thread's connection died (database restarted, idle timeout), or SQLite
                # found a table locked by a writer: again, on a fresh connection.
                if delay is None:
                    raise
                connections["default"].close()
                time.sleep(delay)
    finally:
        if getattr(connections["default"], "pool", None) is not None:
            connections["default"].close()  # back to the pool, which requests need too


def close_reader_connections() -> None:
    """Close the reader threads' connections (tests, before the test database is dropped)."""
    threads = len(_readers._threads)
    if not threads:
        return
    # One task per thread: each waits for the others, so no thread takes two.
    barrier = threading.Barrier(threads)

    def close():
        barrier.wait(timeout=10)
        connections.close_all()

    for future in [_readers.submit(close) for _ in range(threads)]:
        future.result()


async def read(function, *args):
    """`function(*args)` on one of the stream readers' threads."""
    return await sync_to_async(_in_reader_thread, thread_sensitive=False, executor=_readers)(
        function, *args
    )


def log_head(campaign_id: int) -> int:
    """The campaign's latest entry id (0 for an empty log)."""
    head = AuditEntry.objects.filter(campaign_id=campaign_id).aggregate(m=Max("id"))["m"]
    return head or 0


def missed_changes(membership: Membership, after: int) -> tuple[list[Change], int]:
    """Every batch after `after` with something this member may see, oldest first, and the
    id up to which the log was read (the new position, whatever was visible)."""
    # The head first: anything committed after it has a greater id (entries of a campaign are
    # written under its row lock), so it reaches the stream live, not here and not lost.
    head = log_head(membership.campaign_id)
    rows = (
        visible_entries(membership)
        .filter(id__gt=after, id__lte=head)
        .order_by("id")
        .values_list("id", "batch", "character_id", "visibility", "kind", "roll__seal__commitment")
        .iterator(chunk_size=2000)
    )
    characters: dict = {}
    of_campaign = set()  # batches with entries of the campaign itself
    sealed: dict = {}  # batch -> [(entry id, commitment)] of its sealed rolls
    gm = sees_every_entry(membership)
    for entry_id, batch, character_id, visibility, kind, commitment in rows:
        if not gm and is_sealed(
            EntryFacts(entry_id, batch, visibility, None, None, kind, "", commitment)
        ):
            sealed.setdefault(batch, []).append((entry_id, commitment))
        seen = characters.setdefault(batch, set())
        if character_id is not None:
            seen.add(character_id)
        else:
            of_campaign.add(batch)
    if not characters:
        return [], head
    # The batch's id is its last entry, visible or not: the same id the live event carries.
    last_ids = dict(
        AuditEntry.objects.filter(campaign_id=membership.campaign_id, batch__in=list(characters))
        .values("batch")
        .annotate(last=Max("id"))
        .values_list("batch", "last")
    )
    changes = [
        Change(
            last_ids[batch],
            tuple(sorted(ids)),
            campaign=batch in of_campaign,
            sealed=tuple(sealed.get(batch, ())),
        )
        for batch, ids in characters.items()
        if ids or batch in of_campaign
    ]
    changes.sort(key=lambda c: c.log_id)
    return changes, head


@dataclass(frozen=True)
class Seen:
    """What one member is told of one event: read once per event for the campaign's viewers."""

    membership: Membership
    owners: dict  # the characters they may know changed -> their owner's id (None for a GM)
    campaign: bool  # whether they may know the campaign itself changed
    sealed: tuple = ()  # the batch's sealed rolls they are told of: (entry id, commitment)
    proposals: bool | None = None  # whether a step of a proposal is among them (None: not read)


def _event_views(event: live.Event, user_ids: frozenset[int]) -> dict[int, Seen | None]:
    """The event as each of `user_ids` may see it now (None: no longer a member, their stream
    ends), in at most two queries however many viewers: their memberships, re-read at the
    event, and, when someone needs it, the batch's entries, judged for each viewer in Python by
    the same rule as the pages (journal.visibility.sees_entry)."""
    members = {
        m.user_id: m
        for m in Membership.objects.select_related("campaign").filter(
            campaign_id=event.campaign_id, user_id__in=user_ids
        )
    }

    def told_by_event(membership) -> bool:
        # The event names every character of its batch, and whether the campaign changed: a
        # GM needs nothing more (the GM's card permission does not look at the owner).
        return sees_every_entry(membership) and bool(event.character_ids)

    entries = []
    if not all(told_by_event(m) for m in members.values()):
        batch = AuditEntry.objects.filter(pk=event.log_id, campaign_id=event.campaign_id)
        entries = entry_facts(
            AuditEntry.objects.filter(
                campaign_id=event.campaign_id, batch__in=batch.values("batch")
            ).order_by()
        )
    owners_of_event: dict[int, int | None] = {}

    def event_owners() -> dict[int, int | None]:
        """The owners of the event's characters, read once if some viewer needs them."""
        if not owners_of_event:
            owners_of_event.update(
                Character.objects.filter(pk__in=event.character_ids).values_list("pk", "owner_id")
            )
        return owners_of_event

    views: dict[int, Seen | None] = dict.fromkeys(user_ids)
    for user_id, membership in members.items():
        if told_by_event(membership):
            views[user_id] = Seen(
                membership, dict.fromkeys(event.character_ids), event.campaign_changed
            )
            continue
        seen = [e for e in entries if sees_entry(membership, e)]
        owners = {e.character_id: e.owner_id for e in seen if e.character_id is not None}
        # Entries of the campaign itself have no character: the viewer may see one of them.
        of_campaign = any(e.character_id is None for e in seen)
        if of_campaign and event.character_ids:
            # A fight's turn moves seats that no entry names (play/services/,
            # _seats_moved): the viewer's own characters among the event's are theirs.
            owners.update((pk, o) for pk, o in event_owners().items() if o == user_id)
        sealed = tuple((e.id, e.commitment) for e in seen if is_sealed(e))
        steps = any(e.field == PROPOSAL_FIELD for e in seen)
        views[user_id] = Seen(membership, owners, of_campaign, sealed, steps)
    return views


def _change(event: live.Event, seen: Seen, shown: Shown) -> Change:
    """The change as this viewer's stream announces it: with the cards of those characters
    that the page shows and the viewer may see in full."""
    # can_see_full_sheet needs only the owner: an unsaved row carries it.
    cards = (
        pk
        for pk, owner_id in seen.owners.items()
        if pk in shown.cards and can_see_full_sheet(seen.membership, Character(owner_id=owner_id))
    )
    # A player's home: the rows of the characters the event names (drawn once for all its
    # viewers); any other (a batch too large to name them) refetches the lists.
    rows = ()
    if shown.rows and not seen.membership.is_gm:
        rows = tuple(sorted(pk for pk in seen.owners if pk in event.character_ids))
    return Change(
        event.log_id,
        tuple(sorted(seen.owners)),
        tuple(sorted(cards)),
        seen.campaign,
        seen.sealed,
        rows=rows,
        proposals=seen.proposals,
        parts=_parts(seen, shown),
    )


def _parts(seen: Seen, shown: Shown) -> tuple[str, ...]:
    """The page's parts pushed with this change, those the page would refetch for it
    (static/live.js): a GM's log on every change they are told of, their clock bar and fight
    section when the campaign changed; a player's fight strip when the campaign changed. A GM's
    parts go only to a GM who sees every entry (drawn once for all of them), the strip only to
    a player."""
    if not shown.parts or not (seen.owners or seen.campaign):
        return ()
    membership = seen.membership
    # A sheet's feed when the change names its character for this viewer, who may see the
    # whole sheet (the feed's own URL asks the same: play/player.py character_feed).
    feed = ()
    named = FEED in shown.parts and shown.feed in seen.owners
    if named and can_see_full_sheet(membership, Character(owner_id=seen.owners[shown.feed])):
        feed = (FEED,)
    if membership.is_gm:
        if not sees_every_entry(membership):
            return ()
        wanted = [LOG] + ([PARTY_BAR, FIGHT_PART] if seen.campaign else [])
        return tuple(part for part in wanted if part in shown.parts) + feed
    if seen.campaign and FIGHT_STRIP in shown.parts and shown.strip:
        return (FIGHT_STRIP, *feed)
    return feed


def _visible_change(event: live.Event, user_id: int, shown: Shown):
    """The batch ending at `event.log_id` as this user may see it now, and their membership;
    None if they are no longer a member. (One viewer's `_event_views`, for tests.)"""
    seen = _event_views(event, frozenset({user_id}))[user_id]
    return None if seen is None else (_change(event, seen, shown), seen.membership)


def _event_rows(event: live.Event) -> tuple[Campaign, dict[int, Character]]:
    """The campaign as read after the event, and the rows of the characters the event names
    with what their cards and rows read (conditions, sequels, requests): read once per event for
    every stream of this process. The pushed cards, the home's rows and the GM's parts are drawn
    from them; nothing drawing them writes to them."""
    campaign = Campaign.objects.get(pk=event.campaign_id)
    if not event.character_ids:
        return campaign, {}
    rows = characters_for_cards(campaign).filter(pk__in=event.character_ids)
    return campaign, {row.pk: row for row in rows}


async def event_rows(event: live.Event) -> tuple[Campaign, dict[int, Character]]:
    return await _once((event.campaign_id, event.log_id, "rows"), _event_rows, event)


def _cards_message(membership: Membership, change: Change, shown: Shown, drawn=None):
    """The HTML of the cards `change` announced, rendered for this member from the event's rows
    (`drawn`); a card the event does not name (a batch too large to name them) reads its row."""
    campaign, drawn = membership.campaign, drawn or {}
    rows = [drawn[pk] for pk in change.cards if pk in drawn]
    missing = [pk for pk in change.cards if pk not in drawn]
    if missing:
        rows += characters_for_cards(campaign).filter(pk__in=missing)
    view = shown.view if membership.is_gm else CARDS
    set_script_prefix(shown.script_prefix)  # the cards' links, as the page has them
    with translation.override(shown.language):
        html = {
            character.pk: card_html(
                character, campaign=campaign, membership=membership, oob=True, view=view
            )
            for character in rows
        }
    return CardsMessage(change.log_id, html)


def _home_rows(state, language: str, script_prefix: str) -> dict:
    """The rows of the event's characters on a player's home, drawn once for every home of
    this process from the event's rows (`state`): character id -> (owner id, the row of its
    owner's list or None, the row any other player sees in the party or None: NPCs are not shown
    there)."""
    campaign, rows = state
    set_script_prefix(script_prefix)  # the rows' links, as the page has them
    found = {}
    with translation.override(language):
        for row in rows.values():
            own = party = None
            if row.owner_id is not None:
                context = {"campaign": campaign, "character": row}
                own = render_to_string("play/player_home.html#own-row", context)
            if row.kind == "pc":
                context = {"member": party_member(row, campaign)}
                party = render_to_string("play/player_home.html#party-row", context)
            found[row.pk] = (row.owner_id, own, party)
    return found


def _rows_for(change: Change, user_id: int, drawn: dict) -> RowsMessage:
    """This player's rows among those drawn: their own characters' from their list, the
    others' from the party."""
    html = {}
    for pk in change.rows:
        if pk not in drawn:
            continue  # gone: the page finds no row, and refetches its lists
        owner_id, own, party = drawn[pk]
        row = own if owner_id == user_id else party
        if row is not None:
            html[pk] = row.strip()
    return RowsMessage(change.log_id, html)


def _gm_parts(campaign: Campaign, membership: Membership, names, language, script_prefix):
    """A GM's parts `names` as the dashboard's GET aimed at each draws it (play/views.py
    dashboard_response), drawn once per event for every GM's page of this process: a GM who
    sees every entry sees the same log as any other. `campaign`: as read after the event."""
    membership = replace_campaign(membership, campaign)
    set_script_prefix(script_prefix)
    found = {}
    with translation.override(language):
        for name in names:
            template, context = gm_part(name, campaign, membership)
            context["csrf_token"] = CSRF_PLACEHOLDER
            found[name] = render_to_string(template, context).strip()
    return found


def replace_campaign(membership: Membership, campaign: Campaign) -> Membership:
    """A copy of `membership` holding `campaign` as read now (the parts show it after the
    change)."""
    found = copy.copy(membership)  # its own cache of relations (Model.__getstate__)
    found.campaign = campaign
    return found


def _fight_now(campaign: Campaign, language: str):
    """The running fight of `campaign` as read after the event (None: none), once per event."""
    with translation.override(language):  # the combatants' conditions are named
        return fight_view(campaign)


def _strip_html(campaign, strip: FightStrip, page: str, language: str, script_prefix: str):
    """A player's fight strip as their page's GET aimed at it draws it (play/_fight_strip.html):
    one drawing for every player whose strip shows none of their own combatants."""
    set_script_prefix(script_prefix)
    with translation.override(language):
        next_path = (
            reverse("campaign", args=[campaign.pk])
            if page == HOME_STRIP
            else reverse("character", args=[campaign.pk, int(page)])
        )
        context = {
            "campaign": campaign,
            "fight_strip": strip,
            "csrf_token": CSRF_PLACEHOLDER,
            "next_path": next_path,
        }
        return render_to_string("play/_fight_strip.html", context).strip()


def _log_check(event: live.Event) -> tuple[str, str] | None:
    """What every open page asks after each change (journal.views.history_seal, static/live.js):
    does the log extend the seal it kept? Its pages keep the seal of the log before this batch,
    which they were told with the change before: checked here once per process for them all
    (journal.audit.check_from: check_seal's check, the entry before the batch read once), and
    told with the change as (that seal, the seal now). None when the log does not extend it, or
    the batch is gone: the pages then ask, and are told what is wrong."""
    campaign_id = event.campaign_id
    batch = AuditEntry.objects.filter(pk=event.log_id, campaign_id=campaign_id).values("batch")
    first = (
        AuditEntry.objects.filter(campaign_id=campaign_id, batch__in=batch)
        .order_by("id")
        .values_list("id", "seq")
        .first()
    )
    if first is None:
        return None
    head = None
    if first[1] > 1:
        head = (
            AuditEntry.objects.filter(campaign_id=campaign_id, id__lt=first[0])
            .order_by("-id")
            .first()
        )
        if head is None:
            return None
    check = check_from(campaign_id, head)
    return (str(check.seal), str(check.current)) if check.extends else None


# One read per event, viewer and kind of page in this process, however many streams that viewer
# has open (a GM with the dashboard in three tabs, or the benchmark's hundreds of clients).
_memo: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, OrderedDict] = (
    weakref.WeakKeyDictionary()
)
_MEMO_SIZE = 512


def _shared(key, function, *args) -> asyncio.Future:
    """`read(function, *args)` started once for every stream of this process asking for
    `key`."""
    memo = _memo.setdefault(asyncio.get_running_loop(), OrderedDict())
    future = memo.get(key)
    if future is None:
        future = memo[key] = asyncio.ensure_future(read(function, *args))
        while len(memo) > _MEMO_SIZE:
            memo.popitem(last=False)
    return future


async def _once(key, function, *args):
    """`read(function, *args)`, shared by every stream of this process asking for `key`."""
    return await asyncio.shield(_shared(key, function, *args))


# Who streams each campaign in this process: user id -> open streams. An event's one read
# covers them all.
_viewers: dict[int, dict[int, int]] = {}


def _watch(campaign_id: int, user_id: int, step: int) -> None:
    viewers = _viewers.setdefault(campaign_id, {})
    viewers[user_id] = viewers.get(user_id, 0) + step
    if viewers[user_id] <= 0:
        del viewers[user_id]
        if not viewers:
            del _viewers[campaign_id]


async def visible_change(event: live.Event, user_id: int, shown: Shown):
    """This viewer's change and membership (None: no longer a member). The event is read once
    per process for every viewer of its campaign, whatever the number of their streams."""
    viewers = frozenset(_viewers.get(event.campaign_id, ())) | {user_id}
    # The log's check runs beside the event's read, on another reader thread.
    checked = _shared((event.campaign_id, event.log_id, "log seal"), _log_check, event)
    views = await _once((event.campaign_id, event.log_id), _event_views, event, viewers)
    if user_id not in views:  # a stream opened after the read began: its own read
        key = (event.campaign_id, event.log_id, user_id)
        views = await _once(key, _event_views, event, frozenset({user_id}))
    seen = views[user_id]
    if seen is None:
        return None
    change = _change(event, seen, shown)
    if change.anything:
        try:
            log_seal = await asyncio.shield(checked)
        except (OperationalError, InterfaceError):
            log_seal = None  # the pages ask, as they did before
        change = replace(change, log_seal=log_seal)
    return change, seen.membership


async def rows_message(event: live.Event, user_id: int, shown: Shown, change) -> RowsMessage:
    await asyncio.sleep(0)  # as for the cards: every stream announces the change first
    key = (event.campaign_id, event.log_id, shown.language, shown.script_prefix, "rows")
    state = await event_rows(event)
    drawn = await _once(key, _home_rows, state, shown.language, shown.script_prefix)
    return _rows_for(change, user_id, drawn)


def _feed_html(membership: Membership, character_id: int, language: str, script_prefix: str):
    """A sheet's feed as its own URL draws it for this viewer (play/player.py character_feed),
    or None when they may not see that sheet (then it is not sent: the page refetches it)."""
    character = (
        Character.objects.filter(campaign_id=membership.campaign_id, pk=character_id)
        .only("pk", "owner_id")
        .first()
    )
    if character is None or not can_see_full_sheet(membership, character):
        return None
    set_script_prefix(script_prefix)
    with translation.override(language):  # the entries' texts are in the page's language
        context = {
            "campaign": membership.campaign,
            "membership": membership,
            "character": character,
            "feed": feed_of(membership, character),
        }
        return render_to_string("play/sheet.html#feed", context).strip()


async def parts_message(event: live.Event, shown: Shown, change, membership) -> PartsMessage:
    """The parts `change` announced, each drawn once per event for every viewer who sees it
    the same: the GM's parts for every GM, the fight strip for every player whose strip shows
    the same combatants of theirs on the same page (none of them, mostly: one drawing)."""
    await asyncio.sleep(0)  # as for the cards: every stream announces the change first
    html: dict[str, str] = {}
    where = (event.campaign_id, event.log_id, shown.language, shown.script_prefix)
    gm = tuple(part for part in change.parts if part in GM_PARTS)
    if gm or FIGHT_STRIP in change.parts:  # drawn from the campaign as read after the event
        campaign, _ = await event_rows(event)
    if gm:
        args = (campaign, membership, gm, shown.language, shown.script_prefix)
        html.update(await _once((*where, "gm parts", gm), _gm_parts, *args))
    if FIGHT_STRIP in change.parts:
        key = (*where, "fight")
        fight = await _once(key, _fight_now, campaign, shown.language)
        mine = []
        if fight is not None:
            wanted = None if shown.strip == HOME_STRIP else int(shown.strip)
            # As selectors.fight_strip: the viewer's own combatants (on a sheet, its character).
            member = replace_campaign(membership, campaign)
            mine = [
                (c, can_roll_for(member, c.character))
                for c in fight.combatants
                if c.character.owner_id == membership.user_id
                and (wanted is None or c.character.pk == wanted)
            ]
        strip = FightStrip(fight=fight, mine=mine)
        # Without combatants of their own the strip holds no form: the same for every page.
        seats = tuple((c.character.pk, may) for c, may in mine)
        key = (*where, "fight strip", seats, shown.strip if mine else "")
        args = (campaign, strip, shown.strip, shown.language, shown.script_prefix)
        html[FIGHT_STRIP] = await _once(key, _strip_html, *args)
    if FEED in change.parts:
        # What a feed shows depends on its viewer (their visibility, their own doings): drawn
        # for each player, once for every GM (a GM sees every entry, and does nothing "own").
        viewer = "gm" if sees_every_entry(membership) else membership.user_id
        key = (*where, FEED, shown.feed, viewer)
        args = (membership, shown.feed, shown.language, shown.script_prefix)
        found = await _once(key, _feed_html, *args)
        if found is not None:
            html[FEED] = found
    return PartsMessage(change.log_id, html)


async def cards_message(event: live.Event, user_id: int, shown: Shown, change, membership):
    # Every stream of this process announces the change first: rendering holds the GIL for
    # milliseconds, and the streams woken with this one are queued behind it by now.
    await asyncio.sleep(0)
    _, drawn = await event_rows(event)
    key = (event.campaign_id, event.log_id, user_id, shown, "cards")
    return await _once(key, _cards_message, membership, change, shown, drawn)


# ---------------------------------------------------------------------------------------------
# The guard: streams end at logout, at the session's expiry, at removal from the campaign


@dataclass(eq=False)
class Watch:
    """One open stream, as the guard sees it. `session_key` None: a stream opened without a
    session (tests): only its membership is checked."""

    campaign_id: int
    user_id: int
    session_key: str | None
    queue: asyncio.Queue
    # Set from another thread (a logout in this process, `end_session_streams`): read by the
    # stream before it sends anything more, whatever waits in its queue.
    ended: End | None = None


def _session_state(watches: list[Watch]) -> dict[str, End]:
    """Why each of these sessions no longer holds its stream's viewer, by session key (those
    that still hold are left out)."""
    engine = import_module(settings.SESSION_ENGINE)
    keys = {w.session_key: w.user_id for w in watches if w.session_key}
    if not keys:
        return {}
    store_class = engine.SessionStore
    sessions: dict[str, dict] = {}
    ended: dict[str, End] = {}
    if issubclass(store_class, DatabaseSessionStore):
        # Every session in one query: those gone were logged out (or cleared).
        now = timezone.now()
        rows = store_class.get_model_class().objects.filter(session_key__in=list(keys))
        decoder = store_class()
        for key, data, expires in rows.values_list("session_key", "session_data", "expire_date"):
            if expires <= now:
                ended[key] = EXPIRED
            else:
                sessions[key] = decoder.decode(data)
    else:
        for key in keys:
            data = store_class(session_key=key).load()  # {} once gone or expired
            if data:
                sessions[key] = data
    users = {
        user.pk: user
        for user in get_user_model()._default_manager.filter(
            pk__in=set(keys.values()), is_active=True
        )
    }
    for key, user_id in keys.items():
        if key in ended:
            continue
        data, user = sessions.get(key), users.get(user_id)
        if data is None or user is None or str(data.get(SESSION_KEY)) != str(user_id):
            ended[key] = LOGOUT
            continue
        # The session's hash follows the password: changing it elsewhere ends this session.
        given = data.get(HASH_SESSION_KEY) or ""
        hashes = [user.get_session_auth_hash(), *user.get_session_auth_fallback_hash()]
        if not any(constant_time_compare(given, h) for h in hashes):
            ended[key] = LOGOUT
    return ended


def _ended(watches: list[Watch]) -> list[tuple[Watch, End]]:
    """The streams among `watches` that must end, and why."""
    sessions = _session_state(watches)
    pairs = {(w.campaign_id, w.user_id) for w in watches}
    members = set(
        Membership.objects.filter(
            campaign_id__in={c for c, _ in pairs}, user_id__in={u for _, u in pairs}
        ).values_list("campaign_id", "user_id")
    )
    found = []
    for watch in watches:
        if watch.session_key in sessions:
            found.append((watch, sessions[watch.session_key]))
        elif (watch.campaign_id, watch.user_id) not in members:
            found.append((watch, REMOVED))
    return found


class Guard:
    """This event loop's open streams: counted per account, checked every GUARD_EVERY
    seconds while any is open."""

    def __init__(self) -> None:
        self.watches: set[Watch] = set()
        self.task: asyncio.Task | None = None

    def count(self, user_id: int) -> int:
        return sum(1 for w in self.watches if w.user_id == user_id)

    def add(self, watch: Watch) -> None:
        with _watches_lock:
            self.watches.add(watch)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(
                self._run(), name="chroniqueur-live-guard"
            )

    def remove(self, watch: Watch) -> None:
        with _watches_lock:
            self.watches.discard(watch)
        if not self.watches and self.task is not None:
            self.task.cancel()
            self.task = None

    async def _run(self) -> None:
        while self.watches:
            await asyncio.sleep(GUARD_EVERY)
            watches = list(self.watches)
            if not watches:
                break
            try:
                found = await read(_ended, watches)
            except (OperationalError, InterfaceError):
                continue  # the database is away: the next round checks again
            for watch, end in found:
                watch.queue.put_nowait(end)


_guards: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Guard] = weakref.WeakKeyDictionary()
# The guards and their watches are changed on their loops and read by a logout's thread.
_watches_lock = threading.Lock()


def guard() -> Guard:
    loop = asyncio.get_running_loop()
    with _watches_lock:
        found = _guards.get(loop)
        if found is None:
            found = _guards[loop] = Guard()
    return found


def end_session_streams(session_key: str | None, end: End = LOGOUT) -> int:
    """End at once this process's streams of a session (a logout: django's user_logged_out,
    live/apps.py), before anything more is sent down them; the guard's round every
    GUARD_EVERY seconds stays for the sessions ended in other processes. Called from any
    thread; returns how many streams were told."""
    if not session_key:
        return 0
    with _watches_lock:
        found = [
            (loop, watch)
            for loop, streams in _guards.items()
            for watch in streams.watches
            if watch.session_key == session_key
        ]
    for loop, watch in found:
        watch.ended = end
        if not loop.is_closed():
            # Wakes a stream waiting on its queue (a heartbeat's wait, an idle stream).
            loop.call_soon_threadsafe(watch.queue.put_nowait, end)
    return len(found)


def _still_member(campaign_id: int, user_id: int) -> Membership | None:
    return (
        Membership.objects.select_related("campaign")
        .filter(campaign_id=campaign_id, user_id=user_id)
        .first()
    )


# ---------------------------------------------------------------------------------------------
# The stream


def release_request_thread() -> None:
    """Let go of the thread Django keeps for this request, for the stream's whole life.

    Under ASGI each request runs its synchronous parts (the middleware chain, the session) on
    a thread of its own (asgiref's ThreadSensitiveContext), kept until the response ends: for
    a stream, hours, so 500 open streams held 500 idle threads. Once the body starts nothing
    needs it (the stream reads on the shared reader threads); a later synchronous call of this
    request gets a new one, joined when the request ends.
    """
    context = SyncToAsync.thread_sensitive_context.get(None)
    if context is None or getattr(context, "_executor", None) is not None:
        return  # no per-request thread here, or one its owner keeps
    executor = SyncToAsync.context_to_thread_executor.pop(context, None)
    if executor is not None:
        executor.shutdown(wait=False)


async def change_stream(
    membership: Membership,
    after: int | None,
    *,
    shown: Shown = NOTHING_SHOWN,
    token_input: str = "",
    token: str = "",
    heartbeat: float = HEARTBEAT,
    session_key: str | None = None,
) -> AsyncIterator[bytes]:
    """The SSE body: what was missed after `after` (None: nothing), then live changes, with
    the cards `shown` says the page shows (`token_input`: this viewer's CSRF field for them),
    until the viewer's session (`session_key`) or membership ends (an `end` message); `token`:
    the CSRF token of the pushed parts' forms."""
    release_request_thread()
    campaign_id, user_id = membership.campaign_id, membership.user_id
    streams = guard()
    if streams.count(user_id) >= STREAMS_PER_ACCOUNT:
        yield f"retry: {RETRY_MS}\n: busy\n\n".encode() + BUSY.sse
        return
    queue = await live.subscribe(campaign_id)
    watch = Watch(campaign_id, user_id, session_key, queue)
    streams.add(watch)
    _watch(campaign_id, user_id, 1)
    try:
        if after is None:
            changes, position = [], await read(log_head, campaign_id)
        else:
            changes, position = await read(missed_changes, membership, after)
            position = max(position, after)
        # The first bytes tell the client (and the tests) that the stream is live.
        yield f"retry: {RETRY_MS}\n: live\n\n".encode()
        for change in changes:
            yield change.sse
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), heartbeat)
            except TimeoutError:
                yield b": heartbeat\n\n"
                continue
            if isinstance(item, End) or watch.ended is not None:
                yield (watch.ended or item).sse
                return
            if item is live.RESYNC:
                # Read as a member now, or not at all.
                membership = await read(_still_member, campaign_id, user_id)
                if membership is None:
                    yield REMOVED.sse
                    return
                changes, head = await read(missed_changes, membership, position)
                for change in changes:
                    yield change.sse
                position = max(position, head)
                continue
            if item.log_id <= position:
                continue  # already read from the log
            seen = await visible_change(item, user_id, shown)
            if watch.ended is not None:  # logged out while the change was read
                yield watch.ended.sse
                return
            if seen is None:
                yield REMOVED.sse  # nothing more for them
                return
            change, member = seen
            position = item.log_id
            if change.anything:
                yield change.sse
            if change.cards:
                message = await cards_message(item, user_id, shown, change, member)
                if watch.ended is not None:  # logged out while the cards were drawn
                    yield watch.ended.sse
                    return
                yield message.sse(token_input)
            if change.rows:
                try:
                    rows = await rows_message(item, user_id, shown, change)
                except (OperationalError, InterfaceError):
                    rows = None  # the page refetches its lists when they do not come
                if watch.ended is not None:  # logged out while the rows were drawn
                    yield watch.ended.sse
                    return
                if rows is not None:
                    yield rows.sse
            if change.parts:
                try:
                    message = await parts_message(item, shown, change, member)
                except (OperationalError, InterfaceError):
                    continue  # no parts: the page refetches them when they do not come
                if watch.ended is not None:  # logged out while the parts were drawn
                    yield watch.ended.sse
                    return
                yield message.sse(token)
    finally:
        streams.remove(watch)
        _watch(campaign_id, user_id, -1)
        live.unsubscribe(campaign_id, queue)


def _parse_id(value) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number >= 0 else None


def _after(request) -> int | None:
    """Where the client is: EventSource's Last-Event-ID on a reconnection, else the id the
    page was rendered at (`?after=`)."""
    last = _parse_id(request.headers.get("Last-Event-ID"))
    return last if last is not None else _parse_id(request.GET.get("after"))


def _shown(request) -> Shown:
    """What the page shows (`?cards=3,9`: its cards; `?view=compact`: as the compact
    dashboard's rows), in which language, under which prefix. Anything that is not an id is
    ignored: this only saves refetches."""
    ids = (_parse_id(part) for part in request.GET.get("cards", "").split(",")[:MAX_CARDS])
    strip = request.GET.get("strip", "")
    if strip != HOME_STRIP and _parse_id(strip) is None:
        strip = ""
    return Shown(
        cards=frozenset(i for i in ids if i is not None),
        language=get_language(),
        script_prefix=get_script_prefix(),
        view=shown_view(request.GET.get("view")),
        rows=request.GET.get("rows") == "1",
        parts=frozenset(request.GET.get("parts", "").split(",")) & PARTS,
        strip=str(_parse_id(strip)) if strip and strip != HOME_STRIP else strip,
        feed=_parse_id(request.GET.get("feed")),
    )


def holds_streams(request) -> bool:
    """Whether this server can keep streams open: under ASGI an idle stream holds no thread; a
    WSGI server would hold one per stream, forever. Pages served otherwise poll from the start
    (live_tags.live_stream_url)."""
    return isinstance(request, ASGIRequest)


def _viewer(request, campaign_id: int) -> Membership | None:
    """The member this stream is for (None: not logged in, or not a member), read in one go
    on the request's thread, whose connection then goes back at once: the stream outlives it
    (its reads go through the shared reader threads)."""
    try:
        if not request.user.is_authenticated:
            return None
        return (
            Membership.objects.select_related("campaign")
            .filter(campaign_id=campaign_id, user=request.user)
            .first()
        )
    finally:
        connections.close_all()


# Streams opening at once (every phone reconnecting after a restart) read their viewer a few at
# a time: they never hold more than OPENING_SLOTS + READ_THREADS of the pool's connections,
# and the GM's actions find theirs (tests/live/test_storm.py).
OPENING_SLOTS = 3
_opening: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


def _opening_slots() -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    found = _opening.get(loop)
    if found is None:
        found = _opening[loop] = asyncio.Semaphore(OPENING_SLOTS)
    return found


@require_GET
async def events(request, campaign_id: int):
    async with _opening_slots():
        membership = await sync_to_async(_viewer)(request, campaign_id)
    if membership is None:
        raise Http404
    if not holds_streams(request):
        # A page of this server does not ask (it polls); anything else is told to stop (204
        # ends an EventSource for good).
        return HttpResponse(status=204)
    token = get_token(request)
    stream = change_stream(
        membership,
        _after(request),
        shown=_shown(request),
        token_input=csrf_input(token),
        token=token,
        session_key=request.session.session_key,
    )
    response = StreamingHttpResponse(stream, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: do not buffer the stream
    return response


@login_required
@require_GET
def poll(request, campaign_id: int):
    """The fallback when the stream keeps failing: the same changes, as JSON, on request."""
    membership = get_membership(request, campaign_id)
    after = _parse_id(request.GET.get("after"))
    if after is None:
        return JsonResponse({"changes": [], "last_id": None})
    changes, _ = missed_changes(membership, after)
    # Only ids the viewer was shown: the next poll re-reads past what they may not see.
    last_id = changes[-1].log_id if changes else after
    response = JsonResponse({"changes": [c.as_dict() for c in changes], "last_id": last_id})
    response["Cache-Control"] = "no-cache"
    return response
