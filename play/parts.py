"""The dashboard's parts as htmx sees them: where an action's form posts and where its result
and its panel go, and which parts of the page an answer may redraw.

Templates lay these out; every decision (which action has a preview of its odds, which one a
grid of shares, which page asked) is taken here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

from django.urls import Resolver404, get_script_prefix, resolve, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaign.models import Visibility
from journal import sealing
from journal.models import EntryKind
from journal.texts import current_language, explanation, undo_question
from journal.visibility import visible_entries
from play.actions import ShareHourRestForm
from play.cards import CARDS, shown_view
from play.reads import AT_RISK
from play.selectors import fight_section, latest_entries, proposals_waiting
from play.services import FORECASTS, clock_risks
from rules.engine.text import without_rule_ids

# An htmx request aimed at one of these ids (its HX-Target) is answered by that part alone.
PARTY_BAR, LOG, FIGHT_PART = "party-bar", "roll-log", "fight"
PROPOSALS = "proposals"  # the players' proposals waiting for the GM (play/_proposals.html)
# A player's home: their own characters and the party's rows (play/player_home.html).
OWN_LIST, PARTY_LIST = "own-characters", "party-members"
# A player's fight strip (R33), on their home and their sheet: redrawn by the live updates when
# the campaign changes, alone.
FIGHT_STRIP = "fight-strip"
# The GM's parts the live stream pushes (live/stream.py) and the dashboard's GET aimed at one
# answers alone, each drawn by its template from what `gm_part` reads.
GM_PART_TEMPLATES = {
    PARTY_BAR: "play/dashboard.html#party-bar",
    LOG: "play/dashboard.html#log",
    FIGHT_PART: "play/_fight.html",
}
# The header in which the dashboard names the view it shows (cards or compact rows).
VIEW_HEADER = "X-Dashboard-View"
SLOT_ID = re.compile(r"^(?:panel|result)-(?:\d+|party|fight|group)$")
# The ticked characters' boxes, which a group action's form sends along (templates/play/
# dashboard.html, static/group.js).
GROUP_SELECTED = "#characters input[name=selected]:checked"


@dataclass(frozen=True)
class Slot:
    """Beside a card (or under the party bar): a panel for an action's form, then a place for
    its result. Their ids are stable, so htmx always finds them."""

    key: str  # a character's id, "party", or "fight" (the fight section's result)

    @property
    def panel_id(self) -> str:
        return f"panel-{self.key}"

    @property
    def result_id(self) -> str:
        return f"result-{self.key}"


PARTY = Slot("party")
FIGHT = Slot("fight")
GROUP = Slot("group")  # the group bar's: an action on the ticked characters


def slot_for(character) -> Slot:
    return PARTY if character is None else Slot(str(character.pk))


def slot_named(element_id: str | None) -> Slot | None:
    """The slot of a result the page named (an undo's HX-Target), if it is one."""
    if element_id and SLOT_ID.match(element_id) and element_id.startswith("result-"):
        return Slot(element_id.removeprefix("result-"))
    return None


@dataclass(frozen=True)
class OddsText:
    """What a rolling action's panel says before its odds, and instead of them when it would
    roll no test."""

    label: str
    no_test: str


# Every action that may roll a test (play.services.ROLLS) shows its odds, worded here.
ODDS = {
    "check": OddsText(gettext_lazy("Chance of success:"), gettext_lazy("— (no test to roll)")),
    "damage": OddsText(
        gettext_lazy("If PV fall to 0 or below, chance of passing the Survie test (R10):"),
        gettext_lazy("— (no Survie test: PV stay above 0, or are not above 0 to start with)"),
    ),
    "stabilise": OddsText(
        gettext_lazy("Chance of stabilising (Médecine, R12):"),
        gettext_lazy("— (no test to roll)"),
    ),
    "wake": OddsText(
        gettext_lazy("Chance of waking up (Survie, R13):"), gettext_lazy("— (no test to roll)")
    ),
    "fall": OddsText(
        gettext_lazy("Chance of softening the fall (Agilité, R27):"),
        gettext_lazy("— (no Agilité test: choose it under “Softened by”, if the fall allows)"),
    ),
    "fall_ill": OddsText(
        gettext_lazy("Chance of passing the Constitution test (R28):"),
        gettext_lazy("— (no test to roll)"),
    ),
}


@dataclass(frozen=True)
class ActionPanel:
    """An action's form, in a panel of the dashboard (htmx) or as a page of its own."""

    action: object  # play.actions.Action
    form: object
    character: object | None
    url: str
    cancel_url: str
    slot: Slot
    in_panel: bool
    probability_url: str | None = None  # a test: its odds, updated as the form is typed in
    forecast_url: str | None = None  # the clock moving: what it would roll, and the risks
    odds: OddsText | None = None
    shares: list | None = None  # the hour rest's shares: (character, PV field, Flux field)
    focus_form: bool = False  # no field to focus (refused as a whole, or none to fill in)
    include: str | None = None  # what else the form sends (a group's ticked characters)


def action_panel(action, form, campaign, character, *, in_panel: bool) -> ActionPanel:
    if character is None:
        url = reverse("party_action", args=[campaign.pk, action.name])
    else:
        url = reverse("character_action", args=[campaign.pk, character.pk, action.name])
    probability_url = odds = None
    if character is not None and action.name in ODDS:
        probability_url = reverse(
            "action_probability", args=[campaign.pk, character.pk, action.name]
        )
        odds = ODDS[action.name]
    forecast_url = None
    if character is None and action.name in FORECASTS:
        forecast_url = reverse("party_forecast", args=[campaign.pk, action.name])
    # A form sent back with errors takes the focus where the first one is: htmx focuses an
    # autofocus element it swaps in, and the browser scrolls it into view if it is not.
    # A form just opened, the same, on its first field to fill in (who sees the roll has a
    # default): a panel opening below the fold is brought into view.
    focus_form = False
    if form.is_bound:
        first = next((name for name in form.errors if name in form.fields), None)
        focus_form = bool(form.errors) and first is None
    else:
        first = next((name for name in form.fields if name != "visibility"), None)
        focus_form = first is None
    if first is not None:
        form.fields[first].widget.attrs["autofocus"] = True
    return ActionPanel(
        action=action,
        form=form,
        character=character,
        url=url,
        cancel_url=reverse("campaign", args=[campaign.pk]),
        slot=slot_for(character),
        in_panel=in_panel,
        probability_url=probability_url,
        forecast_url=forecast_url,
        odds=odds,
        shares=form.rows() if isinstance(form, ShareHourRestForm) else None,
        focus_form=focus_form,
    )


def group_panel(action, form, campaign, *, in_panel: bool) -> ActionPanel:
    """A group action's form (several targets at once), in the group bar: it posts the ticked
    characters along with its fields, and its result and refusals go to the bar."""
    panel = action_panel(action, form, campaign, None, in_panel=in_panel)
    return replace(
        panel,
        url=reverse("group_action", args=[campaign.pk, action.name]),
        slot=GROUP,
        forecast_url=None,
        include=GROUP_SELECTED,
    )


@dataclass(frozen=True)
class GroupOutcome:
    """What a group action did to one of its characters, for the result's list."""

    pk: int
    name: str
    pv: tuple[int, int]  # before, after
    flux: tuple[int, int]
    lines: tuple[str, ...]

    @property
    def pv_changed(self) -> bool:
        return self.pv[0] != self.pv[1]

    @property
    def flux_changed(self) -> bool:
        return self.flux[0] != self.flux[1]


def group_lines(outcome) -> tuple[str, ...]:
    """A group action's lines about no character in particular (each character's go with
    their outcome, `group_outcomes`)."""
    lang = current_language()
    return tuple(
        f"{line.rule_id} · {getattr(line, lang)}"
        for line in outcome.lines
        if line.character_key is None
    )


def group_outcomes(outcome, keys) -> tuple[GroupOutcome, ...]:
    """Each character's outcome of a group action, in the order they were played: PV and
    Flux before and after, and the lines about them (their rolls, their Survie, R34's
    request…), without their name in front, which the list says once."""
    lang = current_language()
    shown = []
    for key in keys:
        character = outcome.state.character(key)
        values = {}
        for field_name in ("pv", "flux"):
            changes = [
                c for c in outcome.changes if c.character_key == key and c.field == field_name
            ]
            after = getattr(character, field_name)
            values[field_name] = (changes[0].before if changes else after, after)
        prefix = f"{character.label} — "
        lines = tuple(
            f"{line.rule_id} · {getattr(line, lang).removeprefix(prefix)}"
            for line in outcome.lines
            if line.character_key == key
        )
        shown.append(GroupOutcome(int(key), character.label, values["pv"], values["flux"], lines))
    return tuple(shown)


@dataclass(frozen=True)
class ActionResult:
    """What an action (or an undo) did, shown in its slot, with an Undo for its changes."""

    lines: tuple[str, ...]
    slot: Slot
    undo_url: str | None = None
    # The sealed rolls it made (GM only: journal/sealing.py), (entry id, reveal URL) each.
    sealed: tuple[tuple[int, str], ...] = ()
    # The question its Undo asks first when it undoes much at once (static/confirm.js).
    undo_confirm: str | None = None
    # A group action's: each character's outcome (GroupOutcome), listed instead of `lines`.
    group: tuple = ()


def action_result(campaign, entries, lines, slot: Slot) -> ActionResult:
    """`entries`: what the service wrote; its changes are undone together, through the same
    view and rules as the history's "undo the whole action"; its sealed rolls can be revealed
    from here."""
    changes = [e for e in entries if e.kind == EntryKind.CHANGE]
    undo_url = None
    if changes:
        undo_url = reverse("action_undo", args=[campaign.pk, changes[-1].pk])
    sealed = tuple(
        (e.pk, reverse("entry_reveal", args=[campaign.pk, e.pk]))
        for e in entries
        if sealing.is_sealed_roll(e)
    )
    return ActionResult(tuple(lines), slot, undo_url, sealed, undo_question(len(changes)))


def seen_explanation(membership, result) -> tuple[str, ...]:
    """An action's explanation as this member may see it. The GM, and anyone when all of it
    was logged for everyone, read the engine's lines; otherwise a player reads the entries as
    the history shows them (journal/visibility.py): a GM-only roll sealed, with its
    commitment, never its result, even when that player answered the roll (R34)."""
    lines = explanation(result.outcome)
    if membership.is_gm:
        return lines
    if all(e.visibility == Visibility.EVERYONE for e in result.entries):
        return tuple(without_rule_ids(line) for line in lines)
    seen = visible_entries(membership).filter(pk__in=[e.pk for e in result.entries])
    shown = []
    for entry in seen.order_by("id"):
        line = f"{entry.character_name} · " if entry.character_name else ""
        line += entry.shown_text
        view = getattr(entry, "seal_view", None)
        if view is not None and not view.revealed:
            line += " · " + _("commitment: %(commitment)s") % {"commitment": view.commitment}
        shown.append(without_rule_ids(line))
    return tuple(shown)


def undo_lines(entries) -> list[str]:
    lines = [
        _("Undone: %(n)s change(s) reverted, as new entries in the history.") % {"n": len(entries)}
    ]
    for entry in entries:
        name = f"{entry.character_name} · " if entry.character_name else ""
        lines.append(name + entry.shown_text)
    return lines


@dataclass(frozen=True)
class PageParts:
    """The parts of the page an htmx request came from: an out-of-band swap whose target is
    not on the page is an htmx error, so an answer redraws only these."""

    party_bar: bool = False
    log: bool = False
    fight: bool = False  # the GM's fight section (#fight)
    all_cards: bool = False
    cards: frozenset[int] = field(default_factory=frozenset)
    view: str = CARDS  # what the page shows its characters as: cards, or compact rows

    def shows_card(self, pk: int) -> bool:
        return self.all_cards or pk in self.cards


DASHBOARD = PageParts(party_bar=True, log=True, fight=True, all_cards=True)


def page_parts(request, campaign_id: int) -> PageParts:
    """The GM's dashboard shows every part; a character's sheet shows that card alone."""
    path = urlsplit(request.htmx.current_url or "").path
    prefix = get_script_prefix()
    if path.startswith(prefix):
        path = "/" + path.removeprefix(prefix)
    try:
        match = resolve(path)
    except Resolver404:
        return PageParts()
    if match.kwargs.get("campaign_id") != campaign_id:
        return PageParts()
    if match.url_name == "campaign":
        # The dashboard says which view it shows in every htmx request (static/live.js): the
        # member's choice may have changed in another tab since this page was drawn.
        return replace(DASHBOARD, view=shown_view(request.headers.get(VIEW_HEADER)))
    if match.url_name == "character":
        return PageParts(cards=frozenset({match.kwargs["character_id"]}))
    return PageParts()


def proposals_list(campaign, *, error_for=None, error=None, oob=False) -> dict:
    """The context of the dashboard's list of proposals (play/_proposals.html): what waits,
    and a refusal beside its proposal, or above the list when it waits no more."""
    waiting = list(proposals_waiting(campaign))
    listed = any(p.pk == error_for for p in waiting)
    return {
        "waiting": waiting,
        "error": error,
        "error_for": error_for if listed else None,
        "error_above": error if error and not listed else None,
        "oob": oob,
    }


# The party bar's quick clock buttons, by the value they send, as `clock_forecast` takes them.
QUICK_CLOCK = {"10": {"minutes": 10}, "60": {"minutes": 60}, "morning": {"to_morning": True}}


def clock_questions(campaign, characters) -> dict[str, str]:
    """What each quick clock button asks before it moves the clock, when someone may die on
    the way (R11, the engine's exact odds): the forecast's lines, and whether to go on. The
    buttons with no risk on their way ask nothing. `characters`: the rows the page shows
    (None: a part drawn alone, which asks the database); with nobody in a coma or on
    borrowed time among them, nothing more is read."""
    lang = current_language()
    questions: dict[str, str] = {}
    if characters is None:
        at_risk = campaign.characters.filter(vital__in=AT_RISK).exists()
    else:
        at_risk = any(c.vital in AT_RISK for c in characters)
    if not at_risk:
        return questions
    for name, arguments in QUICK_CLOCK.items():
        forecasts = clock_risks(campaign=campaign, **arguments)
        risks = [getattr(f, lang) for f in forecasts if f.death]
        if risks:
            questions[name] = _("%(risks)s\nMove the clock all the same?") % {
                "risks": "\n".join(risks)
            }
    return questions


def gm_part(name: str, campaign, membership) -> tuple[str, dict]:
    """The template and context of the GM's part `name` (one of GM_PART_TEMPLATES), without
    the CSRF token: the dashboard renders it with its request, the live stream once for every
    GM's page with a placeholder, so both draw it alike."""
    context = {"campaign": campaign, "membership": membership}
    if name == LOG:
        context["log_entries"] = latest_entries(membership)
    elif name == FIGHT_PART:
        context["fight_section"] = fight_section(campaign)
    return GM_PART_TEMPLATES[name], context
