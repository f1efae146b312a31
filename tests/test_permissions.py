"""Who gets what on every URL of the project: one table, one set of tests.

ROUTES lists every named route once (the admin's are walked by tests/test_admin.py): the
methods it serves, how to build its URL and its body from the `world` fixture, and who may use
it. Everyone else is refused the way campaign/permissions.py decides it:

- anonymous visitors are sent to the login page (`?next=` the URL);
- outsiders (logged in, not members of the campaign) get a 404 that names nothing of it;
- members without the right get a 403, the 403 page;

and none of them changes the database. Whoever may use the route gets its answer: by
default a 200 that writes nothing for a GET, a redirect that writes something for a POST. A
method the route does not serve is a 405. The people are the fixtures of tests/conftest.py:
`player` owns the character the routes name (`world.pc`), `other_player` does not.

Adding a route is one entry in ROUTES (test_every_named_route_is_in_the_table fails until
there is one), e.g. a page every member may read and a POST only the GM may make:

    Route("fight", ("get",), _c("fight", "fight"), MEMBERS),
    Route("fight_end", ("post",), _c("fight_end", "fight"), GM_ONLY, data=lambda w: {...}),

with the object its URL names (here `fight`) added to this module's `world` fixture. Answers
that are not the rule's (a template to check, a POST that writes nothing, a 409) go in `ok`
and `answers`; the entries below show each.
"""

import enum
import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient, Client
from django.urls import resolve, reverse

from characters.models import Character, NpcTemplate
from journal.models import PlaySession
from play import services
from play.models import Proposal, RollRequest
from play.proposals import proposal_make
from play.requests import roll_request_create
from tests.helpers import (
    ADMIN_ROUTES,
    assert_redirects_to_login,
    character_data,
    db_state,
    named_routes,
    settings_data,
)
from tests.play.steps import run

# The people, as tests/conftest.py makes them.
ANONYMOUS, OUTSIDER, PLAYER, OTHER_PLAYER, GM = (
    "anonymous",
    "outsider",
    "player",
    "other_player",
    "gm",
)
PEOPLE = (ANONYMOUS, OUTSIDER, PLAYER, OTHER_PLAYER, GM)

# Who may use a route.
EVERYONE = frozenset(PEOPLE)
LOGGED_IN = EVERYONE - {ANONYMOUS}
MEMBERS = frozenset({PLAYER, OTHER_PLAYER, GM})
OWNER = frozenset({PLAYER, GM})  # the character's owner, and the GM who sees every sheet
OWNER_ONLY = frozenset({PLAYER})  # R9: the owner's own test; the GM rolls from the dashboard
GM_ONLY = frozenset({GM})

W = SimpleNamespace  # the `world` fixture


class Refusal(enum.Enum):
    LOGIN = "sent to the login page"
    NOT_FOUND = "404, and nothing of the campaign named"
    FORBIDDEN = "403, the 403 page"


LOGIN, NOT_FOUND, FORBIDDEN = Refusal.LOGIN, Refusal.NOT_FOUND, Refusal.FORBIDDEN


@dataclass(frozen=True)
class Answer:
    """What the person who may use a route gets."""

    status: int
    template: str | None = None
    location: Callable[[W], str] | None = None  # where a redirect leads
    writes: bool = False  # whether the database changes
    check: Callable[..., None] | None = None  # (response, world): anything else to assert


OK = Answer(200)
DONE = Answer(302, writes=True)


def _home(w: W) -> str:
    return reverse("home")


@dataclass(frozen=True)
class Route:
    name: str
    methods: tuple[str, ...]
    url: Callable[[W], str]
    who: frozenset[str]
    data: Callable[[W], dict] = lambda w: {}  # a POST's body
    query: Callable[[W], dict] = lambda w: {}  # a GET's query string
    ok: Mapping[str, Answer] = field(default_factory=lambda: {"get": OK, "post": DONE})
    # Anyone else's answer, when it is not the rule's: by person, or by (person, method).
    answers: Mapping = field(default_factory=dict)
    refuses: tuple[str, ...] | None = None  # answered 405; None: GET and POST not served
    asgi: bool = False  # asked through the ASGI handler, as browsers reach it under uvicorn

    def answer(self, person: str, method: str) -> Answer | Refusal:
        for key in ((person, method), person):
            if key in self.answers:
                return self.answers[key]
        if person in self.who:
            return self.ok[method]
        return {ANONYMOUS: LOGIN, OUTSIDER: NOT_FOUND}.get(person, FORBIDDEN)

    def not_served(self) -> tuple[str, ...]:
        if self.refuses is not None:
            return self.refuses
        return tuple(m for m in ("get", "post") if m not in self.methods)


