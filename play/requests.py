"""R34: the GM asks a player for a roll; the player (or the GM instead) rolls it.

Three services, each in one transaction with its entry in the log (rule R34, naming who asked
and who rolled): `roll_request_create` (the GM asks: a test, or a rules roll the state calls
for), `roll_request_answer` (the owner rolls on the server or types the die, R9; or the GM
rolls it instead) and `roll_request_cancel`. An answer plays the very roll the GM's own
service plays (`REQUEST_ROLLS`, built on the same `Roll`s, through the same runner),
so the rules apply it exactly as if the GM had rolled; a roll the clock stopped at (R11,
R13) then lets the clock go on to where it was going. Rules rolls the clock or an action
leave to a player are asked in that action's own transaction (`services.request_due_rolls`).

Each write bumps the character's version, so its card (which shows the request) is drawn
again and pushed live to the GM's dashboard and the player's phone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from django.db import transaction
from django.db.models import F, Prefetch
from django.utils import timezone

from campaign.models import Campaign, Visibility
from characters.models import Character, Kind
from journal import audit
from journal.events import publish
from journal.models import EntryKind
from play.models import RequestKind, RequestStatus, RollRequest
from play.services.asking import REQUEST_LABELS, request_draft
from play.services.character import REQUEST_ROLLS
from play.services.runner import Result, Roll, roll_odds, run_roll, stale_requests_lapse
from rules import engine
from rules.engine.text import MINUS, check_text, vital_text

# What the GM may ask for by hand; the others come from the rules (R10 damage, the clock).
ASKED_BY_HAND = (RequestKind.CHECK, RequestKind.WAKE, RequestKind.FALL_ILL)


class RequestRefused(engine.RuleError):
    code = "request_refused"


@dataclass(frozen=True)
class Odds:
    percent: int
    rule_id: str


def _roll_for(request: RollRequest) -> tuple[Roll, bool | None]:
    """The roll an answer plays, as the GM's own service would, and whether the players'
    rules rolls stay theirs afterwards (the clock going on may stop again, R34: None, the
    campaign's setting as it is now)."""
    arguments = request.arguments or {}
    pk = request.character_id
    kind = request.kind
    if kind in ASKED_BY_HAND:
        return REQUEST_ROLLS["ask"](pk, kind=kind, **arguments), False
    if kind == RequestKind.DEATHS_DOOR:
        return REQUEST_ROLLS["deaths_door"](pk), False
    if kind == RequestKind.SLEEP:
        return REQUEST_ROLLS["sleep"](pk), False
    clock_kind = "coma_hour" if kind == RequestKind.COMA_HOUR else "wake"
    target = request.clock_target or request.due_at
    then = request.clock_then or None
    # The clock going on may stop again, for the players while the campaign's setting says so.
    roll = REQUEST_ROLLS["clock_resume"](pk, kind=clock_kind, to=target, then=then)
    return roll, None


def request_odds(request: RollRequest, campaign: Campaign, character=None) -> Odds | None:
    """The exact odds of the roll the request asks for, as it would be rolled now (the same
    operation weighed, `engine.first_test_odds`); None when it would roll no test.
    `character`: its row as a card read it (conditions, sequels and illness with it), so that
    drawing the card reads nothing more; its own test is the first the roll makes."""
    roll, _ask = _roll_for(request)
    rows = {str(character.pk): character} if character is not None else None
    try:
        odds = roll_odds(roll, campaign, rows)
    except engine.RuleError:
        return None
    if odds is None:
        return None
    return Odds(odds.percent, odds.plan.rule_id)


def _bump(character_id: int) -> None:
    """A new version of the character: its card (which shows its requests) is drawn again."""
    Character.objects.filter(pk=character_id).update(version=F("version") + 1)


def _write(campaign, request, actor, *, said=None):
    entries = audit.append(
        campaign=campaign,
        actor=actor,
        drafts=[request_draft(request, actor, said=said)],
    )
    publish(campaign.pk, [request.character_id], entries[-1].pk)
    return entries


def roll_request_create(
    *,
    character_id: int,
    actor,
    kind: str = RequestKind.CHECK,
    stat: str | None = None,
    skill: str | None = None,
    difficulty: int | None = None,
    modifier: int = 0,
    severity: int | None = None,
    name: str = "",
    sequel_cause: str = "",
    visibility: str | None = None,
) -> Result:
    """The GM asks the character's player for a roll (R34): a test (R5: `stat`, `skill`,
    `difficulty`, `modifier`), a waking try (R13) or Constitution on falling ill (R28), or
    R10's Survie when it is due. Refused (`RuleError`) when the character has no player,
    already awaits a roll, or when the rules would refuse the roll itself."""
    kind = RequestKind(kind)
    arguments: dict = {}
    if kind == RequestKind.CHECK:
        arguments = {
            "stat": stat,
            "skill": skill or "",
            "difficulty": difficulty,
            "modifier": modifier or 0,
        }
    elif kind == RequestKind.WAKE:
        arguments = {"sequel_cause": sequel_cause}
    elif kind == RequestKind.FALL_ILL:
        arguments = {"severity": int(severity or 1), "name": name}
    elif kind != RequestKind.DEATHS_DOOR:
        raise RequestRefused(
            "Ce jet vient des règles : l’horloge le demande elle-même (R34).",
            "This roll comes from the rules: the clock asks for it itself (R34).",
            rule_id="R34",
        )
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(
            pk=Character.objects.values_list("campaign_id", flat=True).get(pk=character_id)
        )
        character = (
            Character.objects.select_for_update(of=("self",))
            .select_related("owner")
            .get(pk=character_id)
        )
        if character.kind != Kind.PC or character.owner_id is None:
            raise RequestRefused(
                f"{character.name} n’a pas de joueur ou joueuse : lancez ce jet vous-même.",
                f"{character.name} has no player: roll it yourself.",
                rule_id="R34",
            )
        waiting = RollRequest.objects.filter(
            character=character, status=RequestStatus.PENDING
        ).first()
        if waiting is not None:
            raise RequestRefused(
                f"{character.name} a déjà un jet en attente : attendez la réponse, lancez-le "
                "vous-même ou annulez-le d’abord.",
                f"{character.name} already awaits a roll: wait for the answer, roll it "
                "yourself or cancel it first.",
                rule_id="R34",
            )
        request = RollRequest(
            campaign=campaign,
            character=character,
            kind=kind,
            rule_id="",
            arguments=arguments,
            visibility=visibility or "",
            due_at=campaign.clock,
            holds_clock=kind != RequestKind.CHECK,
            requested_by=actor,
        )
        # The roll the rules would refuse now is refused now, with their reason; its odds
        # name its rule (R5, R10, R13, R28).
        roll, _ask = _roll_for(request)
        odds = roll_odds(roll, campaign)
        if odds is None:
            raise RequestRefused(
                f"{character.name} n’a aucun test à lancer pour cela maintenant.",
                f"{character.name} has no test to roll for that now.",
                rule_id="R34",
            )
        request.rule_id = odds.plan.rule_id
        request.save()
        _bump(character.pk)
        entries = _write(campaign, request, actor)
    return Result(_empty_outcome(), entries, [character.pk], (request,))


def roll_requests_create(
    *, campaign_id: int, actor, character_ids: Iterable[int], **arguments
) -> list[Result]:
    """The same test asked of several players at once (the party bar): one request each, all
    or none (a refusal names the character and nothing is asked)."""
    with transaction.atomic():
        return [
            roll_request_create(character_id=pk, actor=actor, **arguments)
            for pk in Character.objects.filter(
                campaign_id=campaign_id, pk__in=list(character_ids)
            ).values_list("pk", flat=True)
        ]


def roll_request_answer(*, request_id: int, actor, dice: Iterable[int] | None = None) -> Result:
    """The roll asked for, by the player (server roll, or `dice` typed in, R9) or by the GM
    instead; through the same runner and operation as the GM's own roll. The answer's R34
    entry (who asked, who rolled, how) is in the roll's own batch."""
    dice = list(dice or ())
    with transaction.atomic():
        request = _locked(request_id)
        # A rules roll no longer due is not rolled: it lapses, and its clock goes on (R34).
        lapsed = stale_requests_lapse(
            campaign_id=request.campaign_id, actor=actor, character_ids=[request.character_id]
        )
        request.refresh_from_db(fields=["status"])
        if request.status == RequestStatus.LAPSED:
            return lapsed[-1]
        roll, ask = _roll_for(request)
        request.status = RequestStatus.ANSWERED
        request.closed_by = actor
        request.closed_at = timezone.now()
        request.typed_in = bool(dice)
        # Closed before the roll: the clock going on may ask the same roll again (R11).
        request.save()
        asker = request.requested_by.get_username() if request.requested_by_id else "—"
        roller = actor.get_username()
        how_fr, how_en = ("dé saisi", "typed-in die") if dice else ("jet du serveur", "server roll")

        def note(action, outcome, rows):
            return [
                request_draft(
                    request,
                    actor,
                    said=(
                        f"jet demandé par {asker}, lancé par {roller} ({how_fr})",
                        f"roll asked by {asker}, rolled by {roller} ({how_en})",
                    ),
                )
            ]

        result = run_roll(
            roll,
            then_server=True,
            actor=actor,
            dice=dice or None,
            visibility=request.visibility or None,
            ask_players=ask,
            note=note,
            campaign_id=request.campaign_id,
        )
        request.result_fr, request.result_en = _summary(result.outcome, request.character_id)
        # The visibility the roll was logged with ("": the campaign's default, which may
        # change later): a GM-only roll's result stays the GM's on the cards too.
        request.visibility = next(
            (e.visibility for e in result.entries if e.kind == EntryKind.ROLL),
            request.visibility,
        )
        request.save()
        _bump(request.character_id)
    return result


def roll_request_cancel(*, request_id: int, actor) -> Result:
    """The GM withdraws a request they chose to make; nothing of the character changes. A
    roll the rules made due is refused: it stays due, and the clock (with the night, the rest
    or the round that moved it) waits for it, so the GM rolls it instead (R34)."""
    with transaction.atomic():
        request = _locked(request_id)
        if not request.cancellable:
            raise RequestRefused(
                "Ce jet est dû selon les règles : il ne s’annule pas. Lancez-le vous-même "
                "depuis la carte si le joueur ou la joueuse ne peut pas (R34).",
                "This roll is due by the rules: it cannot be cancelled. Roll it yourself "
                "from the card if the player cannot (R34).",
                rule_id="R34",
            )
        request.status = RequestStatus.CANCELLED
        request.closed_by = actor
        request.closed_at = timezone.now()
        request.save()
        _bump(request.character_id)
        campaign = Campaign.objects.get(pk=request.campaign_id)
        entries = _write(
            campaign,
            request,
            actor,
            said=(
                f"demande annulée par {actor.get_username()}",
                f"request cancelled by {actor.get_username()}",
            ),
        )
    return Result(_empty_outcome(), entries, [request.character_id])


# Why a request no longer waits, for whoever tries to answer or cancel it.
_CLOSED = {
    RequestStatus.ANSWERED: ("Ce jet a déjà été lancé.", "This roll has already been made."),
    RequestStatus.CANCELLED: ("Cette demande a été annulée.", "This request was cancelled."),
    RequestStatus.LAPSED: (
        "Ce jet n’est plus dû : la demande est devenue caduque.",
        "This roll is no longer due: the request lapsed.",
    ),
}


def _locked(request_id: int) -> RollRequest:
    """The request, pending, locked after its campaign (the order every write takes)."""
    campaign_id = RollRequest.objects.values_list("campaign_id", flat=True).get(pk=request_id)
    Campaign.objects.select_for_update().get(pk=campaign_id)
    request = (
        RollRequest.objects.select_for_update(of=("self",))
        .select_related("character", "character__owner", "requested_by")
        .get(pk=request_id)
    )
    if request.status != RequestStatus.PENDING:
        fr, en = _CLOSED[RequestStatus(request.status)]
        raise RequestRefused(fr, en, rule_id="R34")
    return request


def _summary(outcome: engine.Outcome, character_id: int) -> tuple[str, str]:
    """The answer in a line: the test and where it leaves the character (coma, borrowed
    time…)."""
    key = str(character_id)
    checks = [c for c in outcome.checks if c.character_key == key] or list(outcome.checks)
    fr, en = check_text(checks[0]) if checks else ("", "")
    vital = [c for c in outcome.changes if c.character_key == key and c.field == "vital"]
    if vital:
        gender = outcome.state.character(key).gender if outcome.state else "iel"
        now_fr, now_en = vital_text(vital[-1].after, gender)
        fr, en = f"{fr} · désormais {now_fr}", f"{en} · now {now_en}"
    return fr, en


def _empty_outcome() -> engine.Outcome:
    return engine.Outcome(state=None)  # type: ignore[arg-type]  # no game state moved


SERVICES = (roll_request_create, roll_request_answer, roll_request_cancel)


@dataclass(frozen=True)
class RequestLine:
    """A request as a card shows it: what is asked, of whom, its odds; or how it ended."""

    request: RollRequest
    label: str
    player: str
    asker: str
    odds: Odds | None = None
    result: str = ""
    closer: str = ""
    # Answered by the character's own player: her phone showed the result under the card
    # when she rolled it (and her feed keeps it), so her card does not say it again.
    by_owner: bool = False

    @property
    def sealed(self) -> bool:
        """Answered with a GM-only roll: its result is the GM's (the players see the roll
        sealed in the history, journal/sealing.py), the answering player's card included."""
        return self.request.visibility == Visibility.GM_ONLY


def request_label(request: RollRequest, lang: int) -> str:
    """ "Crochetage (ADR) · difficulté 12 · MJ +1", or the rules roll's name, with its rule."""
    arguments = request.arguments or {}
    if request.kind == RequestKind.CHECK:
        stat = arguments.get("stat", "")
        skill = arguments.get("skill") or ""
        name = f"{skill} ({stat})" if skill else stat
        words = (("difficulté", "MJ"), ("difficulty", "GM"))[lang]
        parts = [name, f"{words[0]} {arguments.get('difficulty')}"]
        if arguments.get("modifier"):
            modifier = arguments["modifier"]
            sign = "+" if modifier > 0 else MINUS  # "MJ −2": the minus sign, not a hyphen
            parts.append(f"{words[1]} {sign}{abs(modifier)}")
        return " · ".join(parts) + f" ({request.rule_id})"
    fr, en = REQUEST_LABELS[RequestKind(request.kind)]
    return f"{(fr, en)[lang]} ({request.rule_id})"


CARD_REQUESTS = 4  # the latest requests a card reads: those waiting, or the last answer
PREFETCHED = "latest_roll_requests"


def _card_requests():
    return RollRequest.objects.select_related("requested_by", "closed_by").order_by("-pk")


def card_requests_prefetch() -> Prefetch:
    """The cards' read of their requests, in one query for all the characters of a page."""
    # to_attr: Django refuses a sliced prefetch into the related manager's cache.
    return Prefetch("roll_requests", queryset=_card_requests()[:CARD_REQUESTS], to_attr=PREFETCHED)


def card_requests(character: Character, campaign: Campaign, lang: int) -> tuple:
    """What the character's card shows of its requests: those waiting, else the last one's
    answer (R34). Read when the card is drawn (its cache follows the character's version,
    which every request bumps)."""
    rows = getattr(character, PREFETCHED, None)
    if rows is None:
        rows = list(_card_requests().filter(character_id=character.pk)[:CARD_REQUESTS])
    waiting = [r for r in reversed(rows) if r.pending]
    player = character.owner.get_username() if character.owner_id else "—"
    lines = []
    for request in waiting or rows[:1]:
        asker = request.requested_by.get_username() if request.requested_by_id else "—"
        line = RequestLine(request, request_label(request, lang), player, asker)
        if request.pending:
            line = replace(line, odds=request_odds(request, campaign, character))
        else:
            closer = request.closed_by.get_username() if request.closed_by_id else "—"
            result = (request.result_fr, request.result_en)[lang]
            by_owner = (
                request.status == RequestStatus.ANSWERED
                and request.closed_by_id is not None
                and request.closed_by_id == character.owner_id
            )
            line = replace(line, result=result, closer=closer, by_owner=by_owner)
        lines.append(line)
    return tuple(lines)
