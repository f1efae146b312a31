"""Several app hosts on one PostgreSQL: every stream on every process gets every event it may
see, and none it may not (README, "Several app hosts").

Three uvicorn processes stand for three hosts behind a load balancer: distinct processes, no
shared memory (each its own card cache and broadcaster), each with settings of its own (the
pool on or off; one with DATABASE_LISTEN_URL and DATABASE_BEHIND_PGBOUNCER, as behind
PgBouncer's transaction mode), and one LISTEN connection each. Streams of the GM, a player
and another player are open on each host, plus a stream of another campaign; the GM writes
through each host in turn. What each stream must receive is what journal.visibility lets that
viewer see of each batch, computed here from the log after the writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import time

import pytest
from django.db import connection

from bench.lib.http import EventStream, free_port, open_event_stream, post_form, wait_healthy
from bench.lib.server import session_cookie, stop, uvicorn, with_csrf
from campaign import services as campaign_services
from campaign.models import Membership
from journal.models import AuditEntry
from journal.visibility import visible_entries

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="several processes share events through PostgreSQL's NOTIFY",
    ),
]
WAIT = 15.0  # seconds every expected event may take to arrive
QUIET = 1.0  # seconds of silence after that: nothing unexpected follows


def database_url() -> str:
    db = connection.settings_dict  # the test database, which the hosts must use too
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or 'localhost'}{port}/{db['NAME']}"


def hosts_env(url: str, secret_key: str) -> list[dict]:
    common = {
        "DATABASE_URL": url,
        "DEBUG": "false",
        "SECRET_KEY": secret_key,  # one key for every host (and this test), as in a deployment
        "SECURE_SSL_REDIRECT": "false",
        "LOG_LEVEL": "WARNING",
    }
    base = {k: v for k, v in os.environ.items() if not k.startswith("DATABASE_")}
    return [
        {**base, **common, "DATABASE_POOL": "true"},
        {**base, **common, "DATABASE_POOL": "false", "CONN_MAX_AGE": "60"},
        {
            **base,
            **common,
            "DATABASE_POOL": "true",
            "DATABASE_BEHIND_PGBOUNCER": "true",
            "DATABASE_LISTEN_URL": url,
        },
    ]


@pytest.fixture
def hosts(settings):
    settings.SECRET_KEY = secrets.token_urlsafe(50)  # the sessions made here are the hosts'
    url = database_url()
    ports = [free_port() for _ in range(3)]
    envs = hosts_env(url, settings.SECRET_KEY)
    procs = [uvicorn(port, env) for port, env in zip(ports, envs, strict=True)]
    try:
        for port in ports:
            wait_healthy(port, timeout=60)
        yield ports
    finally:
        stop(procs)


class Stream:
    def __init__(self, port, cookie, campaign_id, who):
        self.port, self.cookie, self.campaign_id, self.who = port, cookie, campaign_id, who
        self.events: list[dict] = []
        self.parser = EventStream()

    async def open(self):
        path = f"/c/{self.campaign_id}/events/"
        _, self.writer, body = await open_event_stream(self.port, path, self.cookie)
        live = False
        while not live:
            live = any("live" in e["comments"] for e in self.parser.feed(await anext(body)))
        self.task = asyncio.create_task(self.listen(body))

    async def listen(self, body):
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            async for data in body:
                for event in self.parser.feed(data):
                    if event["event"] == "change":
                        self.events.append({"id": int(event["id"]), **json.loads(event["data"])})

    def close(self):
        self.task.cancel()
        self.writer.close()


def expected_events(membership, after: int) -> list[tuple[int, tuple[int, ...], bool]]:
    """Each batch after `after` that this member may see something of: (its last entry id,
    the characters of the entries they may see, whether one is of the campaign itself)."""
    last = {}
    for entry_id, batch in AuditEntry.objects.filter(
        campaign_id=membership.campaign_id, id__gt=after
    ).values_list("id", "batch"):
        last[batch] = max(last.get(batch, 0), entry_id)
    seen: dict = {}
    for batch, character_id in (
        visible_entries(membership).filter(id__gt=after).values_list("batch", "character_id")
    ):
        seen.setdefault(batch, set()).add(character_id)
    return sorted(
        (last[batch], tuple(sorted(c for c in ids if c is not None)), None in ids)
        for batch, ids in seen.items()
    )


def test_every_stream_on_every_host_gets_what_its_viewer_may_see(world, gm, hosts):
    campaign, pc, other_pc, npc = world.campaign, world.pc, world.other_pc, world.npc
    elsewhere = campaign_services.campaign_create(user=world.outsider, name="Une autre table")
    cookies = {
        "gm": with_csrf(session_cookie(world.gm)),
        "player": (session_cookie(world.player), None),
        "other_player": (session_cookie(world.other_player), None),
        "outsider": with_csrf(session_cookie(world.outsider)),
    }
    head = AuditEntry.objects.order_by("-id").values_list("id", flat=True).first() or 0
    c = campaign.pk
    act = f"/c/{c}/characters/{{}}/act/{{}}/"
    writes = [  # (host, who, path, body): the GM writes through each host in turn
        (0, "gm", act.format(pc.pk, "damage"), "amount=5&visibility=everyone"),
        (1, "gm", act.format(other_pc.pk, "spend_flux"), "amount=1&visibility=everyone"),
        (2, "gm", act.format(pc.pk, "check"), "stat=INS&difficulty=10&visibility=gm"),
        (0, "gm", f"/c/{c}/party/clock/", "minutes=20&visibility=everyone"),
        (1, "gm", act.format(npc.pk, "damage"), "amount=1&visibility=everyone"),
        (2, "gm", act.format(other_pc.pk, "add_condition"), "kind=gene&visibility=everyone"),
        (2, "outsider", f"/c/{elsewhere.pk}/party/clock/", "minutes=5&visibility=everyone"),
    ]
    viewers = ("gm", "player", "other_player")

    async def scenario():
        streams = [Stream(port, cookies[who][0], c, who) for port in hosts for who in viewers] + [
            Stream(port, cookies["outsider"][0], elsewhere.pk, "outsider") for port in hosts
        ]
        await asyncio.gather(*(s.open() for s in streams))
        for host, who, path, body in writes:
            cookie, csrf = cookies[who]
            status, answer = await post_form(hosts[host], path, cookie, csrf, body.encode())
            assert status == 200, (path, status, answer[:300])
        return streams

    async def collect(streams, expected):
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline and any(
            len(s.events) < len(expected[s.who]) for s in streams
        ):
            await asyncio.sleep(0.1)
        await asyncio.sleep(QUIET)
        for s in streams:
            s.close()

    async def run():
        streams = await scenario()
        expected = await asyncio.to_thread(expect)
        await collect(streams, expected)
        return streams, expected

    def expect():
        from django.db import connections

        try:
            members = {
                m.user_id: m
                for m in Membership.objects.select_related("campaign").filter(
                    campaign__in=[campaign, elsewhere]
                )
            }
            people = {
                "gm": world.gm,
                "player": world.player,
                "other_player": world.other_player,
                "outsider": world.outsider,
            }
            return {who: expected_events(members[user.pk], head) for who, user in people.items()}
        finally:
            connections.close_all()

    streams, expected = asyncio.run(run())

    # The log says the viewers are told different things: the test could fail.
    assert len({tuple(e) for e in expected.values()}) == 4
    assert len(expected["gm"]) == 6 and len(expected["outsider"]) == 1
    for s in streams:
        got = [(e["id"], tuple(e["characters"]), bool(e.get("campaign"))) for e in s.events]
        want = [(i, chars, of_campaign) for i, chars, of_campaign in expected[s.who]]
        assert got == want, (s.who, s.port)
