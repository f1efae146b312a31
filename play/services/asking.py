"""R34: the rules rolls left to the players, the requests that ask for them, and the clock
that waits for them (used by the runner and by play/requests.py).
"""

from __future__ import annotations

from django.db.models import F

from campaign.models import Visibility
from characters.models import Character, Kind
from journal import audit
from journal.models import EntryKind
from play.models import RequestKind, RequestStatus, RollRequest
from rules import engine

# ---------------------------------------------------------------------------------------------
# R34: rules rolls left to the players, and the clock that waits for them

REQUEST_FIELD = "request"  # the `field` of a request's entries (made, answered, cancelled)

# What the engine calls a due roll (DueRoll.kind), as a request's kind.
_DUE_KINDS = {
    "deaths_door": RequestKind.DEATHS_DOOR,
    "coma_hour": RequestKind.COMA_HOUR,
    "wake": RequestKind.WAKE_CLOCK,
    "sleep": RequestKind.SLEEP,
}

# A request's name in the log and on the cards (FR, EN).
REQUEST_LABELS = {
    RequestKind.CHECK: ("test", "test"),
    RequestKind.DEATHS_DOOR: ("Survie (VAI) à 0 PV", "Survival (VAI) at 0 PV"),
    RequestKind.COMA_HOUR: ("Survie (VAI) de l’heure de coma", "Survival (VAI) for the coma hour"),
    RequestKind.WAKE_CLOCK: ("essai de réveil (Survie, VAI)", "waking try (Survival, VAI)"),
    RequestKind.WAKE: ("essai de réveil (Survie, VAI)", "waking try (Survival, VAI)"),
    RequestKind.FALL_ILL: (
        "Constitution (VAI) en tombant malade",
        "Constitution (VAI), falling ill",
    ),
    RequestKind.SLEEP: (
        "Volonté (VAI) après une nuit écourtée",
        "Willpower (VAI) after a short night",
    ),
}


class ClockWaits(engine.RuleError):
    """R34: the clock does not move while a player's rules roll is awaited."""

    code = "clock_waits"


# A request the rules made due, as the engine names its roll (DueRoll.kind).
RULES_ROLL_KINDS = {request_kind: kind for kind, request_kind in _DUE_KINDS.items()}


def owner_name(character: Character) -> str:
    return character.owner.get_username() if character.owner_id else "—"


def rolls_go_to_player(character_id: int, ask_players: bool | None) -> bool:
    """R34: whether this character's rules roll goes to their player (a player character
    with a player, and the action's choice or else the campaign's setting)."""
    row = Character.objects.select_related("campaign").get(pk=character_id)
    if row.kind != Kind.PC or row.owner_id is None:
        return False
    return row.campaign.players_roll_rules if ask_players is None else ask_players


def players_keys(rows: dict[str, Character]) -> frozenset[str]:
    """The player characters with a player: theirs are the rolls R34 may leave to them."""
    return frozenset(key for key, row in rows.items() if row.kind == Kind.PC and row.owner_id)


def request_due_rolls(campaign, rows, outcome, *, actor, visibility) -> list[RollRequest]:
    """A request for each rules roll the outcome left to a player, unless one is already
    waiting for the same roll (more damage at 0 PV asks for no second Survie, R10)."""
    asked = []
    for due in outcome.due:
        row = rows[due.key]
        kind = _DUE_KINDS[due.kind]
        if RollRequest.objects.filter(
            character=row, kind=kind, status=RequestStatus.PENDING
        ).exists():
            continue
        # A new version: the card, which shows the request, is drawn again (play/cards.py),
        # even when the clock stopped before anything of the character changed.
        Character.objects.filter(pk=row.pk).update(version=F("version") + 1)
        asked.append(
            RollRequest.objects.create(
                campaign=campaign,
                character=row,
                kind=kind,
                rule_id=due.rule_id,
                visibility=visibility or "",
                due_at=due.at,
                clock_target=due.target,
                clock_then=due.then or {},
                holds_clock=True,
                requested_by=actor if getattr(actor, "pk", None) else None,
            )
        )
    return asked


def request_draft(request: RollRequest, actor, rows=None, *, said=None) -> audit.Draft:
    """R34's entry for a request made, answered or cancelled: who asked whom for what."""
    character = request.character
    fr, en = REQUEST_LABELS[RequestKind(request.kind)]
    arguments = request.arguments or {}
    if request.kind == RequestKind.CHECK:
        label = arguments.get("skill") or arguments.get("stat", "")
        fr = en = f"{label} ({arguments.get('stat', '')}, {arguments.get('difficulty', '')})"
    asker = request.requested_by.get_username() if request.requested_by_id else "—"
    player = owner_name(character)
    if said is None:
        said = (
            f"{fr} demandé à {player} par {asker}",
            f"{en} asked of {player} by {asker}",
        )
    return audit.Draft(
        kind=EntryKind.CHANGE,
        action="roll_request",
        rule_id="R34",
        character=character,
        game_time=request.due_at,
        field=REQUEST_FIELD,
        before=None if request.status == RequestStatus.PENDING else RequestStatus.PENDING.value,
        after={"request": request.pk, "kind": request.kind, "status": request.status},
        text_fr=f"R34 · {said[0]} ({request.rule_id})",
        text_en=f"R34 · {said[1]} ({request.rule_id})",
        # Asked of a player, whatever the roll's own visibility: the player must see it.
        visibility=Visibility.EVERYONE,
    )