def _svg(response, w):
    assert response["Content-Type"] == "image/svg+xml"
    root = ET.fromstring(response.content)
    assert root.tag.rsplit("}", 1)[-1] == "svg"
    assert len(root) > 0


def _odds(response, w):
    assert re.fullmatch(r"\d{1,3} %", response.content.decode())


def _archive(response, w):
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    archive = json.loads(b"".join(response.streaming_content))
    assert archive["format"] == "chroniqueur-campaign-archive"
    assert archive["campaign"]["id"] == w.campaign.pk


def _event_stream(response, w):
    assert response["Content-Type"] == "text/event-stream"


def _service_worker(response, w):
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert response["Service-Worker-Allowed"] == "/"


def _offline_page(response, w):
    html = response.content.decode()
    assert "<script" not in html and "<form" not in html
    for user in (w.gm, w.player, w.other_player, w.outsider):
        assert user.username not in html


def _health(response, w):
    assert response["Content-Type"] == "text/plain"
    assert response.content == b"ok"


def _campaign(w):
    return reverse("campaign", args=[w.campaign.pk])


def _c(name, *args):
    """The URL of a campaign's route: its id, then each of `args`, the id of the world's object
    of that name (`"pc"`: world.pc.pk) or else the string itself (`"csv"`)."""

    def arg(w, key):
        value = getattr(w, key, None)
        return value.pk if hasattr(value, "pk") else key

    return lambda w: reverse(name, args=[w.campaign.pk, *(arg(w, key) for key in args)])


def _asked(name):
    """A route on the roll asked of the world's `pc` (R34): each character has one waiting."""
    return lambda w: reverse(name, args=[w.campaign.pk, w.asked[w.pc.pk].pk])


def _proposed(name):
    """A route on the proposal waiting for the world's `pc`: each character has one."""
    return lambda w: reverse(name, args=[w.campaign.pk, w.proposed[w.pc.pk].pk])


def _account(template):
    return Answer(200, f"registration/{template}.html")


ALREADY_IN = Answer(302, location=_home)  # a logged-in person on a page for visitors
NOT_A_NEW_MEMBER = Answer(302, location=_campaign)  # joining again keeps one's role
ROLL = {"stat": "ADR", "skill": "Crochetage", "difficulty": "10", "dice": "14"}
PASSWORD = "correct horse battery"  # every fixture user's (tests/conftest.py)

