"""Open pages as a browser runs them: the stream, and what static/live.js (and feed.js) fetch
on each event, with the same headers htmx sends.

A bare SSE client flatters the server: a real page, told that characters changed, waits for
the cards the stream pushes and refetches every other part it shows through the viewer's
permissions (ids-only events), and checks the log's seal 600 ms later. `Page` loads the real
page once, notes which of those parts it has (their ids), opens the stream with the address
live.js builds, and on each `change` makes the requests live.js would make for that page:

- the GM's dashboard: the pushed cards (a card not pushed refetches its own partial), the log
  (#roll-log) when the event is newer than it (the answer to the GM's action brings the log:
  `answered`, bench/tables.py), the clock bar and the fight (#party-bar,
  #fight) when the campaign itself changed;
- a player's sheet: its pushed card, the feed (feed.js) when the event names its character
  and is newer than it, the fight strip when the campaign changed, the owner's proposals
  (#proposals-<id>) when their character changed, unless the change says it holds no step of
  a proposal (`proposals: false`);
- a player's home (the party's rows): the rows the stream pushes (`rows`, asked with `rows=1`
  by the served live.js), or its two lists (#own-characters, answered with #party-members)
  when a change is not covered by them; the fight strip when the campaign changed;
- the parts the stream pushes instead (`parts`, asked with `parts=…&strip=…` by a served
  live.js that knows them): the log, clock bar, fight section and fight strip named in a
  change are not refetched, the page waits for their message;
- every page: the seal check (`data-seal`) 600 ms after a change, one at a time, unless the
  change brought it (`log_seal`, from the seal the page kept).

A page is "shown" at an event once the announced cards came and every refetch it made for that
event answered: `shown[log_id]`, the client's clock. Statuses other than 200 are errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import html as html_lib
import json
import re
import time

from bench.lib.http import EventStream, open_event_stream, read_body, read_head, request

SEAL_DELAY = 0.6  # static/live.js CHECK_AFTER_CHANGE_MS
IDS = re.compile(r'\bid="([^"]+)"')
# The parts the stream may push with a change (live/stream.py PARTS, static/live.js).
PUSHED_PARTS = ("roll-log", "party-bar", "fight", "fight-strip", "feed")
TAG_WITH_ID = re.compile(r'<[^>]*\bid="(character-\d+)"[^>]*>', re.S)


def attribute(html: str, element_id: str, name: str) -> str | None:
    """The value of attribute `name` on the tag with id `element_id` (or on #live's tag)."""
    match = re.search(r'<[^>]*\bid="' + re.escape(element_id) + r'"[^>]*>', html, re.S)
    if not match:
        return None
    found = re.search(r"\b" + re.escape(name) + r'="([^"]*)"', match.group(0))
    return html_lib.unescape(found.group(1)) if found else None


async def get(port: int, path: str, cookie: str, headers: dict[str, str]) -> tuple[int, bytes]:
    """One GET on a new connection: (status, body)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        writer.write(request("GET", path, port, cookie, extra))
        status, head = await read_head(reader)
        return status, await read_body(reader, head)
    finally:
        writer.close()


class Page:
    """One open page: `kind` is "dashboard", "sheet" or "home" (for the figures only: what it
    fetches follows from the ids the real page has)."""

    def __init__(self, port: int, cookie: str, path: str, kind: str):
        self.port, self.cookie, self.path, self.kind = port, cookie, path, kind
        self.received: dict[int, float] = {}  # log id -> when its `change` arrived
        self.shown: dict[int, float] = {}  # log id -> when the page showed it all
        self.gets: dict[str, int] = {}  # what was refetched, by kind of part
        self.errors: list[str] = []
        self.ended = False
        self.parser = EventStream()
        self.waiting_cards: list[tuple[int, float, list]] = []  # (log id, when, refetches)
        self.waiting_parts: list[asyncio.Future] = []  # the changes whose parts are awaited
        self.seal_timer: asyncio.Task | None = None
        self.seal = ""
        self.feed_busy = False
        self.feed_again = False
        self.tasks: set[asyncio.Task] = set()

    # --- Loading: the page as a browser gets it --------------------------------------------
    async def load(self) -> None:
        status, body = await get(self.port, self.path, self.cookie, {})
        if status != 200:
            raise RuntimeError(f"{self.path}: HTTP {status}")
        page = body.decode()
        self.ids = set(IDS.findall(page))
        # The cards live.js names in its stream's address: those with their own partial's
        # address (data-src; hx-get before static/panels.js), which it refetches from.
        self.cards = [
            int(m.group(1).split("-")[1])
            for m in TAG_WITH_ID.finditer(page)
            if "data-src=" in m.group(0) or "hx-get=" in m.group(0)
        ]
        self.card_urls = {
            pk: attribute(page, f"character-{pk}", "data-src")
            or attribute(page, f"character-{pk}", "hx-get")
            for pk in self.cards
        }
        self.view = ""
        found = re.search(r'data-dashboard-view="([^"]*)"', page)
        if found:
            self.view = found.group(1)
        self.log_shown = int(attribute(page, "roll-log", "data-log-id") or 0)
        self.feed_url = attribute(page, "feed", "data-url")
        self.feed_newest = int(attribute(page, "feed", "data-log-id") or 0)
        self.feed_character = int(attribute(page, "feed", "data-character") or 0) or None
        self.seal_url = attribute(page, "live", "data-seal")
        query = []
        if self.cards:
            query.append("cards=" + ",".join(map(str, self.cards)))
        if self.view:
            query.append(f"view={self.view}")
        after = attribute(page, "live", "data-after")
        if after:
            query.append(f"after={after}")
        stream = attribute(page, "live", "data-stream")
        if not stream:
            raise RuntimeError(f"{self.path}: the page has no stream")
        self.stream_path = stream + ("?" + "&".join(query) if query else "")
        self.home_lists = await self.home_lists_of(page)
        if "own-characters" in self.ids and self.pushes_rows:
            query.insert(0, "rows=1")
            self.stream_path = stream + "?" + "&".join(query)
        if self.pushes_parts:  # the parts it shows that the stream may push, as live.js asks
            parts = [p for p in PUSHED_PARTS if p in self.ids]
            strip = ""
            if "fight-strip" in self.ids:
                strip = "home" if "own-characters" in self.ids else str(next(iter(self.cards), ""))
            extra = (["parts=" + ",".join(parts)] if parts else []) + (
                [f"strip={strip}"] * bool(strip)
            )
            if self.feed_character and "feed" in parts:
                extra.append(f"feed={self.feed_character}")
            if extra:
                self.stream_path += ("&" if "?" in self.stream_path else "?") + "&".join(extra)
        if self.seal_url:
            await self.check_seal()  # live.js checks once on load

    _scripts: dict[str, tuple[list[str], bool, bool]] = {}
    pushes_rows = False
    pushes_parts = False

    async def home_lists_of(self, page: str) -> list[str]:
        """The parts a player's home refetches on a change, as the served static/live.js
        asks for them: both lists, or the own list alone (its answer brings the party's)."""
        found = re.search(r'src="([^"]*/live(?:\.[0-9a-f]+)?\.js)"', page)
        if not found:
            return ["own-characters", "party-members"]
        url = found.group(1)
        if url not in Page._scripts:
            _, script = await get(self.port, url, self.cookie, {})
            both = b'refetchPart("party-members")' in script
            lists = ["own-characters", "party-members"] if both else ["own-characters"]
            Page._scripts[url] = (lists, b'"rows=1"' in script, b'"parts="' in script)
        lists, self.pushes_rows, self.pushes_parts = Page._scripts[url]
        return lists

    def headers(self, target: str | None = None, trigger: str | None = None) -> dict:
        found = {
            "HX-Request": "true",
            "HX-Current-URL": f"http://127.0.0.1:{self.port}{self.path}",
        }
        if target:
            found["HX-Target"] = target
        if trigger:
            found["HX-Trigger"] = trigger
        if self.view:  # live.js names the dashboard's view in every htmx request
            found["X-Dashboard-View"] = self.view
        return found

    async def fetch(self, what: str, path: str, headers: dict) -> bytes:
        self.gets[what] = self.gets.get(what, 0) + 1
        try:
            status, body = await get(self.port, path, self.cookie, headers)
        except (OSError, asyncio.IncompleteReadError) as error:
            self.errors.append(f"GET {what} {path}: {error!r}")
            return b""
        if status != 200:
            self.errors.append(f"GET {what} {path}: HTTP {status}")
        return body

    def answered(self, html: str) -> None:
        """The answer to an action posted from this page, swapped in: the log it brings."""
        shown = attribute(html, "roll-log", "data-log-id")
        if shown:
            self.log_shown = max(self.log_shown, int(shown))

    # --- The stream -------------------------------------------------------------------------
    async def connect(self) -> None:
        await self.load()
        _, self.writer, body = await open_event_stream(self.port, self.stream_path, self.cookie)
        live = False
        while not live:  # the stream's first bytes: `: live`
            live = any("live" in e["comments"] for e in self.parser.feed(await anext(body)))
        self.task = asyncio.create_task(self.listen(body))

    async def listen(self, body) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            async for data in body:
                now = time.perf_counter()
                for event in self.parser.feed(data):
                    if event["event"] == "change" and event["id"] is not None:
                        log_id = int(event["id"])
                        self.received.setdefault(log_id, now)
                        self.changed(log_id, json.loads(event["data"]))
                    elif event["event"] in ("cards", "rows"):
                        self.cards_came(now)
                    elif event["event"] == "parts":
                        self.parts_came(now)
                    elif event["event"] == "end":
                        self.errors.append(f"stream ended: {event['data']}")
        self.ended = True

    def spawn(self, coroutine) -> asyncio.Task:
        task = asyncio.create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    # --- What static/live.js does with a change ---------------------------------------------
    def part(self, element_id: str) -> list:
        """refetchPart: this page again, for one element it has."""
        if element_id not in self.ids:
            return []
        what = re.sub(r"-\d+$", "", element_id)
        return [self.fetch(what, self.path, self.headers(element_id))]

    def refresh(self, pk: int) -> list:
        if "own-characters" in self.ids:
            return [get for part in self.home_lists for get in self.part(part)]
        found = []
        card = f"character-{pk}"
        if pk in self.card_urls:
            found.append(self.fetch("card", self.card_urls[pk], self.headers(card, card)))
        else:
            found += self.part(card)
        return found + self.part(f"party-{pk}") + self.part(f"own-{pk}")

    def changed(self, log_id: int, data: dict) -> None:
        started = time.perf_counter()
        characters, announced = data.get("characters", []), data.get("cards", [])
        gets: list = []
        rows = data.get("rows", [])
        if "own-characters" in self.ids:
            if any(pk not in rows for pk in characters):
                gets += self.refresh(characters[0])
        else:
            for pk in characters:
                if pk not in announced or f"character-{pk}" not in self.ids:
                    gets += self.refresh(pk)
                else:
                    gets += self.part(f"party-{pk}")
                if data.get("proposals") is not False:  # a step of a proposal, or not said
                    gets += self.part(f"proposals-{pk}")
        pushed = data.get("parts", [])

        def follow(element_id: str) -> list:
            return [] if element_id in pushed else self.part(element_id)

        if data.get("campaign"):
            gets += follow("party-bar") + follow("fight") + follow("fight-strip")
        if data.get("sealed"):
            gets += [p for pk in characters for p in self.part(f"sealed-rolls-{pk}")]
        if "roll-log" in self.ids and not self.log_shown >= log_id:
            self.log_shown = log_id
            gets += follow("roll-log")
        about = self.feed_character is None or self.feed_character in characters
        if self.feed_url and not self.feed_newest >= log_id and about and "feed" not in pushed:
            gets.append(self.refetch_feed(log_id))
        told = data.get("log_seal")
        if told and self.seal_timer is None and told.get("from") == self.seal:
            self.seal = told["to"]  # static/live.js: checked by the stream, nothing to ask
        elif self.seal_url and self.seal_timer is None:
            self.seal_timer = self.spawn(self.seal_soon())
        waits_cards = bool(announced) and any(f"character-{pk}" in self.ids for pk in announced)
        # A home waits for the rows the change announced (a row that moved lists would
        # refetch them: the bench's GM gives no character).
        waits_cards = waits_cards or ("own-characters" in self.ids and bool(rows))
        waits_parts = bool(pushed) and any(p in self.ids for p in pushed)
        self.spawn(self.settle(log_id, started, gets, waits_cards, waits_parts))

    async def settle(
        self, log_id: int, started: float, gets: list, waits_cards: bool, waits_parts: bool
    ) -> None:
        loop = asyncio.get_running_loop()
        came = loop.create_future() if waits_cards else None
        if came is not None:
            self.waiting_cards.append((log_id, started, came))
        parts = loop.create_future() if waits_parts else None
        if parts is not None:
            self.waiting_parts.append(parts)
        await asyncio.gather(*gets)
        for future in (came, parts):
            if future is not None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(future, 5)
        self.shown[log_id] = time.perf_counter()

    def parts_came(self, now: float) -> None:
        if self.waiting_parts:
            came = self.waiting_parts.pop(0)
            if not came.done():
                came.set_result(now)

    def cards_came(self, now: float) -> None:
        if self.waiting_cards:
            _, _, came = self.waiting_cards.pop(0)
            if not came.done():
                came.set_result(now)

    async def refetch_feed(self, log_id: int) -> None:
        """static/feed.js: one refetch at a time, one more if a change came meanwhile."""
        if self.feed_busy:
            self.feed_again = True
            return
        self.feed_busy = True
        try:
            while True:
                self.feed_again = False
                self.feed_newest = max(self.feed_newest, log_id)
                await self.fetch("feed", self.feed_url, self.headers("feed"))
                if not self.feed_again:
                    return
        finally:
            self.feed_busy = False

    async def seal_soon(self) -> None:
        await asyncio.sleep(SEAL_DELAY)
        self.seal_timer = None
        await self.check_seal()

    async def check_seal(self) -> None:
        path = self.seal_url + (f"?seal={self.seal}" if self.seal else "")
        body = await self.fetch("seal", path, {"Accept": "application/json"})
        with contextlib.suppress(ValueError):
            self.seal = json.loads(body or b"{}").get("seal", self.seal)

    def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        if hasattr(self, "task"):
            self.task.cancel()
            self.writer.close()
