"""R34: a waiting rules roll that the rules no longer call for lapses, in the action that did it.

The runner (`services._run`) sweeps the campaign's waiting rules rolls twice in every action's
transaction: before the action (one left from before, so that no request stays that nobody
can close) and after it (the action healed, stabilised, killed…). Each one whose roll the
engine no longer calls for (`engine.lapse_reason`) ends as lapsed, with its reason: an entry
naming R34 and its rule, the character's card drawn again (its version), and a clock stopped
at it going on from where it stopped (`engine.lapse_roll`), with the server's dice and the
players' rolls asked again if it stops again.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from django.db.models import F
from django.utils import timezone

from characters.models import Character
from journal.texts import de
from play.models import RequestKind, RequestStatus, RollRequest
from rules import engine
from rules.engine.lapse import ROLL_NAMES

# A rules roll's request kind, as the engine names the roll.
ENGINE_KIND = {
    RequestKind.DEATHS_DOOR: "deaths_door",
    RequestKind.COMA_HOUR: "coma_hour",
    RequestKind.WAKE_CLOCK: "wake",
    RequestKind.SLEEP: "sleep",
}


def _waiting(campaign):
    return RollRequest.objects.filter(
        campaign=campaign, status=RequestStatus.PENDING, kind__in=list(ENGINE_KIND)
    )


def rules_rolls_wait(campaign) -> bool:
    """Whether a rules roll waits: the action then loads every character, since a lapse may
    let the clock go on (R34)."""
    return _waiting(campaign).exists()


@dataclass
class Swept:
    """The lapses of one sweep: their outcome (on the state given, None when none lapsed)
    and the requests that lapsed, in order."""

    outcome: engine.Outcome | None = None
    requests: list[RollRequest] = field(default_factory=list)

    def drafts(self, rows, actor) -> list:
        """The entries: each request's R34 line, then what the clock going on did."""
        from play import services  # services runs the sweep: imported when it is used

        written = []
        for request in self.requests:
            name = request.character.name
            fr, en, _rule = ROLL_NAMES[ENGINE_KIND[RequestKind(request.kind)]]
            said = (
                f"la demande de jet {fr} {de(name)} devient sans objet : {request.result_fr}",
                f"{name}'s request for a {en} lapses: {request.result_en}",
            )
            written.append(services._request_draft(request, actor, said=said))
        if self.outcome is not None:
            written += services._drafts("clock", self.outcome, rows)
        return written


def sweep(campaign, rows, state, ruleset, defer) -> Swept:
    """Lapse every waiting rules roll `state` no longer calls for, in the order they were
    asked, each on the state the previous one left (a clock going on changes it)."""
    pending = list(
        _waiting(campaign)
        .select_for_update(of=("self",))
        .select_related("character", "character__owner", "requested_by")
        .order_by("pk")
    )
    swept = Swept()
    parts = []
    rng = random.SystemRandom()
    for request in pending:
        key = str(request.character_id)
        if key not in rows:
            continue
        kind = ENGINE_KIND[RequestKind(request.kind)]
        reason = engine.lapse_reason(state, key, kind, request.due_at, ruleset)
        if reason is None:
            continue
        outcome = engine.lapse_roll(
            state,
            key,
            kind,
            request.due_at,
            rng=rng,
            to=request.clock_target,
            then=request.clock_then or None,
            ruleset=ruleset,
            defer=defer,
        )
        parts.append(outcome)
        state = outcome.state
        request.status = RequestStatus.LAPSED
        request.closed_at = timezone.now()
        request.result_fr, request.result_en = reason
        request.save(update_fields=["status", "closed_at", "result_fr", "result_en"])
        # A new version: the card (GM's dashboard, player's phone) drops the request.
        Character.objects.filter(pk=request.character_id).update(version=F("version") + 1)
        swept.requests.append(request)
    if parts:
        swept.outcome = joined(parts[-1].state, parts)
    return swept


def joined(state: engine.CampaignState, parts) -> engine.Outcome:
    """Outcomes one after the other as one, ending on `state`."""
    parts = [part for part in parts if part is not None]

    def all_of(name):
        return tuple(item for part in parts for item in getattr(part, name))

    return engine.Outcome(
        state,
        rolls=all_of("rolls"),
        checks=all_of("checks"),
        changes=all_of("changes"),
        rules=tuple(dict.fromkeys(all_of("rules"))),
        lines=all_of("lines"),
        events=all_of("events"),
        due=all_of("due"),
    )


def lapse_waiting(*, campaign_id: int, actor):
    """R34: the waiting rules rolls the rules no longer call for lapse, and nothing else
    happens: the runner's sweep, on its own (an answer to one of them comes here)."""
    from play import services

    return services._run(
        campaign_id=campaign_id,
        actor=actor,
        action="roll_request",
        operation=lambda t: engine.Outcome(t.state),
    )