ROUTES = [
    # config/urls.py
    Route(
        "healthz",
        ("get",),
        lambda w: reverse("healthz"),
        EVERYONE,
        ok={"get": Answer(200, check=_health)},
        refuses=(),  # a plain function: any method
    ),
    Route(
        "favicon",
        ("get",),
        lambda w: reverse("favicon"),
        EVERYONE,
        ok={"get": Answer(301)},
        refuses=(),  # a plain function: any method
    ),
    Route(
        "set_language",
        ("post",),
        lambda w: reverse("set_language"),
        EVERYONE,
        data=lambda w: {"language": "en", "next": "/"},
        ok={"post": Answer(302, location=lambda w: "/")},  # a cookie, nothing stored
        refuses=(),  # Django's set_language: a GET only redirects
    ),
    # campaign/account_urls.py, at the paths the mails and pages link to
    Route(
        "signup",
        ("get", "post"),
        lambda w: "/accounts/signup/",
        frozenset({ANONYMOUS}),
        data=lambda w: {
            "username": "nouvelle",
            "password1": "une lanterne 42",
            "password2": "une lanterne 42",
        },
        ok={"get": _account("signup"), "post": Answer(302, location=_home, writes=True)},
        answers=dict.fromkeys(LOGGED_IN, ALREADY_IN),
    ),
    Route(
        "login",
        ("get", "post"),
        lambda w: "/accounts/login/",
        EVERYONE,
        data=lambda w: {"username": w.player.username, "password": PASSWORD},
        ok={"get": _account("login"), "post": Answer(302, location=_home, writes=True)},
    ),
    Route(
        "logout",
        ("post",),
        lambda w: "/accounts/logout/",
        EVERYONE,
        ok={"post": Answer(302, location=_home)},  # the session ends; no row changes
    ),
    Route(
        "password_change",
        ("get", "post"),
        lambda w: "/accounts/password_change/",
        LOGGED_IN,
        data=lambda w: {
            "old_password": PASSWORD,
            "new_password1": "un tout nouveau secret",
            "new_password2": "un tout nouveau secret",
        },
        ok={
            "get": _account("password_change_form"),
            "post": Answer(302, location=lambda w: reverse("password_change_done"), writes=True),
        },
    ),
    Route(
        "password_change_done",
        ("get",),
        lambda w: "/accounts/password_change/done/",
        LOGGED_IN,
        ok={"get": _account("password_change_done")},
    ),
    Route(
        "password_reset",
        ("get", "post"),
        lambda w: "/accounts/password_reset/",
        EVERYONE,
        data=lambda w: {"email": w.player.email},
        ok={
            "get": _account("password_reset_form"),
            # A mail goes out; the request is counted for its address (a keyed digest, for
            # the hourly limit: campaign.PasswordResetRequest).
            "post": Answer(302, location=lambda w: reverse("password_reset_done"), writes=True),
        },
    ),
    Route(
        "password_reset_done",
        ("get",),
        lambda w: "/accounts/password_reset/done/",
        EVERYONE,
        ok={"get": _account("password_reset_done")},
    ),
    Route(
        "password_reset_confirm",
        ("get", "post"),
        lambda w: "/accounts/reset/Mg/not-a-token/",
        EVERYONE,
        data=lambda w: {"new_password1": "un secret", "new_password2": "un secret"},
        # A link that is not valid: the page says so, and a POST changes no password.
        ok=dict.fromkeys(("get", "post"), _account("password_reset_confirm")),
    ),
    Route(
        "password_reset_complete",
        ("get",),
        lambda w: "/accounts/reset/done/",
        EVERYONE,
        ok={"get": _account("password_reset_complete")},
    ),
    # campaign/urls.py
    Route(
        "home",
        ("get",),
        lambda w: reverse("home"),
        EVERYONE,
        ok={"get": Answer(200, "campaign/home.html")},
        answers={ANONYMOUS: Answer(200, "campaign/welcome.html")},
    ),
    Route(
        "campaign_create",
        ("post",),
        lambda w: reverse("campaign_create"),
        LOGGED_IN,
        data=lambda w: {"name": "Les Marais"},
    ),
    Route(
        "campaign_settings",
        ("get", "post"),
        _c("campaign_settings"),
        GM_ONLY,
        data=lambda w: settings_data(w.campaign, name="Renommée", default_difficulty=12),
    ),
    Route(
        "campaign_archive",
        ("get",),
        _c("campaign_archive"),
        GM_ONLY,  # the whole campaign, GM's notes included
        ok={"get": Answer(200, check=_archive)},
    ),
    Route("members", ("get",), _c("members"), MEMBERS),
    Route(
        "leave",
        ("post",),
        _c("leave"),
        MEMBERS,
        # The campaign's only GM may not leave it: the members page says why.
        answers={GM: Answer(409, "campaign/members.html")},
    ),
    Route("member_remove", ("post",), _c("member_remove", "other_player_membership"), GM_ONLY),
    Route(
        "member_role",
        ("post",),
        _c("member_role", "other_player_membership"),
        GM_ONLY,
        data=lambda w: {"role": "gm"},
    ),
    Route(
        "invitation_create",
        ("post",),
        _c("invitation_create"),
        GM_ONLY,
        data=lambda w: {"role": "player", "max_uses": "1", "valid_days": "3"},
    ),
    Route("invitation_revoke", ("post",), _c("invitation_revoke", "invitation"), GM_ONLY),
    Route(
        "invitation_qr",
        ("get",),
        _c("invitation_qr", "invitation"),
        GM_ONLY,
        ok={"get": Answer(200, check=_svg)},
    ),
    Route(
        "join",
        ("get", "post"),
        lambda w: reverse("join", args=[w.invitation.token]),
        EVERYONE,  # the link is the key: an outsider it was sent to joins
        ok={"get": Answer(200, "campaign/join.html"), "post": NOT_A_NEW_MEMBER},
        answers={
            (OUTSIDER, "post"): Answer(302, location=_campaign, writes=True),
            # Asked to log in first (the page shows the campaign's name and the login link).
            (ANONYMOUS, "post"): Answer(200, "campaign/join.html"),
        },
    ),
    # journal/urls.py
    Route("history", ("get",), _c("history"), MEMBERS),
    Route("history_export", ("get",), _c("history_export", "csv"), MEMBERS),
    Route("history_seal", ("get",), _c("history_seal"), MEMBERS),
    Route("entry_reveal", ("post",), _c("entry_reveal", "sealed"), GM_ONLY),
    Route("session_start", ("post",), _c("session_start"), GM_ONLY),
    Route("session_recap", ("get",), _c("session_recap", "session"), MEMBERS),
    Route("session_recap_page", ("get",), _c("session_recap_page", "session"), MEMBERS),
    Route("statistics", ("get",), _c("statistics"), MEMBERS),
    Route("party_chart", ("get",), _c("party_chart"), MEMBERS),
    Route("character_chart", ("get",), _c("character_chart", "pc"), MEMBERS),
    # play/urls.py
    Route("campaign", ("get",), _c("campaign"), MEMBERS),
    Route(
        "dashboard_view",
        ("post",),
        _c("dashboard_view"),
        GM_ONLY,
        data=lambda w: {"view": "compact"},
        ok={"post": Answer(302, location=_campaign, writes=True)},
    ),
    Route(
        "character_create",
        ("get", "post"),
        _c("character_create"),
        GM_ONLY,
        data=lambda w: character_data(w.campaign, name="Nouvelle venue", owner=w.player.pk),
    ),
    Route("character", ("get",), _c("character", "pc"), OWNER),
    Route(
        "character_edit",
        ("get", "post"),
        _c("character_edit", "pc"),
        GM_ONLY,
        data=lambda w: character_data(
            w.campaign, name="Isaure", owner=w.player.pk, pv=3, pv_max=14
        ),
    ),
    Route("character_card", ("get",), _c("character_card", "pc"), OWNER),
    # A card's « Plus… », drawn when the GM opens it.
    Route("character_menu", ("get",), _c("character_menu", "npc"), GM_ONLY),
    # The sheet's live roll feed: what the sheet shows, as the sheet is refused.
    Route("character_feed", ("get",), _c("character_feed", "pc"), OWNER),
    Route(
        "check_probability",
        ("get",),
        _c("check_probability", "pc"),
        OWNER,
        query=lambda w: {"stat": "ADR", "difficulty": "10", "modifier": "0"},
        ok={"get": Answer(200, check=_odds)},
    ),
    Route(
        "character_roll",
        ("post",),
        _c("character_roll", "pc"),
        OWNER_ONLY,
        data=lambda w: ROLL,
        ok={"post": Answer(302, location=lambda w: _c("character", "pc")(w), writes=True)},
    ),
    Route(
        "character_action",
        ("get", "post"),
        _c("character_action", "pc", "damage"),
        GM_ONLY,
        data=lambda w: {"amount": "3", "visibility": "everyone", "dice": ""},
    ),
    # The table screen (play/screen_views.py): the GM's session, or a link whose token is the
    # key; a wrong token is the same 404 for everyone.
    Route("screen", ("get",), _c("screen"), GM_ONLY),
    Route("screen_part", ("get",), _c("screen_part"), GM_ONLY),
    Route(
        "screen_link_manage",
        ("post",),
        _c("screen_link_manage"),
        GM_ONLY,
        data=lambda w: {"do": "create"},
        ok={"post": Answer(200, writes=True)},
    ),
    Route(
        "screen_link",
        ("get",),
        lambda w: reverse("screen_link", args=[w.campaign.pk, "not-the-token"]),
        EVERYONE,
        ok={"get": Answer(404)},
    ),
    Route(
        "screen_link_part",
        ("get",),
        lambda w: reverse("screen_link_part", args=[w.campaign.pk, "not-the-token"]),
        EVERYONE,
        ok={"get": Answer(404)},
    ),
    # NPCs in numbers, off the table and back.
    Route("off_table", ("get",), _c("off_table"), GM_ONLY),
    Route(
        "character_duplicate",
        ("get", "post"),
        _c("character_duplicate", "npc"),
        GM_ONLY,
        data=lambda w: {"count": "2"},
    ),
    Route(
        "character_in_play",
        ("post",),
        _c("character_in_play", "npc"),
        GM_ONLY,
        data=lambda w: {"in_play": "0"},
    ),
    Route("npc_templates", ("get",), _c("npc_templates"), GM_ONLY),
    Route("npc_template_save", ("post",), _c("npc_template_save", "npc"), GM_ONLY),
    Route("npc_template_delete", ("post",), _c("npc_template_delete", "template"), GM_ONLY),
    Route(
        "npc_template_create",
        ("post",),
        _c("npc_template_create"),
        GM_ONLY,
        data=lambda w: {
            "name": "Archer",
            "pv_max": "9",
            "flux_max": "0",
            "pa": "1",
            "actions": "2",
            "reflexes": "1",
            **{f"stat_{code}": "1" for code in w.campaign.stats},
        },
    ),
    Route(
        "npc_template_spawn",
        ("post",),
        _c("npc_template_spawn", "template"),
        GM_ONLY,
        data=lambda w: {"count": "2"},
    ),
    Route(
        "party_forecast",
        ("get",),
        _c("party_forecast", "clock"),
        GM_ONLY,
        query=lambda w: {"minutes": "60"},
        ok={"get": Answer(200)},
    ),
    Route(
        "character_free_roll",
        ("post",),
        _c("character_free_roll", "pc"),
        OWNER_ONLY,
        data=lambda w: {"expression": "1d6+1", "dice": "3"},
        ok={"post": Answer(302, location=lambda w: _c("character", "pc")(w), writes=True)},
    ),
    Route(
        "action_probability",
        ("get",),
        _c("action_probability", "pc", "fall_ill"),
        GM_ONLY,
        query=lambda w: {"severity": "1"},
        ok={"get": Answer(200, check=_odds)},
    ),
    Route(
        "party_action",
        ("get", "post"),
        _c("party_action", "end_scene"),
        GM_ONLY,
        data=lambda w: {"visibility": "everyone"},
    ),
    # Several targets at once (play/services/group.py): the GM's alone, like one target's.
    Route(
        "group_action",
        ("get", "post"),
        _c("group_action", "heal"),
        GM_ONLY,
        data=lambda w: {"amount": "1", "visibility": "everyone", "selected": [w.pc.pk, w.npc.pk]},
    ),
    # play/urls.py: the fight (R33); the world's fight is running (see `world` below)
    Route("fight_start_form", ("get",), _c("fight_start_form"), GM_ONLY),
    Route(
        "fight_start",
        ("post",),
        _c("fight_start"),
        GM_ONLY,
        data=lambda w: {"fighters": [w.pc.pk]},
        # One fight at a time: the GM is told so (tests/play/test_fight_views.py starts one).
        ok={"post": Answer(400, "play/dashboard.html")},
    ),
    Route("fight_next_turn", ("post",), _c("fight_next_turn"), GM_ONLY),
    Route("fight_end", ("post",), _c("fight_end"), GM_ONLY),
    Route("fight_move", ("post",), _c("fight_move", "pc", "down"), GM_ONLY),
    Route(
        "fight_join",
        ("post",),
        _c("fight_join"),
        GM_ONLY,
        data=lambda w: {"character": w.pc.pk},
        # Isaure is in the world's fight already: the GM is told so.
        ok={"post": Answer(400, "play/dashboard.html")},
    ),
    # R9: the owner spends their own character's actions when the campaign lets players roll.
    Route("fight_spend", ("post",), _c("fight_spend", "pc", "action"), OWNER),
    # play/urls.py: rolls asked of players (R34); the world's pc awaits one (see `world`)
    Route(
        "roll_ask",
        ("get", "post"),
        _c("roll_ask", "free_pc"),
        GM_ONLY,
        data=lambda w: {
            "kind": "check",
            "stat": "ADR",
            "difficulty": "10",
            "visibility": "everyone",
        },
    ),
    Route(
        "roll_ask_probability",
        ("get",),
        _c("roll_ask_probability", "free_pc"),
        GM_ONLY,
        query=lambda w: {"kind": "check", "stat": "ADR", "difficulty": "10"},
        ok={"get": Answer(200, check=_odds)},
    ),
    Route(
        "party_ask",
        ("get", "post"),
        _c("party_ask"),
        GM_ONLY,
        data=lambda w: {
            "characters": [w.free_pc.pk],
            "stat": "INS",
            "difficulty": "10",
            "visibility": "everyone",
        },
    ),
    # The owner answers; the GM may roll it instead.
    Route(
        "roll_answer",
        ("post",),
        _asked("roll_answer"),
        OWNER,
        data=lambda w: {"mode": "server"},
    ),
    Route("roll_cancel", ("post",), _asked("roll_cancel"), GM_ONLY),
    # play/urls.py: players propose, the GM approves (the world holds one proposal waiting)
    Route(
        "proposal_create",
        ("post",),
        _c("proposal_create", "pc"),
        OWNER_ONLY,  # a player for their own character; the GM acts directly
        data=lambda w: {"action": "damage", "amount": "3", "cause": "un piège", "note": "Aïe."},
        ok={"post": Answer(302, location=lambda w: _c("character", "pc")(w), writes=True)},
    ),
    Route(
        "proposal_approve",
        ("post",),
        _c("proposal_approve", "proposal"),
        GM_ONLY,
        ok={"post": Answer(302, location=_campaign, writes=True)},
    ),
    Route("proposal_edit", ("get",), _c("proposal_edit", "proposal"), GM_ONLY),
    Route(
        "proposal_refuse",
        ("post",),
        _c("proposal_refuse", "proposal"),
        GM_ONLY,
        data=lambda w: {"reply": "Pas cette fois."},
        ok={"post": Answer(302, location=_campaign, writes=True)},
    ),
    Route(
        "proposal_withdraw",
        ("post",),
        _proposed("proposal_withdraw"),
        OWNER_ONLY,  # the player who made it; the GM refuses instead
        ok={"post": Answer(302, location=lambda w: _c("character", "pc")(w), writes=True)},
    ),
    Route("entry_undo", ("post",), _c("entry_undo", "entry"), GM_ONLY),
    Route("action_undo", ("post",), _c("action_undo", "entry"), GM_ONLY),
    # live/urls.py
    Route(
        "campaign_events",
        ("get",),
        _c("campaign_events"),
        MEMBERS,
        ok={"get": Answer(200, check=_event_stream)},
        # An EventSource cannot follow a redirect to a login page: a 404 for visitors too.
        answers={ANONYMOUS: NOT_FOUND},
        asgi=True,
    ),
    Route(
        "campaign_events_poll",
        ("get",),
        _c("campaign_events_poll"),
        MEMBERS,
        query=lambda w: {"after": "0"},
    ),
    # The sheet's service worker (live/offline.py): a script holding nothing of anyone's.
    Route(
        "service_worker",
        ("get",),
        lambda w: reverse("service_worker"),
        EVERYONE,
        ok={"get": Answer(200, check=_service_worker)},
    ),
    # The worker's page for a page opened offline: the same for everyone, nothing of anyone's.
    Route(
        "offline_page",
        ("get",),
        lambda w: reverse("offline_page"),
        EVERYONE,
        ok={"get": Answer(200, check=_offline_page)},
    ),
]
BY_NAME = {route.name: route for route in ROUTES}


