"""Reads for cards, sheets and the dashboard: a fixed number of queries however many rows."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from campaign.models import Campaign, Visibility
from campaign.permissions import can_roll_for
from characters.models import Character
from characters.state import character_state, ruleset_for
from journal import standing
from journal.visibility import visible_entries
from play.actions import ACTIONS, QUICK_ACTIONS
from play.models import Proposal, ProposalStatus, RequestKind
from play.reads import PENDING_PROPOSALS
from play.requests import PREFETCHED, card_requests, card_requests_prefetch
from rules import engine
from rules.engine import text as engine_text


@dataclass(frozen=True)
class StatLine:
    code: str
    base: int
    effective: int


# Who sees a quick action's result, in words short enough to sit beside the buttons.
QUICK_VISIBILITY = [
    (Visibility.EVERYONE.value, _("everyone")),
    (Visibility.GM_ONLY.value, _("GM alone")),
]


@dataclass(frozen=True)
class MissingAction:
    """An action the character's state refuses, and why (the engine's reason and rule id)."""

    name: str
    label: str
    reason: str
    rule_id: str


@dataclass(frozen=True)
class MissingGroup:
    """Refused actions that share one reason (a dead character's dozen), said once."""

    names: str  # the actions' names, space-separated (an HTML attribute's word list)
    labels: str
    reason: str  # with its rule id, unless the engine's message names it already


@dataclass(frozen=True)
class ActionChoices:
    """What a card offers: the quick buttons and the other actions the state allows (the
    engine's availability, rules/engine/availability.py), and the refused ones with why."""

    quick: frozenset[str]
    links: tuple[tuple[str, str], ...]
    missing: tuple[MissingAction, ...]

    @property
    def missing_groups(self) -> list[MissingGroup]:
        groups: dict[str, list[MissingAction]] = {}
        for action in self.missing:
            reason = action.reason
            if action.rule_id and action.rule_id not in reason:
                reason = f"{reason} ({action.rule_id})"
            groups.setdefault(reason, []).append(action)
        return [
            MissingGroup(
                " ".join(a.name for a in actions), ", ".join(a.label for a in actions), reason
            )
            for reason, actions in groups.items()
        ]


# The dashboard's order of characters: PCs before NPCs, then by name.
DASHBOARD_ORDER = ("kind", "name", "pk")


def action_choices(state: engine.CharacterState, *, now, lang: int) -> ActionChoices:
    """The card's actions for `state` at game time `now`, in ACTIONS' order; `lang` 0 is
    French, 1 English. Every action of ACTIONS is an engine operation of the same name."""
    available = engine.availability(state, now=now)
    missing = []
    for refusal in available.refused:
        action = ACTIONS[refusal.operation]
        reason = (refusal.message_fr, refusal.message_en)[lang]
        missing.append(MissingAction(action.name, str(action.label), reason, refusal.rule_id))
    return ActionChoices(
        quick=frozenset(QUICK_ACTIONS.intersection(available.allowed)),
        links=tuple(
            (name, action.label)
            for name, action in ACTIONS.items()
            if name not in QUICK_ACTIONS and available.allows(name)
        ),
        missing=tuple(missing),
    )


@dataclass(frozen=True)
class FightSeat:
    """Where a character stands in the running fight (R33): its place in the GM's order
    (from 1), whether it is its turn, and what it has left this round."""

    round: int
    place: int
    current: bool
    actions_left: int
    reflexes_left: int

    @property
    def key(self) -> str:
        """What of the fight the character's card shows, for its cache key."""
        numbers = (self.round, self.place, int(self.current), self.actions_left, self.reflexes_left)
        return ".".join(map(str, numbers))


def fight_seat(campaign: Campaign, character_id: int) -> FightSeat | None:
    """The character's seat in `campaign`'s running fight, or None (no fight, not in it).

    Read from the stored fight (`Campaign.fight`, `engine.Fight.to_json()`) without a query.
    """
    data = campaign.fight
    if not data:
        return None
    key = str(character_id)
    order = [str(k) for k in data["order"]]
    if key not in order:
        return None
    index = order.index(key)
    return FightSeat(
        round=int(data["round"]),
        place=index + 1,
        current=int(data["turn"]) == index,
        actions_left=int(data["actions_left"][index]),
        reflexes_left=int(data["reflexes_left"][index]),
    )


@dataclass(frozen=True)
class Combatant:
    """One row of the fight section: the character, its seat, and what it can still spend
    this round as the engine counts it (R33 with R20–R25): nothing while unconscious
    (`engine.left_this_round`), out of `budget`, its effective counts right now."""

    character: Character
    seat: FightSeat
    actions_left: int
    reflexes_left: int
    budget: engine.Effective
    conditions: tuple[str, ...]  # the conditions that weigh on a fight (R20–R25), named

    @property
    def can_act(self) -> bool:
        return self.budget.conscious


@dataclass(frozen=True)
class FightView:
    """The running fight as the dashboard and the phones show it."""

    round: int
    combatants: list[Combatant]

    @property
    def current(self) -> Combatant:
        return next(c for c in self.combatants if c.seat.current)


# R20–R25: the conditions that change a combatant's actions, reflexes or PA.
FIGHT_CONDITIONS = (
    engine.ConditionKind.GENE,
    engine.ConditionKind.SURPRIS,
    engine.ConditionKind.PARALYSE,
    engine.ConditionKind.EBRANLE,
)


def left_in_fight(seat: FightSeat, numbers: engine.Effective) -> tuple[int, int]:
    """What `seat` can spend now: its counts, or nothing while unconscious (as
    `engine.left_this_round` says; the counts themselves are reset only at the next round)."""
    return (seat.actions_left, seat.reflexes_left) if numbers.conscious else (0, 0)


def fight_view(campaign: Campaign, rows=None) -> FightView | None:
    """The running fight in the GM's order, or None. `rows`: the campaign's characters as
    `characters_for_cards` reads them, if the caller has them (else one read of the
    combatants)."""
    data = campaign.fight
    if not data:
        return None
    order = [int(key) for key in data["order"]]
    if rows is None:
        rows = characters_for_cards(campaign).filter(pk__in=order)
    by_pk = {row.pk: row for row in rows}
    lang = 1 if get_language() == "en" else 0
    combatants = []
    for pk in order:
        row, seat = by_pk.get(pk), fight_seat(campaign, pk)
        if row is None or seat is None:
            continue
        state = character_state(row, campaign.stats)
        numbers = engine.effective(state)
        actions, reflexes = left_in_fight(seat, numbers)
        kinds = {c.kind for c in state.conditions}
        combatants.append(
            Combatant(
                character=row,
                seat=seat,
                actions_left=actions,
                reflexes_left=reflexes,
                budget=numbers,
                conditions=tuple(
                    engine_text.condition_name(kind, state.gender)[lang]
                    for kind in FIGHT_CONDITIONS
                    if kind in kinds
                ),
            )
        )
    return FightView(round=int(data["round"]), combatants=combatants)


def fight_candidates(rows) -> list[Character]:
    """Who may be put in a fight: every character in play but the dead (R33:
    `require_alive`)."""
    return [row for row in rows if row.vital != "dead" and row.in_play]


@dataclass(frozen=True)
class FightSection:
    """What the GM's fight section shows (R33): the running fight, or who may start one."""

    fight: FightView | None
    candidates: list[Character]  # who may start the fight, or join the running one
    # R9/R33: the next turn ends a round that moves the clock (its length): the rolls due in
    # it (R11, R13) may be typed in, so the next-turn form takes dice.
    rounds_roll: bool


def fight_section(campaign: Campaign, rows=None) -> FightSection:
    """The fight section of `campaign`. `rows`: the campaign's characters as
    `characters_for_cards` reads them, if the page has read them already (the dashboard's
    cards), so that the section costs no query of its own; without them, an action's answer
    redraws the section with one light read."""
    fight = fight_view(campaign, rows)
    if rows is None:
        rows = light_rows(campaign)
    # Who may start the fight, or join the running one (R33: reinforcements).
    fighting = {c.character.pk for c in fight.combatants} if fight else set()
    candidates = [c for c in fight_candidates(rows) if c.pk not in fighting]
    rounds_roll = bool(
        campaign.fight
        and campaign.round_seconds > 0
        and not engine.Fight.from_json(campaign.fight).waiting
    )
    return FightSection(fight=fight, candidates=candidates, rounds_roll=rounds_roll)


def light_rows(campaign: Campaign) -> list[Character]:
    """The campaign's characters in the dashboard's order, read light: what the fight section
    (who may start a fight) and the clock bar's questions (who is at risk) need of them."""
    return list(
        Character.objects.filter(campaign=campaign)
        .order_by(*DASHBOARD_ORDER)
        .only("pk", "name", "kind", "vital", "in_play")
    )


@dataclass(frozen=True)
class FightStrip:
    """The fight as a player's page shows it: the running fight, and the viewer's own
    combatants, each with whether they may spend its actions and reflexes (R9)."""

    fight: FightView | None
    mine: list[tuple[Combatant, bool]]


def fight_strip(campaign: Campaign, membership, characters=None, rows=None) -> FightStrip:
    """`characters`: the viewer's combatants to show (all theirs when None); `rows`: as for
    `fight_view`."""
    fight = fight_view(campaign, rows)
    if fight is None:
        return FightStrip(fight=None, mine=[])
    wanted = None if characters is None else {c.pk for c in characters}
    mine = [
        (c, can_roll_for(membership, c.character))
        for c in fight.combatants
        if c.character.owner_id == membership.user_id
        and (wanted is None or c.character.pk in wanted)
    ]
    return FightStrip(fight=fight, mine=mine)


@dataclass(frozen=True)
class Card:
    """What a card or a sheet shows of a character, derived once from its rows."""

    character: Character
    state: engine.CharacterState
    effective: engine.Effective
    stats: list[StatLine]
    conditions: list[tuple[str, str]]
    illness: str
    vital: str
    choices: ActionChoices
    fight: FightSeat | None = None
    requests: tuple = ()  # R34: the rolls asked of the player (play/requests.py RequestLine)
    down: str = ""  # why the character is down (`down_state`), "" while up and above 0 PV
    visibility_choices = QUICK_VISIBILITY  # who sees a quick action's result

    @property
    def fight_left(self) -> tuple[int, int]:
        """(actions, reflexes) the character can still spend this round, in a fight."""
        return left_in_fight(self.fight, self.effective) if self.fight else (0, 0)


def characters_for_cards(campaign: Campaign, *, prefetch: bool = True):
    """The campaign's characters as cards read them, each with `pending_proposals`: how many
    of its player's proposals wait for the GM (the GM's card shows it). `prefetch=False`:
    without their conditions, sequels and requests, for a page that first looks for its cards
    in the cache (`play.cards.preload` reads them for the cards it misses)."""
    rows = (
        Character.objects.filter(campaign=campaign)
        .select_related("owner", "illness")
        .annotate(pending_proposals=PENDING_PROPOSALS)
        .order_by(*DASHBOARD_ORDER)
    )
    return rows.prefetch_related(*card_prefetches()) if prefetch else rows


def card_prefetches() -> tuple:
    """What a card reads beside its character's row, in one query per kind for a page."""
    return ("conditions", "sequels", card_requests_prefetch())


def in_dashboard_order(character_ids) -> list[int]:
    """The given characters' ids in the order the dashboard shows them (a group action's
    results follow the cards)."""
    return list(
        Character.objects.filter(pk__in=character_ids)
        .order_by(*DASHBOARD_ORDER)
        .values_list("pk", flat=True)
    )


def pending_proposals(character: Character) -> int:
    """How many of the character's proposals wait for the GM: read with the card's row
    (`characters_for_cards`), else counted."""
    count = getattr(character, "pending_proposals", None)
    if count is None:
        count = Proposal.objects.filter(character=character, status=ProposalStatus.PENDING).count()
    return count


def proposals_waiting(campaign: Campaign):
    """The campaign's proposals that wait for the GM, oldest first (the dashboard's list)."""
    return (
        Proposal.objects.filter(campaign=campaign, status=ProposalStatus.PENDING)
        .select_related("character")
        .order_by("created_at", "pk")
    )


def proposals_of(character: Character, *, recent: int = 5) -> list:
    """What the owner's sheet lists: every proposal still waiting, then the latest decided."""
    rows = Proposal.objects.filter(character=character).order_by("-created_at", "-pk")
    waiting = [p for p in rows.filter(status=ProposalStatus.PENDING)]
    decided = list(rows.exclude(status=ProposalStatus.PENDING)[:recent])
    return waiting + decided


def condition_line(
    condition: engine.Condition, lang: int, gender: str | None = None
) -> tuple[str, str]:
    """The condition's name, agreeing with the character's `gender` (« Gênée »), and what
    the engine says of it after the name.

    The engine's description starts with the name ("Exténué (Flux à 0) : …"); a card shows
    the name in bold, so the rest follows it instead of saying the name twice.
    """
    written = engine_text.condition_name(condition.kind)[lang]
    description = engine_text.describe_condition(condition)[lang]
    name = engine_text.condition_name(condition.kind, gender)[lang]
    return name, description.removeprefix(written).lstrip()


# R10: what a card says of a character at 0 PV or less whose vital state has not moved yet,
# the Survie roll not made (asked of the player, R34, or cancelled).
AT_ZERO = ("à 0 PV ou moins", "at 0 PV or less")
# Read by the GM and by the player herself: who rolls it is said by the request under it.
SURVIE_ASKED = ("jet de Survie en attente", "Survie roll pending")


def survie_asked(requests) -> bool:
    """Whether a Survie roll at 0 PV (R10) waits for the player (R34), among the requests a
    card read (`RollRequest` rows)."""
    return any(r.pending and r.kind == RequestKind.DEATHS_DOOR for r in requests)


def down_state(state: engine.CharacterState, *, asked: bool, lang: int) -> tuple[str, str]:
    """(why the character is down, what its card says of its vital state).

    Why: "" while up above 0 PV; the vital state when it moved (R10 borrowed time, R11 coma,
    R15 stabilised, R16 dead); "pv" at 0 PV or less while still up (the Survie roll not
    made). The text then says so instead of « debout », and that the roll waits when it
    does (R34).
    """
    if state.vital != engine.Vital.UP:
        return state.vital.value, engine_text.vital_text(state.vital, state.gender)[lang]
    if state.pv <= 0:
        text = AT_ZERO[lang]
        if asked:
            text = f"{text} · {SURVIE_ASKED[lang]}"
        return "pv", text
    return "", engine_text.vital_text(state.vital, state.gender)[lang]


def down_first(rows, campaign: Campaign) -> list[Character]:
    """The dashboard's « À terre en premier »: the characters down (`down_state`: dead, in a
    coma, stabilised, on borrowed time, or at 0 PV or less) before the others, each group in
    the order it came in."""
    rows = list(rows)
    down = [
        bool(down_state(character_state(row, campaign.stats), asked=False, lang=0)[0])
        for row in rows
    ]
    return [row for row, is_down in zip(rows, down, strict=True) if is_down] + [
        row for row, is_down in zip(rows, down, strict=True) if not is_down
    ]


def card_for(character: Character, campaign: Campaign) -> Card:
    lang = 1 if get_language() == "en" else 0
    ruleset = ruleset_for(campaign)
    state = character_state(character, campaign.stats)
    illness = ""
    if state.illness is not None:
        illness = engine_text.SEVERITY_TEXT[state.illness.severity][lang]
    requests = card_requests(character, campaign, lang)
    down, vital = down_state(
        state, asked=survie_asked(line.request for line in requests), lang=lang
    )
    return Card(
        character=character,
        state=state,
        effective=engine.effective(state),
        stats=[
            StatLine(code, state.base_stat(code, ruleset), state.stat(code, ruleset))
            for code in campaign.stats
        ],
        conditions=[condition_line(c, lang, state.gender) for c in state.conditions],
        illness=illness,
        vital=vital,
        choices=action_choices(state, now=campaign.clock, lang=lang),
        fight=fight_seat(campaign, character.pk),
        requests=requests,
        down=down,
    )


@dataclass(frozen=True)
class PartyMember:
    """Another player's character as the campaign's `party_visibility` lets a player see it:
    the name always; the vital state and conditions under STATE and BARS; numbers under BARS."""

    character: Character
    vital: str = ""
    conditions: tuple[str, ...] = ()
    bars: bool = False
    down: str = ""  # as on a card (`down_state`); "pv" only where the bars show the PV


def party_for(membership, rows) -> list[PartyMember]:
    """The other player characters (NPCs are the GM's to reveal), as this player may see them.

    `rows` come from `characters_for_cards`, so this costs no query.
    """
    return [
        party_member(row, membership.campaign)
        for row in rows
        if row.kind == "pc" and row.owner_id != membership.user_id
    ]


def party_member(row, campaign) -> PartyMember:
    """A player character as any player but its owner sees it in the party: the same for
    them all (the campaign's `party_visibility` alone decides), so the live stream draws it
    once per change for every such player (live/stream.py)."""
    from campaign.models import PartyVisibility

    shown = campaign.party_visibility
    if shown == PartyVisibility.NOTHING:
        return PartyMember(row)
    lang = 1 if get_language() == "en" else 0
    state = character_state(row, campaign.stats)
    bars = shown == PartyVisibility.BARS
    down, vital = down_state(state, asked=survie_asked(getattr(row, PREFETCHED, ())), lang=lang)
    if down == "pv" and not bars:
        # Without the bars the party does not see the PV: only the vital state.
        down, vital = "", engine_text.vital_text(state.vital, state.gender)[lang]
    return PartyMember(
        row,
        vital=vital,
        conditions=tuple(
            engine_text.condition_name(c.kind, state.gender)[lang] for c in state.conditions
        ),
        bars=bars,
        down=down,
    )


def latest_entries(membership, *, limit: int = 20):
    """The dashboard's log, each entry marked when an undo took it back."""
    return standing.mark(membership.campaign_id, visible_entries(membership)[:limit])
