"""Every game action as one typed service, all through one path (DESIGN.md, "How a change flows").

A service is named `<thing>_<verb>`, takes keyword-only arguments and returns a `Result`. Each
hands an engine operation to `_run`, the one runner: it opens one transaction, locks the
campaign row (which orders the audit chain) and the characters the action touches, builds the
engine's state from the rows, calls `rules.engine` with a cryptographic RNG or the dice a
person typed in (R9), writes the new state back and one audit entry per roll and per change,
and publishes them for delivery at commit. A `RuleError` leaves rows and log as they were.

`dice` is what a person typed in from physical dice (R9), or None for a server roll.
`visibility` is who sees the entries ("everyone" or "gm"), None for the campaign's default.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F
from django.utils import translation
from django.utils.translation import gettext as _

from campaign.models import Campaign, Membership, Role, Visibility
from campaign.services import CampaignError
from characters import state as rows_state
from characters.models import Character, Kind
from journal import audit, standing
from journal.events import publish
from journal.models import AuditEntry, EntryKind
from journal.texts import (
    CREATED,
    PROPOSAL_FIELD,
    change_text,
    de,
    field_name,
    roll_text,
    value_text,
)
from play.models import RequestKind, RequestStatus, RollRequest
from rules import engine


@dataclass(frozen=True)
class Result:
    outcome: engine.Outcome
    entries: list[AuditEntry]
    character_ids: list[int]
    # R34: the roll requests the action made (a rules roll left to a player).
    requests: tuple[RollRequest, ...] = ()


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
class _Table:
    """What an operation sees: the locked rows, the engine's state built from them, the dice."""

    campaign: Campaign
    rows: dict[str, Character]
    state: engine.CampaignState
    ruleset: engine.Ruleset
    rng: random.Random | engine.DiceSource
    # R34: the characters whose rules rolls go to their players in this action.
    defer: frozenset[str] = frozenset()


Operation = Callable[[_Table], engine.Outcome]
Drafts = Callable[[str, engine.Outcome, dict[str, Character]], list[audit.Draft]]