# ---------------------------------------------------------------------------------------------
# Asking


@pytest.fixture
def world(world):
    """The shared world with one action in the log (so a play session and an entry to undo)."""
    result = run(world.campaign, world.gm, "damage", {"amount": "5"}, character=world.pc)
    world.entry = result.entries[0]
    # A sealed roll: a test only the GM sees, for the reveal's route.
    check = {"stat": "INS", "skill": "Guet", "difficulty": "10"}
    sealed = run(world.campaign, world.gm, "check", check, character=world.pc, visibility="gm")
    world.sealed = sealed.entries[0]
    world.session = PlaySession.objects.get(campaign=world.campaign)
    services.fight_start(
        campaign_id=world.campaign.pk,
        actor=world.gm,
        character_ids=[world.pc.pk, world.other_pc.pk, world.npc.pk],
    )
    world.campaign.refresh_from_db()
    world.template = NpcTemplate.objects.create(
        campaign=world.campaign, name="Garde", stats=world.npc.stats, pv_max=8, flux_max=2
    )
    world.proposal = proposal_make(
        character_id=world.pc.pk,
        actor=world.player,
        action="spend_flux",
        arguments={"amount": 2},
        note="Un sort de lumière.",
    )
    # R34: a roll waits on each character (the NPC's made by hand: no service asks an NPC);
    # free_pc, with none, is the one the GM asks.
    world.asked = {
        c.pk: roll_request_create(character_id=c.pk, actor=world.gm, stat="ADR").requests[0]
        for c in (world.pc, world.other_pc)
    }
    world.asked[world.npc.pk] = RollRequest.objects.create(
        campaign=world.campaign,
        character=world.npc,
        kind="check",
        rule_id="R5",
        arguments={"stat": "ADR", "difficulty": 10},
        due_at=world.campaign.clock,
        requested_by=world.gm,
    )
    # A proposal waits for each character (the NPC's made by hand: no player proposes for
    # an NPC): only its proposer withdraws it.
    world.proposed = {
        world.pc.pk: world.proposal,
        world.other_pc.pk: proposal_make(
            character_id=world.other_pc.pk,
            actor=world.other_player,
            action="spend_flux",
            arguments={"amount": 1},
        ),
        world.npc.pk: Proposal.objects.create(
            campaign=world.campaign,
            character=world.npc,
            proposed_by=world.gm,
            proposer_name=world.gm.username,
            action="spend_flux",
            arguments={"amount": 1},
        ),
    }
    world.free_pc = Character.objects.create(
        campaign=world.campaign,
        name="Rose",
        kind="pc",
        owner=world.other_player,
        stats=dict.fromkeys(world.campaign.stats, 1),
        pv=10,
        pv_max=10,
        flux=5,
        flux_max=5,
    )
    return world


