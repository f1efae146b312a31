"""The runner: every service's one path to the engine (DESIGN.md, "How a change flows").

`run` opens one transaction, locks the campaign row (which orders the audit chain) and the
characters the action touches, builds the engine's state from the rows, calls `rules.engine`
with a cryptographic RNG or the dice a person typed in (R9), writes the new state back and one
audit entry per roll and per change, and publishes them for delivery at commit. A `RuleError`
leaves rows and log as they were. A `Roll` is an action that may roll a test; `run_roll` plays
it, `roll_odds` weighs it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import (
    BooleanField,
    F,
    IntegerField,
    Subquery,
    Value,
    prefetch_related_objects,
)
from django.db.models.expressions import RawSQL
from django.utils import timezone

from campaign.models import Campaign
from characters import state as rows_state
from characters.models import Character, Condition, Sequel
from journal import audit
from journal.events import publish
from journal.models import AuditEntry
from journal.texts import de
from play.models import Proposal, ProposalStatus, RequestKind, RequestStatus, RollRequest
from play.reads import AT_RISK
from play.services.asking import (
    REQUEST_LABELS,
    RULES_ROLL_KINDS,
    ClockWaits,
    owner_name,
    players_keys,
    request_draft,
    request_due_rolls,
)
from play.services.entries import entry_drafts
from rules import engine


@dataclass(frozen=True)
class Result:
    outcome: engine.Outcome
    entries: list[AuditEntry]
    character_ids: list[int]
    # R34: the roll requests the action made (a rules roll left to a player).
    requests: tuple[RollRequest, ...] = ()
    # The campaign and the character rows as the action locked and wrote them, for the answer
    # to draw its cards and bars from without reading them again (None: read them). `rows`
    # holds only the rows whose conditions, sequels and illness the action left as they were
    # read (their prefetched sets still true); `campaign` is None when anything ran after
    # the action's own write (a waiting roll that lapsed).
    campaign: Campaign | None = None
    rows: dict[str, Character] | None = None
    # The engine's state before the action (with `campaign`): what the answer compares.
    before: engine.CampaignState | None = None
    # Whether anyone in the campaign is, after the action, where the clock may kill them
    # (R10, R11: coma, borrowed time), known without a read (with `campaign`; else None).
    clock_at_risk: bool | None = None


class UnusedTypedDice(engine.RuleError):
    """More dice were typed in than the action rolled: refused rather than silently dropped."""

    code = "unused_typed_dice"


def dice_source(typed: Iterable[int] | None, *, then_server: bool = False):
    """The server's cryptographic RNG, or the values a person typed in from physical dice;
    `then_server`: the typed values first, then the server for any die after them (R34: a
    player types the die they were asked for; the sequel's D6 a success brings, or the rolls
    of the clock going on after it, are the server's, and logged as such, R9)."""
    values = tuple(typed or ())
    if values and then_server:
        return TypedThenServer(values)
    return engine.ScriptedDice(values, typed_in=True) if values else random.SystemRandom()


class TypedThenServer:
    """Typed-in values, then the server's RNG. `typed_in` says where the last die came from:
    the engine reads it once a roll's dice are drawn (rules/engine/dice.py, roll)."""

    def __init__(self, values: tuple[int, ...]):
        self._typed = engine.ScriptedDice(values, typed_in=True)
        self._server = random.SystemRandom()
        self.typed_in = True

    @property
    def remaining(self) -> tuple[int, ...]:
        return self._typed.remaining

    def draw(self, sides: int) -> int:
        if self._typed.remaining:
            self.typed_in = True
            return self._typed.draw(sides)
        self.typed_in = False
        return self._server.randrange(sides) + 1


def gm_modifiers(value: int) -> tuple[engine.Modifier, ...]:
    """The GM's own modifier to a test (R5), as the engine and the log name it."""
    return (engine.Modifier("MJ", value, None, "GM"),) if value else ()


# ---------------------------------------------------------------------------------------------
# The runner


@dataclass(frozen=True)
class Table:
    """What an operation sees: the locked rows, the engine's state built from them, the dice."""

    campaign: Campaign
    rows: dict[str, Character]
    state: engine.CampaignState
    ruleset: engine.Ruleset
    rng: random.Random | engine.DiceSource
    # R34: the characters whose rules rolls go to their players in this action.
    defer: frozenset[str] = frozenset()


Operation = Callable[[Table], engine.Outcome]
Drafts = Callable[[str, engine.Outcome, dict[str, Character]], list[audit.Draft]]


def run(
    *,
    actor,
    action: str,
    operation: Operation,
    campaign_id: int | None = None,
    character_ids: Iterable[int] | None = None,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
    drafts: Drafts | None = None,
    fighting: bool = False,
    proposed_by: str = "",
    ask_players: bool | None = False,
    holds_clock: bool = False,
    then_server: bool = False,
    note: Drafts | None = None,
) -> Result:
    """Run one operation on the campaign's characters (those ids, or all of them when None).

    R34: `ask_players` (None: the campaign's setting) leaves the rules rolls of player
    characters to their players (unless dice were typed in: the GM rolled them); each one
    the outcome lists as due becomes a request to its owner, in the same batch. An action
    that `holds_clock` (it moves the game clock) is refused while a request holds it.
    `note` adds entries after the action's own (an answer's R34 entry).

    Without `campaign_id`, the campaign is the first character's (a character never moves).
    `fighting` adds the running fight's combatants to those ids, read once the campaign is
    locked, so that no other action changes the fight in between (R33).
    `proposed_by`: the player whose proposal the actor approved (play/proposals.py), named on
    every entry beside the actor who approved it.
    The outcome's changes to `rows_state.SHEET_FIELDS` (not part of the engine's state) are
    written to the rows beside the state.
    """
    if character_ids is not None:
        character_ids = list(character_ids)
    if campaign_id is None:
        # The first character's campaign, read in the locking query itself.
        campaign_id = Subquery(
            Character.objects.filter(pk=character_ids[0]).values("campaign_id")[:1]
        )
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        if fighting and character_ids is not None and campaign.fight:
            character_ids = [*character_ids, *map(int, campaign.fight["order"])]
        if holds_clock:
            require_clock_free(campaign, actor)
        rows = locked_rows(campaign, character_ids, cards=True, others=character_ids)
        old = rows_state.campaign_state(campaign, rows.values())
        rng = dice_source(dice, then_server=True) if then_server else dice_source(dice)
        if ask_players is None:
            ask_players = campaign.players_roll_rules
        # Dice the GM typed in are that roll; an answer's typed die is the asked roll only.
        asking = ask_players and (then_server or not dice)
        defer = players_keys(rows) if asking else frozenset()
        ruleset = rows_state.ruleset_for(campaign)
        outcome = operation(Table(campaign, rows, old, ruleset, rng, defer))
        unused = getattr(rng, "remaining", ())
        if unused:
            values = ", ".join(map(str, unused))
            raise UnusedTypedDice(
                f"Ces valeurs de dés saisies n’ont pas servi : {values}. Rien n’a été appliqué.",
                f"These typed-in dice values were not used: {values}. Nothing was applied.",
            )
        sheet = [c for c in outcome.changes if c.field in rows_state.SHEET_FIELDS]
        rows_state.save_state(campaign, rows, old, outcome.state, sheet=sheet)
        written = (drafts or entry_drafts)(action, outcome, rows)
        if proposed_by:
            _name_proposer(written, proposed_by)
        if note is not None:
            written += note(action, outcome, rows)
        asked = request_due_rolls(campaign, rows, outcome, actor=actor, visibility=visibility)
        written += [request_draft(request, actor, rows) for request in asked]
        entries = audit.append(
            campaign=campaign, actor=actor, drafts=written, visibility=visibility
        )
        changed = sorted(
            {e.character_id for e in entries if e.character_id is not None}
            | _seats_moved(old.fight, outcome.state.fight)
        )
        if entries:
            # Inside the transaction: delivered only once it commits (journal/events.py).
            # The batch is these entries: whether one is the campaign's is known here.
            of_campaign = any(e.character_id is None for e in entries)
            publish(campaign.pk, changed, entries[-1].pk, changes_campaign=of_campaign)
        # R34: what this action changed may leave a waiting rules roll no longer due (none
        # can when none of its characters had one waiting and the action asked none).
        lapsed = []
        if asked or any(row.rules_roll_waits for row in rows.values()):
            lapsed = stale_requests_lapse(campaign_id=campaign.pk, actor=actor, character_ids=rows)
    if lapsed:  # the lapses wrote after the action: its rows are no longer the state
        return Result(outcome, entries, changed, tuple(asked))
    before = {c.key: c for c in old.characters}
    kept = {
        after.key: rows[after.key]
        for after in outcome.state.characters
        if _same_related(before.get(after.key), after) and after.key in rows
    }
    at_risk = any(row.at_risk_elsewhere or row.vital in AT_RISK for row in rows.values())
    return Result(
        outcome,
        entries,
        changed,
        tuple(asked),
        campaign=campaign,
        rows=kept,
        before=old,
        clock_at_risk=at_risk,
    )


def _same_related(old: engine.CharacterState | None, new: engine.CharacterState) -> bool:
    """Whether the action left a character's conditions, sequels and illness as they were
    read (rows_state.save_state rewrites those rows apart: the row's prefetched ones would
    be stale)."""
    return old is not None and (old.conditions, old.sequels, old.illness) == (
        new.conditions,
        new.sequels,
        new.illness,
    )


def _name_proposer(drafts: list[audit.Draft], proposer: str) -> None:
    """A player proposed what the actor approved: each entry says so in its own sentence (the
    actor is the GM who approved)."""
    for draft in drafts:
        draft.text_fr = f"{draft.text_fr} · proposé par {proposer}"
        draft.text_en = f"{draft.text_en} · proposed by {proposer}"


def _seats(fight: engine.Fight | None) -> dict[str, tuple]:
    if fight is None:
        return {}
    return {
        key: (fight.round, place, place == fight.turn, *fight.left(key))
        for place, key in enumerate(fight.order)
    }


def _seats_moved(before: engine.Fight | None, after: engine.Fight | None) -> set[int]:
    """The characters whose seat in the fight changed (R33: the turn, the order, what is
    left, in or out): their cards show it, though no entry of theirs says so (the turn
    passing from one to the next names only the next), so they are published as changed."""
    if before == after:
        return set()
    old, new = _seats(before), _seats(after)
    return {int(key) for key in old.keys() | new.keys() if old.get(key) != new.get(key)}


# The rows' subqueries (what a row has besides its columns), written in SQL once: the ORM
# would build and compile each of them again on every read, and this read is in every action
# (most of its CPU was that compilation). They name the outer row by its table, which is the
# base table of `locked_rows`' own query (a top-level query: never a subquery of another).
_PROPOSAL, _REQUEST, _CONDITION, _SEQUEL, _CHARACTERS = (
    connection.ops.quote_name(model._meta.db_table)
    for model in (Proposal, RollRequest, Condition, Sequel, Character)
)
_OF_ROW = f"U0.character_id = {_CHARACTERS}.{connection.ops.quote_name('id')}"
_RULES = sorted(str(kind) for kind in RULES_ROLL_KINDS)


def _row_exists(table: str, where: str = "", params=()) -> RawSQL:
    """Whether `table` has a row of the character (and `where`)."""
    where = f" AND {where}" if where else ""
    sql = f"SELECT 1 FROM {table} U0 WHERE {_OF_ROW}{where}"
    return RawSQL(f"EXISTS ({sql})", list(params), output_field=BooleanField())


def _at_risk_elsewhere(campaign: Campaign, others) -> RawSQL:
    """Whether a character of the campaign outside `others` is where the clock may kill."""
    others = [Character._meta.pk.get_prep_value(pk) for pk in others]
    where = "U0.campaign_id = %s AND U0.vital IN ({})".format(", ".join(["%s"] * len(AT_RISK)))
    if others:
        where += " AND NOT (U0.id IN ({}))".format(", ".join(["%s"] * len(others)))
    sql = f"SELECT 1 FROM {_CHARACTERS} U0 WHERE {where}"
    params = [campaign.pk, *AT_RISK, *others]
    return RawSQL(f"EXISTS ({sql})", params, output_field=BooleanField())


def locked_rows(
    campaign: Campaign, character_ids=None, *, lock=True, cards=False, others=None
) -> dict[str, Character]:
    """The campaign's characters (all, or those ids) locked for this transaction, keyed as
    the engine keys them, with what the engine's state needs loaded (`lock=False`: read
    only, for odds). `cards`: with what a card reads besides (its owner, the proposals
    waiting) and whether a character outside `others` (None: the whole campaign read here)
    is where the clock may kill (`at_risk_elsewhere`), so that the action's answer draws its
    cards and its party bar from these rows."""
    rows = Character.objects.all()
    if cards:
        # Read once the campaign is locked (a statement of its own, so it sees every write
        # committed before the lock): whether a rules roll waits for the character (R34: only
        # then may one lapse after the action), and whether it has any request at all (its
        # card lists them).
        rows = rows.select_related("owner").annotate(
            pending_proposals=RawSQL(
                f"SELECT COUNT(*) FROM {_PROPOSAL} U0 WHERE {_OF_ROW} AND U0.status = %s",
                [str(ProposalStatus.PENDING)],
                output_field=IntegerField(),
            ),
            rules_roll_waits=_row_exists(
                _REQUEST,
                "U0.status = %s AND U0.kind IN ({})".format(", ".join(["%s"] * len(_RULES))),
                [str(RequestStatus.PENDING), *_RULES],
            ),
            has_requests=_row_exists(_REQUEST),
            at_risk_elsewhere=(
                _at_risk_elsewhere(campaign, others) if others is not None else Value(False)
            ),
        )
    if lock:
        # of=("self",): PostgreSQL refuses FOR UPDATE on the nullable side of the outer join
        # that select_related("illness") adds.
        rows = rows.select_for_update(of=("self",))
    # Whether each has conditions and sequels, in the row's own query: those read apart only
    # for the rows that have some (most have none: no query then).
    rows = (
        rows.filter(campaign=campaign)
        .order_by("pk")
        .select_related("illness")
        .annotate(has_conditions=_row_exists(_CONDITION), has_sequels=_row_exists(_SEQUEL))
    )
    if character_ids is not None:
        rows = rows.filter(pk__in=list(character_ids))
    found = list(rows)
    for name in ("conditions", "sequels"):
        some = [row for row in found if getattr(row, f"has_{name}")]
        for row in found:
            if not getattr(row, f"has_{name}"):
                _prefetched_empty(row, name)
        prefetch_related_objects(some, name)
    return {str(row.pk): row for row in found}


def _prefetched_empty(row: Character, name: str) -> None:
    """The row's `name` set known empty, where `prefetch_related` keeps what it read: an empty
    set (`none()`), which `row.conditions.all()` then gives without a query, already read as
    prefetch_related leaves its sets (else each first reading compiles the query to find it
    empty)."""
    if not hasattr(row, "_prefetched_objects_cache"):
        row._prefetched_objects_cache = {}
    empty = getattr(row, name).none()
    empty._result_cache = []
    empty._prefetch_done = True
    row._prefetched_objects_cache[name] = empty


def on_character(
    character_id: int,
    action: str,
    operation: Operation,
    *,
    actor,
    dice=None,
    visibility=None,
    proposed_by="",
) -> Result:
    return run(
        actor=actor,
        action=action,
        operation=operation,
        character_ids=[character_id],
        dice=dice,
        visibility=visibility,
        proposed_by=proposed_by,
    )


def on_party(campaign_id: int, action: str, operation: Operation, **kwargs) -> Result:
    # Every character: the clock and the rests may concern anyone (timers, sleepers).
    return run(campaign_id=campaign_id, action=action, operation=operation, **kwargs)


@dataclass(frozen=True)
class Roll:
    """An action on a character that may roll a test: its engine operation and the characters
    it reads. Its service plays it (`run_roll`); `action_odds` weighs the same operation, so the
    odds shown before the roll are those of the roll that follows."""

    action: str
    operation: Operation
    character_ids: list[int] | None  # None: every character (the clock going on, R34)


def run_roll(
    roll: Roll,
    *,
    actor,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
    proposed_by: str = "",
    ask_players: bool | None = False,
    then_server: bool = False,
    note: Drafts | None = None,
    campaign_id: int | None = None,
) -> Result:
    """A roll played through the runner: the GM's own services play theirs this way, and
    R34's answers too (play/requests.py: `then_server`, typed dice first and the server's
    after, and their `note`)."""
    return run(
        campaign_id=campaign_id,
        actor=actor,
        action=roll.action,
        operation=roll.operation,
        character_ids=roll.character_ids,
        dice=dice,
        visibility=visibility,
        proposed_by=proposed_by,
        ask_players=ask_players,
        then_server=then_server,
        note=note,
    )


def roll_odds(roll: Roll, campaign: Campaign, rows: dict[str, Character] | None = None):
    """The odds of the first test `roll` would roll now (`action_odds`), read only. `rows`:
    the characters already read, with what the engine's state needs (a card's row: its first
    test is its own, R34), instead of reading them again."""
    if rows is None:
        rows = locked_rows(campaign, roll.character_ids, lock=False)
    state = rows_state.campaign_state(campaign, rows.values())
    ruleset = rows_state.ruleset_for(campaign)
    return engine.first_test_odds(
        lambda rng: roll.operation(Table(campaign, rows, state, ruleset, rng))
    )


def roll_try(roll: Roll, campaign: Campaign, rows: dict[str, Character]) -> engine.Outcome:
    """`roll` played on rows already read (`locked_rows(..., lock=False)`) with dice thrown
    away: the `RuleError` the rules would raise now, or the outcome, and nothing written
    (a proposal's dry run, play/proposals.py)."""
    state = rows_state.campaign_state(campaign, rows.values())
    ruleset = rows_state.ruleset_for(campaign)
    return roll.operation(Table(campaign, rows, state, ruleset, random.Random()))


def require_clock_free(campaign: Campaign, actor) -> None:
    waiting = RollRequest.objects.filter(
        campaign=campaign, status=RequestStatus.PENDING, holds_clock=True
    )
    if waiting.exists() and stale_requests_lapse(campaign_id=campaign.pk, actor=actor):
        # A roll no longer due lapsed and its clock went on: this action starts from there.
        campaign.refresh_from_db()
    waiting = waiting.select_related("character", "character__owner").first()
    if waiting is None:
        return
    name, player = waiting.character.name, owner_name(waiting.character)
    fr, en = REQUEST_LABELS[RequestKind(waiting.kind)]
    raise ClockWaits(
        f"L’horloge attend le jet {de(name)} ({fr}, {waiting.rule_id}) demandé à {player} : "
        "qu’il ou elle le lance, ou lancez-le vous-même depuis sa carte (R34).",
        f"The clock waits for {name}'s roll ({en}, {waiting.rule_id}) asked of {player}: "
        "let them roll it, or roll it yourself from the card (R34).",
        rule_id="R34",
    )


def stale_requests_lapse(
    *, campaign_id: int, actor, character_ids: Iterable[int | str] | None = None
) -> list[Result]:
    """R34: every waiting rules roll (of those characters, or of all) that the rules no
    longer call for lapses: the character was healed above 0 PV, stabilised, died, or is no
    longer in the situation that made it due. The request ends as lapsed, logged, nobody
    rolls; a clock stopped at it goes on from where it stopped (and may stop again), then
    the action that moved it ends. No state leaves a request that nobody can close."""
    pending = RollRequest.objects.filter(
        campaign_id=campaign_id, status=RequestStatus.PENDING, kind__in=list(RULES_ROLL_KINDS)
    )
    if character_ids is not None:
        pending = pending.filter(character_id__in=[int(pk) for pk in character_ids])
    ids = list(pending.values_list("pk", flat=True))
    results = []
    if not ids:
        return results
    with transaction.atomic():
        Campaign.objects.select_for_update().get(pk=campaign_id)  # every write's lock order
        for pk in ids:
            # Read again: a lapse before it may have let the clock go on and lapsed it too.
            request = (
                RollRequest.objects.select_for_update(of=("self",))
                .select_related("character", "character__owner", "requested_by")
                .filter(pk=pk, status=RequestStatus.PENDING)
                .first()
            )
            if request is None:
                continue
            campaign = Campaign.objects.get(pk=campaign_id)
            rows = locked_rows(campaign, [request.character_id])
            state = rows_state.campaign_state(campaign, rows.values())
            kind = RULES_ROLL_KINDS[RequestKind(request.kind)]
            key = str(request.character_id)
            if not engine.rules_roll_due(state, key, kind, rows_state.ruleset_for(campaign)):
                results.append(_lapse(request, actor, kind))
    return results


def _lapse(request: RollRequest, actor, kind: str) -> Result:
    request.status = RequestStatus.LAPSED
    request.closed_by = actor if getattr(actor, "pk", None) else None
    request.closed_at = timezone.now()
    request.result_fr = "plus dû : personne ne le lance"
    request.result_en = "no longer due: nobody rolls it"
    request.save()
    Character.objects.filter(pk=request.character_id).update(version=F("version") + 1)
    key, to = str(request.character_id), request.clock_target
    label_fr, label_en = REQUEST_LABELS[RequestKind(request.kind)]
    player = owner_name(request.character)

    def note(action, outcome, rows):
        said = (
            f"{label_fr} demandé à {player} : le jet n’est plus dû, la demande devient caduque",
            f"{label_en} asked of {player}: the roll is no longer due, the request lapses",
        )
        return [request_draft(request, actor, said=said)]

    return run(
        campaign_id=request.campaign_id,
        actor=actor,
        action="roll_request",
        operation=lambda t: engine.lapse_roll(
            t.state,
            key,
            kind,
            rng=t.rng,
            to=to,
            ruleset=t.ruleset,
            defer=t.defer,
            then=request.clock_then or None,
        ),
        # A clock that goes on moves the whole party, as the clock does.
        character_ids=None if to is not None else [request.character_id],
        visibility=request.visibility or None,
        # The campaign's setting as it is now: turned off meanwhile, the clock runs on.
        ask_players=None,
        note=note,
    )