def _run(
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
        campaign_id = Character.objects.values_list("campaign_id", flat=True).get(
            pk=character_ids[0]
        )
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        if fighting and character_ids is not None and campaign.fight:
            character_ids = [*character_ids, *map(int, campaign.fight["order"])]
        if holds_clock:
            _require_clock_free(campaign)
        rows = _locked_rows(campaign, character_ids)
        old = rows_state.campaign_state(campaign, rows.values())
        rng = dice_source(dice, then_server=True) if then_server else dice_source(dice)
        if ask_players is None:
            ask_players = campaign.players_roll_rules
        # Dice the GM typed in are that roll; an answer's typed die is the asked roll only.
        asking = ask_players and (then_server or not dice)
        defer = _players_keys(rows) if asking else frozenset()
        ruleset = rows_state.ruleset_for(campaign)
        outcome = operation(_Table(campaign, rows, old, ruleset, rng, defer))
        unused = getattr(rng, "remaining", ())
        if unused:
            values = ", ".join(map(str, unused))
            raise UnusedTypedDice(
                f"Ces valeurs de dés saisies n’ont pas servi : {values}. Rien n’a été appliqué.",
                f"These typed-in dice values were not used: {values}. Nothing was applied.",
            )
        sheet = [c for c in outcome.changes if c.field in rows_state.SHEET_FIELDS]
        rows_state.save_state(campaign, rows, old, outcome.state, sheet=sheet)
        written = (drafts or _drafts)(action, outcome, rows)
        if proposed_by:
            _name_proposer(written, proposed_by)
        if note is not None:
            written += note(action, outcome, rows)
        asked = _ask_due(campaign, rows, outcome, actor=actor, visibility=visibility)
        written += [_request_draft(request, actor, rows) for request in asked]
        entries = audit.append(
            campaign=campaign, actor=actor, drafts=written, visibility=visibility
        )
        changed = sorted(
            {e.character_id for e in entries if e.character_id is not None}
            | _seats_moved(old.fight, outcome.state.fight)
        )
        if entries:
            # Inside the transaction: delivered only once it commits (journal/events.py).
            publish(campaign.pk, changed, entries[-1].pk)
    return Result(outcome, entries, changed, tuple(asked))


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


def _require_clock_free(campaign: Campaign) -> None:
    waiting = (
        RollRequest.objects.filter(
            campaign=campaign, status=RequestStatus.PENDING, holds_clock=True
        )
        .select_related("character", "character__owner")
        .first()
    )
    if waiting is None:
        return
    name, player = waiting.character.name, _owner_name(waiting.character)
    fr, en = REQUEST_LABELS[RequestKind(waiting.kind)]
    raise ClockWaits(
        f"L’horloge attend le jet {de(name)} ({fr}, {waiting.rule_id}) demandé à {player} : "
        "qu’il ou elle le lance, ou lancez-le vous-même depuis sa carte (R34).",
        f"The clock waits for {name}'s roll ({en}, {waiting.rule_id}) asked of {player}: "
        "let them roll it, or roll it yourself from the card (R34).",
        rule_id="R34",
    )


def _owner_name(character: Character) -> str:
    return character.owner.get_username() if character.owner_id else "—"


def _asks(character_id: int, ask_player: bool | None) -> bool:
    """R34: whether this character's rules roll goes to their player (a player character
    with a player, and the action's choice or else the campaign's setting)."""
    row = Character.objects.select_related("campaign").get(pk=character_id)
    if row.kind != Kind.PC or row.owner_id is None:
        return False
    return row.campaign.players_roll_rules if ask_player is None else ask_player


def _players_keys(rows: dict[str, Character]) -> frozenset[str]:
    """The player characters with a player: theirs are the rolls R34 may leave to them."""
    return frozenset(key for key, row in rows.items() if row.kind == Kind.PC and row.owner_id)


def _ask_due(campaign, rows, outcome, *, actor, visibility) -> list[RollRequest]:
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


def _request_draft(request: RollRequest, actor, rows=None, *, said=None) -> audit.Draft:
    """R34's entry for a request made, answered or cancelled: who asked whom for what."""
    character = request.character
    fr, en = REQUEST_LABELS[RequestKind(request.kind)]
    arguments = request.arguments or {}
    if request.kind == RequestKind.CHECK:
        label = arguments.get("skill") or arguments.get("stat", "")
        fr = en = f"{label} ({arguments.get('stat', '')}, {arguments.get('difficulty', '')})"
    asker = request.requested_by.get_username() if request.requested_by_id else "—"
    player = _owner_name(character)
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


def roll_run(
    roll: _Roll,
    *,
    actor,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
    ask_players: bool | None = False,
    note: Drafts | None = None,
    campaign_id: int | None = None,
) -> Result:
    """A roll (`ROLLS[...]`'s `_Roll`) played through the runner as the GM's own service
    plays it; R34's answers come this way, typed dice first and the server's after."""
    return _run(
        campaign_id=campaign_id,
        actor=actor,
        action=roll.action,
        operation=roll.operation,
        character_ids=roll.character_ids,
        dice=dice,
        visibility=visibility,
        ask_players=ask_players,
        then_server=True,
        note=note,
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


def _locked_rows(campaign: Campaign, character_ids=None, *, lock=True) -> dict[str, Character]:
    """The campaign's characters (all, or those ids) locked for this transaction, keyed as
    the engine keys them, with what the engine's state needs loaded (`lock=False`: read
    only, for odds)."""
    rows = Character.objects.all()
    if lock:
        # of=("self",): PostgreSQL refuses FOR UPDATE on the nullable side of the outer join
        # that select_related("illness") adds.
        rows = rows.select_for_update(of=("self",))
    rows = (
        rows.filter(campaign=campaign)
        .order_by("pk")
        .select_related("illness")
        .prefetch_related("conditions", "sequels")
    )
    if character_ids is not None:
        rows = rows.filter(pk__in=list(character_ids))
    return {str(row.pk): row for row in rows}


def _on_character(
    character_id: int,
    action: str,
    operation: Operation,
    *,
    actor,
    dice=None,
    visibility=None,
    proposed_by="",
) -> Result:
    return _run(
        actor=actor,
        action=action,
        operation=operation,
        character_ids=[character_id],
        dice=dice,
        visibility=visibility,
        proposed_by=proposed_by,
    )


def _on_party(campaign_id: int, action: str, operation: Operation, **kwargs) -> Result:
    # Every character: the clock and the rests may concern anyone (timers, sleepers).
    return _run(campaign_id=campaign_id, action=action, operation=operation, **kwargs)


@dataclass(frozen=True)
class _Roll:
    """An action on a character that may roll a test: its engine operation and the characters
    it reads. Its service plays it (`_rolled`); `action_odds` weighs the same operation, so the
    odds shown before the roll are those of the roll that follows."""

    action: str
    operation: Operation
    character_ids: list[int] | None  # None: every character (the clock going on, R34)


def _rolled(roll: _Roll, *, actor, dice=None, visibility=None, proposed_by="") -> Result:
    return _run(
        actor=actor,
        action=roll.action,
        operation=roll.operation,
        character_ids=roll.character_ids,
        dice=dice,
        visibility=visibility,
        proposed_by=proposed_by,
    )


def action_odds(*, campaign: Campaign, character_id: int, action: str, **arguments):
    """The exact odds (`engine.Odds`) of the test that `action` would roll first on the
    character, with the same arguments as its service (the form's `arguments()`), or None when
    it would roll none (damage that leaves PV above 0, a fall softened by a spell…).

    A read: nothing is locked or written. The engine's refusal (`RuleError`: a dead
    character, no coma to stabilise…) goes up as the service would raise it.
    """
    return roll_odds(ROLLS[action](character_id, **arguments), campaign)


def roll_odds(roll: _Roll, campaign: Campaign, rows: dict[str, Character] | None = None):
    """The odds of the first test `roll` would roll now (`action_odds`), read only. `rows`:
    the characters already read, with what the engine's state needs (a card's row: its first
    test is its own, R34), instead of reading them again."""
    if rows is None:
        rows = _locked_rows(campaign, roll.character_ids, lock=False)
    state = rows_state.campaign_state(campaign, rows.values())
    ruleset = rows_state.ruleset_for(campaign)
    return engine.first_test_odds(
        lambda rng: roll.operation(_Table(campaign, rows, state, ruleset, rng))
    )


# ---------------------------------------------------------------------------------------------
# One character: health, Flux, tests, conditions (R1, R3, R5–R16, R20–R29)


def character_damage(
    *,
    character_id: int,
    actor,
    amount: int,
    ignores_pa: bool = False,
    cause: str = "",
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
    proposed_by: str = "",
    ask_player: bool | None = None,
) -> Result:
    """Damage minus PA (R3); at 0 PV or less a Survie test (R10), which may roll, or be
    asked of the player (R34: `ask_player`, None for the campaign's setting).
    `proposed_by`: the player whose proposal the actor approves (play/proposals.py)."""
    roll = _damage_roll(character_id, amount=amount, ignores_pa=ignores_pa, cause=cause)
    return _run(
        actor=actor,
        action=roll.action,
        operation=roll.operation,
        character_ids=roll.character_ids,
        dice=dice,
        visibility=visibility,
        proposed_by=proposed_by,
        ask_players=ask_player,
    )


def _damage_roll(character_id: int, *, amount: int, ignores_pa=False, cause="") -> _Roll:
    key = str(character_id)
    return _Roll(
        "damage",
        lambda t: engine.take_damage(
            t.state,
            key,
            amount,
            rng=t.rng,
            ignores_pa=ignores_pa,
            cause=cause,
            ruleset=t.ruleset,
            defer=t.defer,
        ),
        [character_id],
    )


def _amount_service(name: str, action: str, engine_function):
    """heal, flux_spend and flux_restore differ only in the engine function and action name."""

    def service(
        *,
        character_id: int,
        actor,
        amount: int,
        visibility: str | None = None,
        proposed_by: str = "",
    ) -> Result:
        key = str(character_id)
        return _on_character(
            character_id,
            action,
            lambda t: engine_function(t.state, key, amount, ruleset=t.ruleset),
            actor=actor,
            visibility=visibility,
            proposed_by=proposed_by,
        )

    service.__name__ = service.__qualname__ = name
    return service


character_heal = _amount_service("character_heal", "heal", engine.heal)
flux_spend = _amount_service("flux_spend", "spend_flux", engine.spend_flux)
flux_restore = _amount_service("flux_restore", "restore_flux", engine.restore_flux)


def character_check(
    *,
    character_id: int,
    actor,
    stat: str,
    skill: str | None = None,
    difficulty: int | None = None,
    modifier: int = 0,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    """A test (R5–R8): D20 + stat + modifiers against the difficulty (the campaign's when
    None); `modifier` is the GM's own."""
    roll = _check_roll(
        character_id, stat=stat, skill=skill, difficulty=difficulty, modifier=modifier
    )
    return _rolled(roll, actor=actor, dice=dice, visibility=visibility)


def _check_roll(character_id: int, *, stat: str, skill=None, difficulty=None, modifier=0) -> _Roll:
    key = str(character_id)
    return _Roll(
        "check",
        lambda t: engine.check(
            t.state,
            key,
            stat,
            rng=t.rng,
            skill=skill or None,
            difficulty=difficulty,
            modifiers=gm_modifiers(modifier),
            ruleset=t.ruleset,
        ),
        [character_id],
    )


def condition_add(
    *,
    character_id: int,
    actor,
    kind: str,
    visibility: str | None = None,
    proposed_by: str = "",
) -> Result:
    key, condition = str(character_id), engine.ConditionKind(kind)
    return _on_character(
        character_id,
        "add_condition",
        lambda t: engine.add_condition(t.state, key, condition, ruleset=t.ruleset),
        actor=actor,
        visibility=visibility,
        proposed_by=proposed_by,
    )


def condition_remove(
    *, character_id: int, actor, kind: str, visibility: str | None = None
) -> Result:
    key, condition = str(character_id), engine.ConditionKind(kind)
    return _on_character(
        character_id,
        "remove_condition",
        lambda t: engine.remove_condition(t.state, key, condition, ruleset=t.ruleset),
        actor=actor,
        visibility=visibility,
    )


def character_fall(
    *,
    character_id: int,
    actor,
    storeys: int = 0,
    in_motion: bool = False,
    surface: str = engine.Surface.NORMAL,
    soften: str = engine.Soften.NONE,
    cause: str = "",
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    """A fall (R27); an empty `cause` keeps the engine's own ("chute")."""
    roll = _fall_roll(
        character_id,
        storeys=storeys,
        in_motion=in_motion,
        surface=surface,
        soften=soften,
        cause=cause,
    )
    return _rolled(roll, actor=actor, dice=dice, visibility=visibility)


def _fall_roll(
    character_id: int,
    *,
    storeys=0,
    in_motion=False,
    surface=engine.Surface.NORMAL,
    soften=engine.Soften.NONE,
    cause="",
) -> _Roll:
    key = str(character_id)
    extra = {"cause": cause} if cause else {}
    return _Roll(
        "fall",
        lambda t: engine.fall(
            t.state,
            key,
            storeys=storeys,
            in_motion=in_motion,
            surface=engine.Surface(surface),
            soften=engine.Soften(soften),
            rng=t.rng,
            ruleset=t.ruleset,
            **extra,
        ),
        [character_id],
    )


def character_fall_ill(
    *,
    character_id: int,
    actor,
    severity: int,
    name: str = "",
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
    ask_player: bool | None = None,
) -> Result:
    """Falling ill (R28): a Constitution (VAI) test, then the illness's days. R34: when the
    player rolls it (`ask_player`, None for the campaign's setting; not when dice are typed
    in), the illness waits for the answer: a request to the player, nothing else yet."""
    if not dice and _asks(character_id, ask_player):
        from play.requests import roll_request_create  # it builds on this module

        return roll_request_create(
            character_id=character_id,
            actor=actor,
            kind=RequestKind.FALL_ILL,
            severity=severity,
            name=name,
            visibility=visibility,
        )
    roll = _fall_ill_roll(character_id, severity=severity, name=name)
    return _rolled(roll, actor=actor, dice=dice, visibility=visibility)


def _fall_ill_roll(character_id: int, *, severity: int, name="") -> _Roll:
    key = str(character_id)
    return _Roll(
        "fall_ill",
        lambda t: engine.fall_ill(
            t.state,
            key,
            severity=engine.Severity(severity),
            name=name,
            rng=t.rng,
            ruleset=t.ruleset,
        ),
        [character_id],
    )


def remedy_take(
    *,
    character_id: int,
    actor,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    key = str(character_id)
    return _on_character(
        character_id,
        "remedy",
        lambda t: engine.take_remedy(t.state, key, rng=t.rng, ruleset=t.ruleset),
        actor=actor,
        dice=dice,
        visibility=visibility,
    )


def character_stabilise(
    *,
    character_id: int,
    actor,
    healer_id: int | None = None,
    healer_esp: int | None = None,
    difficulty: int | None = None,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    """R12: a healer of the campaign (`healer_id`, locked too) or someone outside it
    (`healer_esp`) tries to stabilise the character."""
    roll = _stabilise_roll(
        character_id, healer_id=healer_id, healer_esp=healer_esp, difficulty=difficulty
    )
    return _rolled(roll, actor=actor, dice=dice, visibility=visibility)


def _stabilise_roll(
    character_id: int, *, healer_id=None, healer_esp=None, difficulty=None
) -> _Roll:
    key = str(character_id)
    healer_key = str(healer_id) if healer_id is not None else None
    return _Roll(
        "stabilise",
        lambda t: engine.attempt_stabilise(
            t.state,
            key,
            rng=t.rng,
            healer_key=healer_key,
            healer_esp=healer_esp,
            difficulty=difficulty,
            ruleset=t.ruleset,
        ),
        [character_id, *([healer_id] if healer_id is not None else [])],
    )


def character_wake(
    *,
    character_id: int,
    actor,
    sequel_cause: str = "",
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    """A waking try by hand (R13); success gives a sequel (R14)."""
    roll = _wake_roll(character_id, sequel_cause=sequel_cause)
    return _rolled(roll, actor=actor, dice=dice, visibility=visibility)


def _wake_roll(character_id: int, *, sequel_cause="") -> _Roll:
    key = str(character_id)
    return _Roll(
        "wake",
        lambda t: engine.attempt_wake(
            t.state, key, rng=t.rng, sequel_cause=sequel_cause, ruleset=t.ruleset
        ),
        [character_id],
    )


def coma_end(*, character_id: int, actor, visibility: str | None = None) -> Result:
    key = str(character_id)
    return _on_character(
        character_id,
        "end_coma",
        lambda t: engine.gm_end_coma(t.state, key, ruleset=t.ruleset),
        actor=actor,
        visibility=visibility,
    )


def character_revive(*, character_id: int, actor, pv: int, visibility: str | None = None) -> Result:
    key = str(character_id)
    return _on_character(
        character_id,
        "revive",
        lambda t: engine.gm_revive(t.state, key, pv=pv, ruleset=t.ruleset),
        actor=actor,
        visibility=visibility,
    )


# ---------------------------------------------------------------------------------------------
# The whole party: the clock, the scene, rests (R10–R13, R17–R19, R30–R32)


def clock_advance(
    *,
    campaign_id: int,
    actor,
    minutes: float | None = None,
    to_morning: bool = False,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
    ask_players: bool | None = None,
) -> Result:
    """R32: by `minutes`, or to the next morning, with everything due on the way. R34: it
    stops at the first R11/R13 roll due for a player character when their players roll
    (`ask_players`, None for the campaign's setting), and waits while one is awaited."""

    def operation(t: _Table) -> engine.Outcome:
        if to_morning:
            return engine.advance_to_morning(t.state, rng=t.rng, ruleset=t.ruleset, defer=t.defer)
        return engine.advance_clock(
            t.state, rng=t.rng, minutes=minutes, ruleset=t.ruleset, defer=t.defer
        )

    return _on_party(
        campaign_id,
        "clock",
        operation,
        actor=actor,
        dice=dice,
        visibility=visibility,
        ask_players=ask_players,
        holds_clock=True,
    )


def scene_end(*, campaign_id: int, actor, visibility: str | None = None) -> Result:
    return _on_party(
        campaign_id,
        "end_scene",
        lambda t: engine.end_scene(t.state, ruleset=t.ruleset),
        actor=actor,
        visibility=visibility,
        holds_clock=True,
    )


def party_night_rest(
    *,
    campaign_id: int,
    actor,
    hours: float,
    poor_quality: bool = False,
    sleeper_ids: Iterable[int] | None = None,
    clinic_ids: Iterable[int] = (),
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
    ask_players: bool | None = None,
) -> Result:
    """A night (R17, R19, R28, R31); `sleeper_ids` None or empty: every conscious character.
    R34: a short night's Volonté may be asked of the players (`ask_players`)."""
    keys = [str(pk) for pk in sleeper_ids or ()] or None
    clinic_keys = [str(pk) for pk in clinic_ids]
    return _on_party(
        campaign_id,
        "night",
        lambda t: engine.night_rest(
            t.state,
            hours=float(hours),
            rng=t.rng,
            keys=keys,
            poor_quality=poor_quality,
            clinic_keys=clinic_keys,
            ruleset=t.ruleset,
            defer=t.defer,
        ),
        actor=actor,
        dice=dice,
        visibility=visibility,
        ask_players=ask_players,
        holds_clock=True,
    )


def party_hour_rest(
    *,
    campaign_id: int,
    actor,
    gm_override: bool = False,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
    ask_players: bool | None = None,
) -> Result:
    """R18 step 1: the group's 1D4, within the half-day limit unless the GM overrides it.
    R34: a player's roll due in that hour stops the clock there (`ask_players`, None for the
    campaign's setting); the 1D4 comes once it is answered."""
    return _on_party(
        campaign_id,
        "hour_rest",
        lambda t: engine.hour_rest(
            t.state, rng=t.rng, gm_override=gm_override, ruleset=t.ruleset, defer=t.defer
        ),
        actor=actor,
        dice=dice,
        visibility=visibility,
        ask_players=ask_players,
        holds_clock=True,
    )


def hour_rest_share(
    *,
    campaign_id: int,
    actor,
    splits: Mapping[int, tuple[int, int]],
    visibility: str | None = None,
) -> Result:
    """R18 step 2: {character id: (PV, Flux)}, each adding up to the group's roll."""
    by_key = {str(pk): tuple(split) for pk, split in splits.items()}
    return _on_party(
        campaign_id,
        "share_hour_rest",
        lambda t: engine.share_hour_rest(t.state, splits=by_key, ruleset=t.ruleset),
        actor=actor,
        visibility=visibility,
    )


# ---------------------------------------------------------------------------------------------
# Fights (R33): the GM's order, one turn each per round, budgets reset each round


def _keys(character_ids: Iterable[int]) -> list[str]:
    return [str(pk) for pk in character_ids]


def fight_start(
    *,
    campaign_id: int,
    actor,
    character_ids: Iterable[int],
    surprised_ids: Iterable[int] = (),
    visibility: str | None = None,
) -> Result:
    """R33: a fight in the GM's order `character_ids` (no initiative roll); `surprised_ids`
    become Surpris until the end of round 1 (R25). Refused while a fight is running."""
    character_ids, surprised_ids = list(character_ids), list(surprised_ids)
    order, surprised = _keys(character_ids), _keys(surprised_ids)
    return _run(
        campaign_id=campaign_id,
        character_ids=[*character_ids, *surprised_ids],
        fighting=True,
        actor=actor,
        action="fight_start",
        operation=lambda t: engine.start_fight(
            t.state, order, surprised=surprised, ruleset=t.ruleset
        ),
        visibility=visibility,
    )


def fight_next_turn(
    *,
    campaign_id: int,
    actor,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    """R33: the next turn, or a new round; a round the campaign gives a length moves the
    clock (R32), so every character is loaded, as for the clock. R34: such a round waits
    while a player's roll holds the clock, and a player's roll due in it stops the clock
    there (the campaign's setting); the new round begins once it is answered."""

    def operation(t: _Table) -> engine.Outcome:
        if engine.moves_clock(t.state, t.ruleset):
            _require_clock_free(t.campaign)
        return engine.next_turn(t.state, rng=t.rng, ruleset=t.ruleset, defer=t.defer)

    return _on_party(
        campaign_id,
        "fight_next_turn",
        operation,
        actor=actor,
        dice=dice,
        visibility=visibility,
        ask_players=None,
    )


def fight_spend(*, character_id: int, actor, what: str, visibility: str | None = None) -> Result:
    """R33: the character spends one "action" or one "reflex" of this round's budget."""
    key = str(character_id)
    return _run(
        character_ids=[character_id],
        fighting=True,
        actor=actor,
        action="fight_spend",
        operation=lambda t: engine.spend(t.state, key, what, ruleset=t.ruleset),
        visibility=visibility,
    )


def fight_set_order(
    *, campaign_id: int, actor, character_ids: Iterable[int], visibility: str | None = None
) -> Result:
    """R33: the GM reorders the fight, brings combatants in or takes some out."""
    character_ids = list(character_ids)
    order = _keys(character_ids)
    return _run(
        campaign_id=campaign_id,
        character_ids=character_ids,
        fighting=True,
        actor=actor,
        action="fight_set_order",
        operation=lambda t: engine.set_order(t.state, order, ruleset=t.ruleset),
        visibility=visibility,
    )


def fight_end(*, campaign_id: int, actor, visibility: str | None = None) -> Result:
    """R33: the fight ends; the Surpris its start gave ends with it (R25)."""
    return _run(
        campaign_id=campaign_id,
        character_ids=[],
        fighting=True,
        actor=actor,
        action="fight_end",
        operation=lambda t: engine.end_fight(t.state, ruleset=t.ruleset),
        visibility=visibility,
    )


# ---------------------------------------------------------------------------------------------
# The sheet: creating and editing a character, on the log like any action (R1–R4, R10, R26)


class _Unchanged:
    def __repr__(self) -> str:
        return "UNCHANGED"


UNCHANGED: Any = _Unchanged()

# The rule that lets the GM set each number of the sheet by hand; names and notes have none.
SHEET_RULES = {
    "name": "",
    "stats": "R2",
    "pa": "R3",
    "actions": "R4",
    "reflexes": "R4",
    "pv_max": "R1",
    "flux_max": "R1",
}


def character_create(
    *,
    campaign_id: int,
    actor,
    name: str,
    pv_max: int,
    flux_max: int,
    pv: int | None = None,
    flux: int | None = None,
    kind: str = Kind.PC,
    owner=None,
    stats: Mapping[str, int] | None = None,
    pa: int = 0,
    actions: int = 2,
    reflexes: int = 1,
    public_notes: str = "",
    gm_notes: str = "",
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    """A new character: one entry for the sheet, one per note, then its PV and Flux.

    The character starts at full PV and Flux; starting values below them (None: the maxima)
    are reached as an edit reaches them, so their rules follow (R10 at 0 PV or less, R26 at
    0 Flux). A statistic `stats` leaves out is at 0; `owner` is a user or None.
    Raises `ValidationError` for a sheet the model refuses.
    """
    wanted = {
        "name": name,
        "kind": kind,
        "owner": owner.pk if owner is not None else None,
        "stats": dict(stats or {}),
        "pv_max": pv_max,
        "flux_max": flux_max,
        "pa": pa,
        "actions": actions,
        "reflexes": reflexes,
    }
    notes = {"public_notes": public_notes, "gm_notes": gm_notes}
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        wanted["stats"] = dict.fromkeys(campaign.stats, 0) | wanted["stats"]
        fields = {"owner_id" if k == "owner" else k: v for k, v in wanted.items()}
        row = Character(campaign=campaign, **fields, pv=pv_max, flux=flux_max)
        starting = {"pv": pv_max if pv is None else pv, "flux": flux_max if flux is None else flux}
        _validate(Character(campaign=campaign, **fields, **notes, **starting))
        row.save()
        key = str(row.pk)

        def operation(t: _Table) -> engine.Outcome:
            at = t.state.clock
            steps = _Steps(t.state)
            steps.keep([engine.Change(key, CREATED, None, wanted, "", at, True)])
            steps.keep(
                engine.Change(key, field, "", text, "", at, True)
                for field, text in notes.items()
                if text
            )
            for field, target in starting.items():
                steps.then(_set_resource(steps.state, key, field, target, t))
            return steps.outcome()

        return _run(
            campaign_id=campaign_id,
            character_ids=[row.pk],
            actor=actor,
            action="character_create",
            operation=operation,
            dice=dice,
            visibility=visibility,
        )


def character_update(
    *,
    character_id: int,
    actor,
    name: str = UNCHANGED,
    kind: str = UNCHANGED,
    owner=UNCHANGED,
    stats: Mapping[str, int] = UNCHANGED,
    pv: int = UNCHANGED,
    pv_max: int = UNCHANGED,
    flux: int = UNCHANGED,
    flux_max: int = UNCHANGED,
    pa: int = UNCHANGED,
    actions: int = UNCHANGED,
    reflexes: int = UNCHANGED,
    public_notes: str = UNCHANGED,
    gm_notes: str = UNCHANGED,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    """The GM edits a sheet: each field given and different gets its entry (before, after).

    PV and Flux set by hand move through the engine as damage ignoring PA or healing, Flux
    spent or restored, so their rules follow (R10's Survie test, R15, R26's Exténué). A
    maximum lowered below the current value brings it down (R1). `owner` is a user or None.
    Raises `ValidationError` for a sheet the model refuses, `RuleError` when the rules
    refuse a move (a dead character's PV, R16).
    """
    given = {
        "name": name,
        "kind": kind,
        "owner": owner,
        "stats": stats,
        "pv": pv,
        "pv_max": pv_max,
        "flux": flux,
        "flux_max": flux_max,
        "pa": pa,
        "actions": actions,
        "reflexes": reflexes,
        "public_notes": public_notes,
        "gm_notes": gm_notes,
    }
    wanted = {field: value for field, value in given.items() if value is not UNCHANGED}
    if "owner" in wanted:
        wanted["owner"] = owner.pk if owner is not None else None
    key = str(character_id)
    return _on_character(
        character_id,
        "character_update",
        lambda t: _edit(t, key, wanted),
        actor=actor,
        dice=dice,
        visibility=visibility,
    )


def _edit(t: _Table, key: str, wanted: dict) -> engine.Outcome:
    row, character = t.rows[key], t.state.character(key)
    candidate = Character(
        **{f.attname: getattr(row, f.attname) for f in Character._meta.concrete_fields}
    )
    for field, value in wanted.items():
        setattr(candidate, rows_state.SHEET_FIELDS.get(field, field), value)
    if "stats" in wanted:
        candidate.stats = {**row.stats, **wanted["stats"]}
    # Unless given, a current value follows its lowered maximum down (R1).
    candidate.pv = wanted.get("pv", min(row.pv, candidate.pv_max))
    candidate.flux = wanted.get("flux", min(row.flux, candidate.flux_max))
    _validate(candidate)

    at = t.state.clock
    steps = _Steps(t.state)
    steps.keep(
        engine.Change(key, field, rows_state.sheet_value(row, field), wanted[field], "", at, True)
        for field in rows_state.SHEET_FIELDS
        if field in wanted and wanted[field] != rows_state.sheet_value(row, field)
    )
    simple = {
        field: wanted[field] for field in ("name", "pa", "actions", "reflexes") if field in wanted
    }
    if "stats" in wanted:
        simple["stats"] = tuple((code, candidate.stats.get(code, 0)) for code, _ in character.stats)
    steps.by_hand(
        engine.Change(key, field, getattr(character, field), value, SHEET_RULES[field], at, True)
        for field, value in simple.items()
    )
    for field in ("pv", "flux"):
        maximum_field = f"{field}_max"
        maximum = getattr(candidate, maximum_field)
        set_maximum = engine.Change(
            key, maximum_field, getattr(character, maximum_field), maximum, "R1", at, True
        )
        target = getattr(candidate, field)
        if maximum >= set_maximum.before:  # raised: room first, then the value
            steps.by_hand([set_maximum])
            steps.then(_set_resource(steps.state, key, field, target, t))
        else:  # lowered: the value first, so that it is never above its maximum
            move = _set_resource if field in wanted else _bring_down
            steps.then(move(steps.state, key, field, target, t))
            steps.by_hand([set_maximum])
    return steps.outcome()


def _set_resource(state, key: str, field: str, target: int, t: _Table) -> engine.Outcome | None:
    """PV or Flux set by hand, through the engine's damage (ignoring PA) or healing, Flux
    spent or restored: whatever those trigger follows (R10, R15, R26)."""
    current = getattr(state.character(key), field)
    if target == current:
        return None
    if field == "pv":
        if target < current:
            return engine.take_damage(
                state, key, current - target, rng=t.rng, ignores_pa=True, ruleset=t.ruleset
            )
        return engine.heal(state, key, target - current, ruleset=t.ruleset)
    if target < current:
        return engine.spend_flux(state, key, current - target, ruleset=t.ruleset)
    return engine.restore_flux(state, key, target - current, ruleset=t.ruleset)


_BROUGHT_DOWN = {
    "pv": ("PV ramenés au nouveau maximum", "PV brought down to the new maximum"),
    "flux": ("Flux ramené au nouveau maximum", "Flux brought down to the new maximum"),
}


def _bring_down(state, key: str, field: str, target: int, t: _Table) -> engine.Outcome | None:
    """R1: a current value above its new maximum comes down to it (logged under R1)."""
    character = state.character(key)
    current = getattr(character, field)
    if target >= current:
        return None
    if field == "flux" and character.vital is not engine.Vital.DEAD:
        return engine.spend_flux(state, key, current - target, ruleset=t.ruleset)  # R1, R26
    # PV: the maximum is at least 1, so the value stays above 0 and no rule follows.
    fr, en = _BROUGHT_DOWN[field]
    line = engine.Line(
        f"{character.label} — {fr} : {current} → {target}",
        f"{character.label} — {en}: {current} → {target}",
        "R1",
        key,
        state.clock,
    )
    change = engine.Change(key, field, current, target, "R1", state.clock, True)
    return _replayed(state, [change], lines=[line])


def _validate(candidate: Character) -> None:
    # The model's rules for a sheet (R1 maxima, stats, an owner who plays in the campaign);
    # forms check the same first, so this guards the other callers (admin, commands).
    candidate.full_clean(exclude=["campaign", "id"])


def _replayed(state, changes, lines=()) -> engine.Outcome:
    changes = tuple(changes)
    rules = tuple(dict.fromkeys(c.rule_id for c in changes if c.rule_id))
    return engine.Outcome(
        engine.replay(state, changes),
        changes=changes,
        rules=rules,
        lines=tuple(lines),
        events=changes,
    )


class _Steps:
    """Engine outcomes one after the other, each on the state the previous one left, as one
    Outcome whose events keep their order."""

    def __init__(self, state: engine.CampaignState):
        self.state = state
        self.parts: list[engine.Outcome] = []

    def then(self, outcome: engine.Outcome | None) -> None:
        if outcome is not None:
            self.parts.append(outcome)
            self.state = outcome.state

    def by_hand(self, changes: Iterable[engine.Change]) -> None:
        changes = [c for c in changes if c.before != c.after]
        if changes:
            self.then(_replayed(self.state, changes))

    def keep(self, changes: Iterable[engine.Change]) -> None:
        """Changes to what the engine's state does not hold (the sheet's words, its owner):
        logged and written by the runner, not replayed."""
        changes = tuple(changes)
        if changes:
            self.parts.append(engine.Outcome(self.state, changes=changes, events=changes))

    def outcome(self) -> engine.Outcome:
        def joined(name):
            return tuple(item for part in self.parts for item in getattr(part, name))

        return engine.Outcome(
            self.state,
            rolls=joined("rolls"),
            checks=joined("checks"),
            changes=joined("changes"),
            rules=tuple(dict.fromkeys(joined("rules"))),
            lines=joined("lines"),
            events=joined("events"),
        )


# ---------------------------------------------------------------------------------------------
# Undo


class NothingToUndo(engine.RuleError):
    code = "nothing_to_undo"


class NotUndoable(engine.RuleError):
    """A change that cannot be put back as it was (a creation, an owner who left)."""

    code = "not_undoable"


@dataclass(frozen=True)
class UndoProblem:
    """Why reverting one entry would not simply restore what it replaced (FR, EN)."""

    entry_id: int
    fr: str
    en: str


class UndoConflict(Exception):
    """Later entries make the revert incoherent; nothing was written. The GM may force it."""

    def __init__(self, problems: list[UndoProblem]):
        super().__init__("; ".join(p.en for p in problems))
        self.problems = problems


def entry_undo(
    *, campaign_id: int, actor, entry_id: int, whole_action: bool = False, force: bool = False
) -> Result:
    """Revert a change entry (or every change of its action, newest first) with new entries.

    History is never rewritten: each revert is a new change entry whose `reverts` names the
    entry it undoes, so an undo can itself be undone. The current values are read from the
    rows and the old ones set through `engine.replay`. When the value has moved on since the
    entry, or the character has died since, `UndoConflict` explains it and nothing is written,
    unless `force`, which sets the old values anyway. Rolls stay: only changes are reverted.
    """
    # Entries never change once written, so they may be read before the campaign's lock.
    entry = AuditEntry.objects.get(pk=entry_id, campaign_id=campaign_id)
    if whole_action:
        # A roll request (R34) is not a change of the game: the rest of its action is undone.
        targets = list(
            AuditEntry.objects.filter(
                campaign_id=campaign_id, batch=entry.batch, kind=EntryKind.CHANGE
            )
            .exclude(field=REQUEST_FIELD)
            .order_by("-id")
        )
        # What an earlier undo took back already is not undone twice.
        undone = standing.undone_by(campaign_id)
        targets = [t for t in targets if t.pk not in undone] or targets
    else:
        if entry.field == REQUEST_FIELD:
            raise NotUndoable(
                f"#{entry.pk} est une demande de jet (R34) : annulez-la depuis la carte tant "
                "qu’elle attend ; un jet lancé reste dans l’historique.",
                f"#{entry.pk} is a roll request (R34): cancel it from the card while it waits; "
                "a roll made stays in the history.",
            )
        targets = [entry] if entry.kind == EntryKind.CHANGE else []
    if not targets:
        raise NothingToUndo(
            "Un jet reste dans l’historique : annulez plutôt ses conséquences (les changements).",
            "A roll stays in the history: undo its consequences (the changes) instead.",
        )
    setting = next((t for t in targets if t.field.startswith(SETTING_PREFIX)), None)
    if setting is not None:
        raise NotUndoable(
            f"#{setting.pk} change un réglage de la campagne : changez-le à nouveau dans les "
            "réglages.",
            f"#{setting.pk} changes a campaign setting: change it again in the settings.",
        )
    proposal = next((t for t in targets if t.field == PROPOSAL_FIELD), None)
    if proposal is not None:
        raise NotUndoable(
            f"#{proposal.pk} note une proposition d’un joueur : elle ne change rien à annuler "
            "(annulez plutôt ce que son approbation a changé).",
            f"#{proposal.pk} records a player's proposal: it changes nothing to undo (undo "
            "what its approval changed instead).",
        )
    created = next((t for t in targets if t.field == CREATED), None)
    if created is not None:
        raise NotUndoable(
            f"#{created.pk} crée le personnage : une création ne s’annule pas (modifiez la "
            "fiche à la place).",
            f"#{created.pk} creates the character: a creation cannot be undone (edit the "
            "sheet instead).",
        )

    def operation(t: _Table) -> engine.Outcome:
        changes, problems = _undo_plan(t, targets)
        if problems and not force:
            raise UndoConflict(problems)
        state = engine.replay(
            t.state, [c for c in changes if c.field not in rows_state.SHEET_FIELDS]
        )
        return engine.Outcome(state=state, changes=tuple(changes), events=tuple(changes))

    def drafts(action, outcome, rows) -> list[audit.Draft]:
        people, names = _people(outcome.changes), _fighters(outcome.changes, rows)
        written = []
        for target, change in zip(targets, outcome.changes, strict=True):
            fr, en = change_text(change, people=people, names=names)
            written.append(
                audit.Draft(
                    kind=EntryKind.CHANGE,
                    action=action,
                    rule_id=target.rule_id,
                    character=_row(rows, change.character_key),
                    game_time=change.at,
                    field=change.field,
                    before=change.before,
                    after=change.after,
                    text_fr=f"Annulation de #{target.pk} · {fr}",
                    text_en=f"Undo of #{target.pk} · {en}",
                    visibility=target.visibility,
                    reverts=target,
                )
            )
        return written

    return _run(
        campaign_id=campaign_id,
        character_ids={e.character_id for e in targets if e.character_id},
        actor=actor,
        action="undo",
        operation=operation,
        drafts=drafts,
    )


# Fields a character's death leaves meaningful to restore: the sheet's words and its owner.
_UNDO_WHEN_DEAD = {"name", *rows_state.SHEET_FIELDS}


def _undo_plan(t: _Table, targets: list[AuditEntry]):
    """The changes that put back each entry's `before` (entries newest first), and the
    problems found on the way, each checked against the state the earlier reverts leave."""
    state = t.state
    changes, problems = [], []
    # Undone means taken back by an undo that still stands: an undo undone brings it back.
    undone_by = standing.undone_by(targets[0].campaign_id)
    sheet = {}  # (key, field) -> value, for the fields the engine's state does not hold
    for entry in targets:
        key = str(entry.character_id) if entry.character_id is not None else None
        holder = state if key is None else state.character(key)
        if entry.field in rows_state.SHEET_FIELDS:
            current = sheet.get(
                (key, entry.field), rows_state.sheet_value(t.rows[key], entry.field)
            )
        else:
            current = getattr(holder, entry.field)
        set_to = audit.from_json(entry.field, entry.after)
        restore = audit.from_json(entry.field, entry.before)
        name = entry.character_name or "—"
        fr_field, en_field = field_name(entry.field)
        if entry.pk in undone_by:
            problems.append(
                UndoProblem(
                    entry.pk,
                    f"#{entry.pk} a déjà été annulée (#{undone_by[entry.pk]}).",
                    f"#{entry.pk} has already been undone (#{undone_by[entry.pk]}).",
                )
            )
        if (
            key is not None
            and holder.vital == engine.Vital.DEAD
            and entry.field not in _UNDO_WHEN_DEAD
            and not (entry.field == "vital" and set_to == engine.Vital.DEAD)
        ):
            problems.append(
                UndoProblem(
                    entry.pk,
                    f"{name} est mort·e depuis #{entry.pk} : rétablir {fr_field} ne le ou la "
                    "ramène pas à la vie (R16 : seul le MJ le peut, à part).",
                    f"{name} has died since #{entry.pk}: restoring {en_field} does not bring "
                    "them back (R16: only the GM can, separately).",
                )
            )
        elif current != set_to:
            people = _names({current, set_to, restore}) if entry.field == "owner" else {}
            fighters = (
                _fight_names((current, set_to, restore), t.rows) if entry.field == "fight" else {}
            )
            now_fr, now_en = value_text(current, entry.field, people, fighters)
            then_fr, then_en = value_text(set_to, entry.field, people, fighters)
            old_fr, old_en = value_text(restore, entry.field, people, fighters)
            problems.append(
                UndoProblem(
                    entry.pk,
                    f"{name} : {fr_field} vaut maintenant {now_fr}, plus {then_fr} comme après "
                    f"#{entry.pk} ; annuler le remettrait à {old_fr} et effacerait ce qui a "
                    "changé depuis.",
                    f"{name}: {en_field} is now {now_en}, no longer {then_en} as after "
                    f"#{entry.pk}; undoing would set it back to {old_en} and wipe out what "
                    "changed since.",
                )
            )
        change = engine.Change(key, entry.field, current, restore, entry.rule_id, state.clock, True)
        if entry.field in rows_state.SHEET_FIELDS:
            sheet[(key, entry.field)] = restore
        else:
            state = engine.replay(state, [change])
        changes.append(change)
    for key in {key for key, _field in sheet}:
        row = t.rows[key]
        kind = sheet.get((key, "kind"), row.kind)
        _check_owner(t, key, kind, sheet.get((key, "owner"), row.owner_id))
    return changes, problems


def _check_owner(t: _Table, key: str, kind: str, owner_id: int | None) -> None:
    """What the sheet form checks, for an undo that gives a character back to someone."""
    if owner_id is None:
        return
    name = t.rows[key].name
    if kind == Kind.NPC:
        raise NotUndoable(
            f"{name} serait un PNJ confié à un·e joueur·euse : annulez aussi l’autre "
            "changement (l’action entière).",
            f"{name} would be an NPC given to a player: undo the other change too (the "
            "whole action).",
        )
    if not t.campaign.memberships.filter(user_id=owner_id).exists():
        raise NotUndoable(
            f"La personne qui jouait {name} n’est plus dans la campagne : rendez-lui le "
            "personnage en modifiant la fiche, une fois revenue.",
            f"The person who played {name} is no longer in the campaign: give the "
            "character back by editing the sheet once they are back.",
        )


# ---------------------------------------------------------------------------------------------
# Entries


def _drafts(action: str, outcome: engine.Outcome, rows: dict[str, Character]):
    """One draft per check, roll and change, in the order they happened; the action's rule
    steps (`_keep_steps`) on the first of them."""
    people, names = _people(outcome.changes), _fighters(outcome.changes, rows)
    drafts = []
    for event in outcome.events:
        if isinstance(event, engine.CheckResult):
            drafts.append(_check_draft(action, event, rows))
        elif isinstance(event, engine.Roll):
            drafts.append(_roll_draft(action, event, rows))
        else:
            drafts.append(_change_draft(action, event, rows, people, names))
    _keep_steps(drafts, outcome)
    return drafts


def _steps_of(outcome: engine.Outcome) -> list[dict]:
    """Every line of reasoning the action showed (a storey shift, a halving, PA ignored, a
    modifier, an odd die counting 0…), as the audit log keeps them."""
    return [{"rule_id": line.rule_id, "fr": line.fr, "en": line.en} for line in outcome.lines]


def _keep_steps(drafts: list[audit.Draft], outcome: engine.Outcome) -> None:
    """The steps go on the first entry that has the action's own visibility (not one the GM
    alone sees whatever the action's, like the GM's notes), else on the first: they are part
    of its hash, and the history and exports show them with it."""
    if not drafts or not outcome.lines:
        return
    holder = next((d for d in drafts if d.visibility is None), drafts[0])
    holder.steps = _steps_of(outcome)


def _fighters(changes, rows: dict[str, Character]) -> dict[str, str]:
    """The names of the characters the fight changes hold, by key."""
    fights = [fight for c in changes if c.field == "fight" for fight in (c.before, c.after)]
    return _fight_names(fights, rows)


def _fight_names(fights, rows: dict[str, Character]) -> dict[str, str]:
    """The names of the characters in `fights` (engine Fights or None), by key: the locked
    rows', else read (an undo of a fight change locks no character)."""
    keys = {key for fight in fights if fight is not None for key in fight.order}
    names = {key: rows[key].name for key in keys if key in rows}
    missing = [int(key) for key in keys - names.keys()]
    if missing:
        found = Character.objects.filter(pk__in=missing).values_list("pk", "name")
        names |= {str(pk): name for pk, name in found}
    return names


def _people(changes) -> dict[int, str]:
    """The user names an owner change or a creation mentions, by id."""
    ids = set()
    for change in changes:
        if change.field == "owner":
            ids |= {change.before, change.after}
        elif change.field == CREATED:
            ids.add(change.after["owner"])
    return _names(ids)


def _names(ids) -> dict[int, str]:
    ids = {pk for pk in ids if pk is not None}
    if not ids:
        return {}
    return {user.pk: user.get_username() for user in get_user_model().objects.filter(pk__in=ids)}


def _row(rows, key):
    return rows.get(key) if key is not None else None


def _check_draft(action, check, rows) -> audit.Draft:
    return audit.Draft(
        kind=EntryKind.ROLL,
        action=action,
        rule_id=check.rule_id,
        character=_row(rows, check.character_key),
        game_time=check.at,
        roll={
            "expression": str(check.roll.expr),
            "dice": list(check.roll.dice),
            "stat": check.stat,
            "skill": check.skill,
            "stat_value": check.stat_value,
            "natural": check.natural,
            "die_value": check.die_value,
            "die_rule": check.die_rule,
            "modifiers": [
                {"label": m.label, "label_en": m.en, "value": m.value, "rule_id": m.rule_id}
                for m in check.modifiers
            ],
            "total": check.total,
            "difficulty": check.difficulty,
            "success": check.success,
            "extreme": check.extreme,
        },
        typed_in=check.typed_in,
        text_fr=f"{check.rule_id} · {check.text_fr}",
        text_en=f"{check.rule_id} · {check.text_en}",
    )


def _roll_draft(action, roll, rows) -> audit.Draft:
    fr, en = roll_text(roll)
    return audit.Draft(
        kind=EntryKind.ROLL,
        action=action,
        rule_id=roll.rule_id or "",
        character=_row(rows, roll.character_key),
        game_time=roll.at,
        roll={
            "expression": str(roll.expr),
            "dice": list(roll.dice),
            "total": roll.total,
            "purpose": roll.purpose,
        },
        typed_in=roll.typed_in,
        text_fr=fr,
        text_en=en,
    )


def _change_draft(action, change, rows, people, names=None) -> audit.Draft:
    fr, en = change_text(change, people=people, names=names)
    return audit.Draft(
        kind=EntryKind.CHANGE,
        action=action,
        rule_id=change.rule_id,
        character=_row(rows, change.character_key),
        game_time=change.at,
        field=change.field,
        before=change.before,
        after=change.after,
        text_fr=fr,
        text_en=en,
        # The GM's notes are the GM's, whatever the action's visibility.
        visibility=Visibility.GM_ONLY if change.field == "gm_notes" else None,
    )


def _deaths_door_roll(character_id: int) -> _Roll:
    """R10's Survie left to the player (R34), rolled now."""
    key = str(character_id)
    return _Roll(
        "deaths_door",
        lambda t: engine.deaths_door_test(t.state, key, rng=t.rng, ruleset=t.ruleset),
        [character_id],
    )


def _sleep_roll(character_id: int) -> _Roll:
    """R31's Volonté left to the player (R34), rolled now."""
    key = str(character_id)
    return _Roll(
        "sleep",
        lambda t: engine.sleep_test(t.state, key, rng=t.rng, ruleset=t.ruleset),
        [character_id],
    )


def _clock_resume_roll(character_id: int, *, kind: str, to, then: dict | None = None) -> _Roll:
    """R34: the R11 or R13 roll the clock stopped at, then the clock goes on to `to`, then the
    end of the action that moved it (`then`: a night, an hour rest, a new round): every
    character is loaded, as for the clock."""
    key = str(character_id)
    return _Roll(
        "clock",
        lambda t: engine.resume_clock(
            t.state, key, kind, rng=t.rng, to=to, ruleset=t.ruleset, defer=t.defer, then=then
        ),
        None,
    )


def _ask_roll(
    character_id: int,
    *,
    kind: str = RequestKind.CHECK,
    stat: str | None = None,
    skill: str | None = None,
    difficulty: int | None = None,
    modifier: int = 0,
    severity: int | None = None,
    name: str = "",
    sequel_cause: str = "",
) -> _Roll:
    """The roll a request the GM makes by hand asks for (R34, play/requests.py): a test (R5),
    a waking try (R13), Constitution on falling ill (R28) or R10's Survie when due."""
    if kind == RequestKind.WAKE:
        return _wake_roll(character_id, sequel_cause=sequel_cause)
    if kind == RequestKind.FALL_ILL:
        return _fall_ill_roll(character_id, severity=int(severity or 1), name=name)
    if kind == RequestKind.DEATHS_DOOR:
        return _deaths_door_roll(character_id)
    return _check_roll(
        character_id, stat=stat or "", skill=skill, difficulty=difficulty, modifier=modifier
    )


# R34: the rolls a player may be asked for that no GM action of its own plays.
REQUEST_ROLLS = {
    "ask": _ask_roll,
    "deaths_door": _deaths_door_roll,
    "sleep": _sleep_roll,
    "clock_resume": _clock_resume_roll,
}

# The actions that may roll a test, by name, as `action_odds` weighs them.
ROLLS = {
    "check": _check_roll,
    "damage": _damage_roll,
    "fall": _fall_roll,
    "fall_ill": _fall_ill_roll,
    "stabilise": _stabilise_roll,
    "wake": _wake_roll,
}

# Every public service, for the tests that hold them to their contract.
SERVICES = (
    character_damage,
    character_heal,
    flux_spend,
    flux_restore,
    character_check,
    condition_add,
    condition_remove,
    character_fall,
    character_fall_ill,
    remedy_take,
    character_stabilise,
    character_wake,
    coma_end,
    character_revive,
    clock_advance,
    scene_end,
    party_night_rest,
    party_hour_rest,
    hour_rest_share,
    fight_start,
    fight_next_turn,
    fight_spend,
    fight_set_order,
    fight_end,
    character_create,
    character_update,
    entry_undo,
)


# ---------------------------------------------------------------------------------------------
# The campaign's settings and its members: what they change of the game is logged too

SETTING_PREFIX = "setting."  # the `field` of a setting's entry: "setting.round_seconds"
_RULE_ID = re.compile(r"\bR\d+\b")


def campaign_settings_update(*, campaign_id: int, actor, **values: Any) -> Result:
    """The GM changes the campaign's settings: one entry per setting that changed.

    The settings are the rules' Choices (RULES.md), so each entry names the rule its field's
    help text names (R2 for the statistics). Values are those `CampaignSettingsForm` cleaned;
    `Campaign.full_clean` runs before anything is written (`ValidationError`). A setting's
    entry is not undone by the history's undo: the GM sets it again, which is logged.
    """
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        moved = {
            name: (getattr(campaign, name), value)
            for name, value in values.items()
            if getattr(campaign, name) != value
        }
        for name, (_before, after) in moved.items():
            setattr(campaign, name, after)
        campaign.full_clean()
        campaign.save(update_fields=list(moved) or None)
        drafts = [_setting_draft(campaign, name, *pair) for name, pair in moved.items()]
        entries = audit.append(campaign=campaign, actor=actor, drafts=drafts, visibility="gm")
        if entries:
            publish(campaign.pk, [], entries[-1].pk)
    return Result(engine.Outcome(state=None, changes=(), events=()), entries, [])


def _setting_draft(campaign: Campaign, name: str, before: Any, after: Any) -> audit.Draft:
    field = Campaign._meta.get_field(name)
    rule = "R2" if name == "stats" else next(iter(_RULE_ID.findall(str(field.help_text))), "")
    texts = []
    for language, said in (("fr", "Réglage « %s » : %s → %s"), ("en", "Setting “%s”: %s → %s")):
        with translation.override(language):
            shown = [_setting_value(field, value, language) for value in (before, after)]
            said = said % (field.verbose_name, *shown)
        texts.append(f"{rule} · {said}" if rule else said)
    return audit.Draft(
        kind=EntryKind.CHANGE,
        action="campaign_settings_update",
        rule_id=rule,
        game_time=campaign.clock,
        field=SETTING_PREFIX + name,
        before=before,
        after=after,
        text_fr=texts[0],
        text_en=texts[1],
    )


def _setting_value(field, value: Any, language: str) -> str:
    if isinstance(value, bool):
        return {"fr": ("non", "oui"), "en": ("no", "yes")}[language][value]
    if field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value))
    return str(value)


def membership_end(*, membership_id: int, actor) -> None:
    """A member leaves or is removed; a campaign always keeps at least one GM.

    Their characters stay in the campaign without a player: each loses its owner through
    `character_update`, so the log says so.
    """
    with transaction.atomic():
        membership = Membership.objects.select_for_update().get(pk=membership_id)
        if membership.is_gm:
            gms = Membership.objects.select_for_update().filter(
                campaign_id=membership.campaign_id, role=Role.GM
            )
            if gms.count() <= 1:
                raise CampaignError(
                    _("A campaign needs at least one game master: name another GM first.")
                )
        owned = Character.objects.filter(
            campaign_id=membership.campaign_id, owner_id=membership.user_id
        ).values_list("pk", flat=True)
        for character_id in owned:
            character_update(character_id=character_id, actor=actor, owner=None)
        membership.delete()


# Writes outside the engine's state (no Outcome of its own): their tests are
# tests/play/test_campaign_writes.py; SERVICES' contract tests are for the engine's.
CAMPAIGN_SERVICES = (campaign_settings_update, membership_end)