def logged_in(route: Route, person: str, world: W):
    """A client for the person, logged in now, so that the login is not the change seen."""
    client = AsyncClient() if route.asgi else Client()
    user = None if person == ANONYMOUS else getattr(world, person)
    if user is not None:
        client.force_login(user)
    return client


async def _asgi(client, method, url, params):
    response = await getattr(client, method)(url, params)
    if response.streaming:
        await response._iterator.aclose()  # a live stream: never started, closed at once
    return response


def ask(client, route: Route, method: str, world: W):
    url = route.url(world)
    params = route.query(world) if method == "get" else route.data(world)
    if route.asgi:
        return url, async_to_sync(_asgi)(client, method, url, params)
    return url, getattr(client, method)(url, params)


def text(response) -> str:
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def secrets(world: W) -> list[str]:
    """What nobody refused may read: the characters' names and notes."""
    return [
        value
        for character in (world.pc, world.other_pc, world.npc)
        for value in (character.name, character.public_notes, character.gm_notes)
    ]


def _param(route: Route, method: str, person: str):
    # The stream's requests go through the ASGI handler and its threads: committed rows.
    marks = [pytest.mark.django_db(transaction=True)] if route.asgi else []
    return pytest.param(
        route.name, method, person, id=f"{route.name}-{method}-{person}", marks=marks
    )


def cases(want: Callable[[Answer | Refusal], bool], people=PEOPLE) -> list:
    """(route, method, person) for every method a route serves and every person whose answer
    `want` picks."""
    return [
        _param(route, method, person)
        for route in ROUTES
        for method in route.methods
        for person in people
        if want(route.answer(person, method))
    ]


def unserved_cases() -> list:
    """(route, method, person) for every method a route does not serve, and every person it
    lets in or sends to log in."""
    return [
        _param(route, method, person)
        for route in ROUTES
        for method in route.not_served()
        for person in PEOPLE
        if isinstance(route.answer(person, route.methods[0]), Answer)
        or route.answer(person, route.methods[0]) is LOGIN
    ]


def assert_not_found(response, world: W) -> None:
    assert response.status_code == 404
    # An outsider must not learn that the campaign exists, nor anything in it.
    content = text(response)
    for secret in [world.campaign.name, *secrets(world)]:
        assert secret not in content, secret


def assert_forbidden(response, world: W) -> None:
    assert response.status_code == 403
    assert "403.html" in [t.name for t in response.templates]
    content = text(response)
    for secret in secrets(world):
        assert secret not in content, secret


# ---------------------------------------------------------------------------------------------
# The table covers every route, once


def test_every_named_route_is_in_the_table():
    missing = sorted(set(named_routes()) - set(BY_NAME) - set(ADMIN_ROUTES))
    assert not missing, f"Routes without a permission entry: {missing}. Add each to ROUTES here."


def test_no_entry_names_a_route_that_is_gone():
    assert sorted(set(BY_NAME) - set(named_routes())) == []


def test_no_route_is_listed_twice():
    names = [route.name for route in ROUTES]
    assert [name for name, n in Counter(names).items() if n > 1] == []
    assert set(names).isdisjoint(ADMIN_ROUTES)  # the admin's are tests/test_admin.py's


@pytest.mark.parametrize("name", BY_NAME)
def test_each_entry_builds_a_url_of_its_own_route(world, name):
    assert resolve(urlsplit(BY_NAME[name].url(world)).path).view_name == name


# ---------------------------------------------------------------------------------------------
# The refused


@pytest.mark.parametrize(
    ("name", "method", "person"), cases(lambda a: a is LOGIN, people=[ANONYMOUS])
)
def test_it_sends_anonymous_visitors_to_log_in(world, name, method, person):
    route = BY_NAME[name]
    client = logged_in(route, person, world)
    before = db_state()
    url, response = ask(client, route, method, world)
    assert_redirects_to_login(response, url)
    assert db_state() == before


@pytest.mark.parametrize(("name", "method", "person"), cases(lambda a: a is NOT_FOUND))
def test_it_answers_404_to_outsiders_and_names_nothing(world, name, method, person):
    route = BY_NAME[name]
    client = logged_in(route, person, world)
    before = db_state()
    _url, response = ask(client, route, method, world)
    assert_not_found(response, world)
    assert db_state() == before


@pytest.mark.parametrize(("name", "method", "person"), cases(lambda a: a is FORBIDDEN))
def test_it_answers_403_to_members_without_the_right(world, name, method, person):
    route = BY_NAME[name]
    client = logged_in(route, person, world)
    before = db_state()
    _url, response = ask(client, route, method, world)
    assert_forbidden(response, world)
    assert db_state() == before


OWNERS_ROUTES = [route.name for route in ROUTES if route.who in (OWNER, OWNER_ONLY)]


@pytest.mark.parametrize(
    ("person", "character"),
    [(PLAYER, "other_pc"), (PLAYER, "npc"), (OTHER_PLAYER, "npc")],
)
@pytest.mark.parametrize("name", OWNERS_ROUTES)
def test_it_answers_403_to_a_player_on_a_character_not_theirs(world, name, person, character):
    # The table's routes name the player's own PC; here the same routes name another's.
    route = BY_NAME[name]
    not_theirs = SimpleNamespace(**{**vars(world), "pc": getattr(world, character)})
    client = logged_in(route, person, world)
    before = db_state()
    for method in route.methods:
        _url, response = ask(client, route, method, not_theirs)
        assert_forbidden(response, world)
    assert db_state() == before


# ---------------------------------------------------------------------------------------------
# The allowed


@pytest.mark.parametrize(
    ("name", "method", "person"), cases(lambda answer: isinstance(answer, Answer))
)
def test_it_gives_whoever_may_use_a_route_its_answer(world, name, method, person):
    route = BY_NAME[name]
    answer = route.answer(person, method)
    client = logged_in(route, person, world)
    before = db_state()
    _url, response = ask(client, route, method, world)
    assert response.status_code == answer.status
    if answer.template:
        assert answer.template in [t.name for t in response.templates]
    if answer.location:
        assert response["Location"] == answer.location(world)
    if answer.check:
        answer.check(response, world)
    if answer.writes:
        assert db_state() != before
    else:
        assert db_state() == before


@pytest.mark.parametrize(("name", "method", "person"), unserved_cases())
def test_it_refuses_a_method_the_route_does_not_serve(world, name, method, person):
    # Whoever may use it gets a 405; where the route needs a login, visitors log in first.
    route = BY_NAME[name]
    client = logged_in(route, person, world)
    before = db_state()
    url, response = ask(client, route, method, world)
    if route.answer(person, route.methods[0]) is LOGIN:
        assert_redirects_to_login(response, url)
    else:
        assert response.status_code == 405
    assert db_state() == before
