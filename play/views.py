from dataclasses import replace

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import prefetch_related_objects
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import reswap, retarget

from campaign import services as campaign_services
from campaign.models import Campaign, DashboardView
from campaign.permissions import can_see_full_sheet, get_gm_membership, get_membership
from characters import state as rows_state
from characters.models import Character
from journal.models import AuditEntry
from journal.texts import current_language, explanation, rule_message
from play import parts, player, selectors, services
from play.actions import ACTIONS, GROUP_ACTIONS, PARTY_ACTIONS, CheckForm
from play.cards import CARDS, COMPACT, preload, request_csrf_input, shown_view
from play.forms import CharacterForm
from play.requests import PREFETCHED
from rules.engine import DiceScriptExhausted, RuleError
from rules.engine import percent_text as engine_percent

# The header of a page the service worker may keep for offline reading (live/offline.py).
OFFLINE_COPY_HEADER = "X-Offline-Copy"


def campaign_character(membership, character_id) -> Character:
    character = get_object_or_404(
        Character.objects.select_related("owner"),
        pk=character_id,
        campaign_id=membership.campaign_id,
    )
    character.campaign = membership.campaign  # read with the membership: not joined again
    return character


@login_required
@require_http_methods(["GET", "POST"])
def character_create(request, campaign_id):
    membership = get_gm_membership(request, campaign_id)
    return _character_form(request, membership, Character(campaign=membership.campaign))


@login_required
@require_http_methods(["GET", "POST"])
def character_edit(request, campaign_id, character_id):
    membership = get_gm_membership(request, campaign_id)
    return _character_form(request, membership, campaign_character(membership, character_id))


def _character_form(request, membership, character):
    """Create or edit through the services: every change is logged and its rules follow."""
    campaign = membership.campaign
    form = CharacterForm(request.POST or None, instance=character, campaign=campaign)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                if character.pk is None:
                    result = services.character_create(
                        campaign_id=campaign.pk, actor=request.user, **form.service_arguments()
                    )
                else:
                    result = services.character_update(
                        character_id=character.pk, actor=request.user, **form.service_arguments()
                    )
            except RuleError as error:
                form.add_error(None, rule_message(error))
            else:
                name = form.cleaned_data["name"]
                messages.success(request, _("%(name)s saved.") % {"name": name})
                for line in explanation(result.outcome):
                    messages.info(request, line)
                if character.pk is None and "another" in request.POST:
                    return redirect("character_create", campaign.pk)
                return redirect("character", campaign.pk, character.pk or result.character_ids[0])
        status = 400
    return render(
        request,
        "play/form.html",
        {"campaign": campaign, "membership": membership, "form": form, "character": character},
        status=status,
    )


@login_required
@require_GET
def character_sheet(request, campaign_id, character_id):
    membership = get_membership(request, campaign_id)
    character = get_object_or_404(
        selectors.characters_for_cards(membership.campaign), pk=character_id
    )
    return player.sheet_response(request, membership, character)


def action_fragments(request, membership, result, *, slot, lines, closed_panel=None, fresh=False):
    """An action's (or an undo's) htmx answer: its result in `slot`, and every part of the
    page it may have changed (its cards, the clock and scene, the party bar, the log).

    All of it is drawn from the campaign as it is after the commit: the membership's campaign
    was read before the service ran, and would show the clock and scene as they were.
    `fresh`: nothing was written after the service's run (the GM's own action), so the
    campaign and the character rows the run locked and wrote (`result.campaign`,
    `result.rows`) are that state, and are drawn without being read again.
    """
    fresh = fresh and result.campaign is not None
    campaign = result.campaign if fresh else Campaign.objects.get(pk=membership.campaign_id)
    shown = parts.page_parts(request, campaign.pk)
    if fresh and shown.fight and _fight_section_same(result):
        shown = replace(shown, fight=False)  # the page's section is still true
    changed = [pk for pk in result.character_ids if shown.shows_card(pk)]
    # The light list of every character (who may start a fight), read once for the fight
    # section and, when the page has the bar, for who may die on the clock's way (R11).
    light = selectors.light_rows(campaign) if shown.fight and not campaign.fight else None
    context = {
        "campaign": campaign,
        "membership": membership,
        "result": parts.action_result(campaign, result.entries, lines, slot),
        "explanation": lines,
        "changed_characters": _changed_cards(campaign, result, changed, fresh),
        "closed_panel": closed_panel,
        "parts": shown,
        "log_entries": selectors.latest_entries(membership) if shown.log else [],
        "fight_section": None,
    }
    if shown.fight:
        rows = light if not campaign.fight else None  # a running fight reads its combatants
        context["fight_section"] = selectors.fight_section(campaign, rows)
    if light:  # the party bar's clock questions (R11) read who is at risk from it
        context["characters"] = light
    elif fresh and shown.party_bar and result.clock_at_risk is False and result.rows:
        # Nobody at risk, as the action's read told: the rows it wrote say so to the bar's
        # questions (they ask the database when given no rows).
        context["characters"] = list(result.rows.values())
    return context


def _fight_section_same(result) -> bool:
    """Whether the fight section (R33) reads as it did before the action: no fight before or
    after it, and who may start one unchanged (the same characters, none fell dead or came
    back, no name nor place at the table changed)."""
    old, new = result.before, result.outcome.state
    if old is None or new is None or old.fight is not None or new.fight is not None:
        return False
    if any(change.field in rows_state.SHEET_FIELDS for change in result.outcome.changes):
        return False
    seen = {c.key: (c.vital, c.name) for c in old.characters}
    return seen == {c.key: (c.vital, c.name) for c in new.characters}


def _changed_cards(campaign, result, changed, fresh) -> list[Character]:
    """The changed characters as their cards read them, in the dashboard's order: the rows
    the action wrote when `fresh` (their requests read again, R34: the action may have asked
    one; unless they had none and it asked none), the others read."""
    kept = (result.rows or {}) if fresh else {}
    reused = [kept[str(pk)] for pk in changed if str(pk) in kept]
    if not result.requests:
        for row in reused:
            if not row.has_requests:  # none before the action, and it asked none
                setattr(row, PREFETCHED, [])
    if reused:
        prefetch_related_objects(reused, selectors.card_requests_prefetch())
    missing = [pk for pk in changed if str(pk) not in kept]
    read = list(selectors.characters_for_cards(campaign).filter(pk__in=missing)) if missing else []
    if not reused:
        return read
    cards = {c.pk: c for c in [*reused, *read]}
    if len(cards) == 1:
        return list(cards.values())
    # The database's collation orders the names, as the dashboard's own read does.
    return [cards[pk] for pk in selectors.in_dashboard_order(cards)]


@login_required
@require_http_methods(["GET", "POST"])
def character_action(request, campaign_id, character_id, action):
    membership = get_gm_membership(request, campaign_id)
    spec = ACTIONS.get(action)
    if spec is None:
        raise Http404
    return _run_action(request, membership, spec, campaign_character(membership, character_id))


def _run_action(request, membership, spec, character=None):
    """GET: the action's form. POST: validate, apply through the one service, show the outcome.

    Errors (the form's or the rules') come back as a 400 with the form and its message, in the
    panel the form came from.
    """
    campaign = membership.campaign
    if character is not None:
        extra, target = {"character": character}, {"character_id": character.pk}
    else:
        extra, target = {}, {"campaign_id": campaign.pk}
    form = spec.form(request.POST or None, campaign=campaign, **extra)
    context = {"campaign": campaign, "membership": membership, "form": form, "action": spec}
    context["character"] = character
    if request.method == "POST":
        if form.is_valid():
            try:
                result = spec.service(actor=request.user, **target, **form.service_arguments())
            except DiceScriptExhausted as error:
                # Physical dice are thrown one after the other: the D20 decides whether a D6
                # follows (a waking try's sequel, R13/R14), so the form asks for it then.
                form.add_error("dice", next_die_message(form.cleaned_data.get("dice"), error))
            except RuleError as error:
                form.add_error(None, rule_message(error))
            else:
                return _after_action(request, membership, result, character)
        return _action_form_response(request, context, status=400)
    return _action_form_response(request, context)


def next_die_message(typed, error) -> str:
    """What the typed dice decided, and the one die the table throws next."""
    values = ", ".join(map(str, typed or ()))
    return _(
        "Thrown so far: %(values)s. The rules now ask for a D%(sides)s: throw it and add its "
        "value after the others (%(values)s, …)."
    ) % {"values": values, "sides": error.sides}


def _action_form_response(request, context, status=200):
    panel = parts.action_panel(
        context["action"],
        context["form"],
        context["campaign"],
        context["character"],
        in_panel=bool(request.htmx),
    )
    context["panel"] = panel
    return render_action_form(request, context, status)


def render_action_form(request, context, status: int = 200):
    """An action's form: the page, or under htmx the panel's form alone. A refusal's message
    goes where the form is (the quick buttons have none: it opens), not where the result
    would have gone."""
    if request.htmx:
        response = render(request, "play/action_page.html#action-form", context, status=status)
        if status >= 400:
            panel_id = context["panel"].slot.panel_id
            response = reswap(retarget(response, f"#{panel_id}"), "innerHTML")
        return response
    return render(request, "play/action_page.html", context, status=status)


def _after_action(request, membership, result, character=None):
    if request.htmx:
        slot = parts.slot_for(character)
        context = action_fragments(
            request,
            membership,
            result,
            slot=slot,
            lines=explanation(result.outcome),
            closed_panel=slot,
            fresh=True,
        )
        return render(request, "play/_action_result.html", context)
    for line in explanation(result.outcome):
        messages.info(request, line)
    return redirect("campaign", membership.campaign_id)


@login_required
@require_http_methods(["GET", "POST"])
def group_action(request, campaign_id, action):
    """Several targets at once: GET, the action's form in the group bar; POST, the action on
    every ticked character (`selected`, each checked to be the campaign's), each with their
    own rules, in one batch (play/services/group.py). An empty or bad selection, the form's
    errors and the rules' refusals come back as a 400 in the bar's panel: nothing is written."""
    membership = get_gm_membership(request, campaign_id)
    spec = GROUP_ACTIONS.get(action)
    if spec is None:
        raise Http404
    campaign = membership.campaign
    form = spec.form(request.POST or None, campaign=campaign)
    in_panel = bool(request.htmx)
    context = {"campaign": campaign, "membership": membership, "form": form, "action": spec}
    context["character"] = None
    context["panel"] = parts.group_panel(spec, form, campaign, in_panel=in_panel)
    if request.method != "POST":
        return render_action_form(request, context)
    if form.is_valid():
        arguments = form.service_arguments()
        visibility = arguments.pop("visibility", None)
        ask_players = arguments.pop("ask_players", None)
        try:
            result = spec.service(
                campaign_id=campaign.pk,
                actor=request.user,
                character_ids=request.POST.getlist("selected"),
                action=spec.name,
                visibility=visibility,
                ask_players=ask_players,
                arguments=arguments,
            )
        except RuleError as error:
            form.add_error(None, rule_message(error))
        else:
            return _after_group_action(request, membership, result)
    # Refused: the panel again, its first message focused (`group_panel` reads the errors).
    context["panel"] = parts.group_panel(spec, form, campaign, in_panel=in_panel)
    return render_action_form(request, context, status=400)


def _after_group_action(request, membership, result):
    lines = explanation(result.outcome)
    if not request.htmx:
        for line in lines:
            messages.info(request, line)
        return redirect("campaign", membership.campaign_id)
    # Each character's outcome in the dashboard's order (selectors.characters_for_cards).
    played = [int(c.key) for c in result.outcome.state.characters]
    keys = [str(pk) for pk in selectors.in_dashboard_order(played)]
    context = action_fragments(
        request,
        membership,
        result,
        slot=parts.GROUP,
        # The lines about nobody in particular; each character's are in their own outcome.
        lines=parts.group_lines(result.outcome),
        closed_panel=parts.GROUP,
        fresh=True,
    )
    context["result"] = replace(context["result"], group=parts.group_outcomes(result.outcome, keys))
    return render(request, "play/_action_result.html", context)


@login_required
@require_GET
def character_card(request, campaign_id, character_id):
    """One card, for a live refresh: what this viewer may see of the character.

    Every open card asks at once after a change, so this loads only the character's row;
    its conditions, sequels and illness are read only when the card is not cached yet.
    """
    membership = get_membership(request, campaign_id)
    rows = Character.objects.all()
    if membership.is_gm:  # the GM's card counts the proposals waiting: in the same query
        rows = rows.annotate(pending_proposals=selectors.PENDING_PROPOSALS)
    character = get_object_or_404(rows, pk=character_id, campaign_id=campaign_id)
    if not can_see_full_sheet(membership, character):
        raise PermissionDenied
    # A compact dashboard's row asks for itself as a row (?view=compact): only the GM has one.
    view = shown_view(request.GET.get("view")) if membership.is_gm else CARDS
    return render(
        request,
        "play/dashboard.html#card",
        {
            "campaign": membership.campaign,
            "membership": membership,
            "character": character,
            "view": view,
        },
    )


@login_required
@require_GET
def character_menu(request, campaign_id, character_id):
    """The GM's « Plus… » of a card or a compact row, drawn when it is opened (a card carries
    only the actions at hand): edit, NPCs in numbers and off the table, and why some actions
    are missing; for a compact row (?view=compact), first the rule links and the fight's order
    that its card shows at once."""
    membership = get_gm_membership(request, campaign_id)
    campaign = membership.campaign
    character = get_object_or_404(selectors.characters_for_cards(campaign), pk=character_id)
    return render(
        request,
        "play/_more_menu.html",
        {
            "campaign": campaign,
            "membership": membership,
            "card": selectors.card_for(character, campaign),
            "csrf_input": request_csrf_input(request),
            "compact": shown_view(request.GET.get("view")) == COMPACT,
        },
    )


@login_required
@require_GET
def check_probability(request, campaign_id, character_id):
    """The chance of success of the test the form describes, before it is rolled (R5–R8): the
    player's sheet asks it of their own character's test."""
    membership = get_membership(request, campaign_id)
    character = get_object_or_404(
        selectors.characters_for_cards(membership.campaign), pk=character_id
    )
    if not can_see_full_sheet(membership, character):
        raise PermissionDenied
    form = CheckForm(request.GET, campaign=membership.campaign, character=character)
    return _odds_answer(form, membership.campaign, character, "check")


@login_required
@require_GET
def action_probability(request, campaign_id, character_id, action):
    """The chance of success of the test the GM's action would roll first (R5, R10, R12,
    R13, R27, R28), as its form is typed in."""
    membership = get_gm_membership(request, campaign_id)
    spec = ACTIONS.get(action)
    if spec is None or action not in services.ROLLS:
        raise Http404
    character = campaign_character(membership, character_id)
    form = spec.form(request.GET, campaign=membership.campaign, character=character)
    return _odds_answer(form, membership.campaign, character, action)


def _odds_answer(form, campaign, character, action):
    """The odds ("65 %") of the test the action would roll, through its own arguments."""
    # The odds do not depend on who sees the roll or on dice typed in (half-typed, maybe).
    for name in ("visibility", "dice"):
        form.fields.pop(name, None)
    # Nor on the sequel's cause that waking may ask for (WakeForm, R14).
    if "sequel_cause" in form.fields:
        form.fields["sequel_cause"].required = False
    return odds_response(
        form,
        lambda arguments: services.action_odds(
            campaign=campaign, character_id=character.pk, action=action, **arguments
        ),
        parts.ODDS[action].no_test,
    )


def odds_text(text: str) -> HttpResponse:
    """A line of odds, which htmx puts into the form's <output> as HTML: escaped, since it
    may repeat what was typed (a stat, a name) or a character's name from a refusal."""
    return HttpResponse(escape(text), content_type="text/html; charset=utf-8")


def odds_response(form, odds_of, no_test: str) -> HttpResponse:
    """The odds of what `form` describes ("65 %", from `odds_of(form.arguments())`), or a
    dash and what is missing while it is half-typed or refused: never a 4xx, which htmx and
    the browser would report at every keystroke."""
    if not form.is_valid():
        name, errors = next(iter(form.errors.items()))
        field = form.fields.get(name)
        if field is not None:
            hint = _("— (%(field)s: %(error)s)") % {"field": field.label, "error": errors[0]}
        else:
            hint = _("— (%(error)s)") % {"error": errors[0]}
        return odds_text(hint)
    try:
        odds = odds_of(form.arguments())
    except RuleError as error:
        return odds_text(_("— (%(error)s)") % {"error": rule_message(error)})
    if odds is None:
        return odds_text(no_test)
    return odds_text(f"{odds.percent} %")


@login_required
@require_GET
def party_forecast(request, campaign_id, action):
    """What the clock, a night or an hour's rest would roll on the way, for each character,
    with the exact chance of the worst (R11, R13, R31), as the GM types the form in. Half-typed
    or refused: a line saying what is missing, never a 4xx (htmx asks at every keystroke)."""
    membership = get_gm_membership(request, campaign_id)
    spec = PARTY_ACTIONS.get(action)
    if spec is None or action not in services.FORECASTS:
        raise Http404
    campaign = membership.campaign
    form = spec.form(request.GET, campaign=campaign)
    # Who sees it, dice typed in and who rolls change nothing to the odds.
    for name in ("visibility", "dice", "ask_players"):
        form.fields.pop(name, None)
    context = {"forecasts": (), "hint": None}
    if not form.is_valid():
        name, errors = next(iter(form.errors.items()))
        field = form.fields.get(name)
        context["hint"] = f"{field.label} : {errors[0]}" if field is not None else errors[0]
    else:
        try:
            forecasts = services.clock_forecast(
                campaign=campaign, action=action, **form.arguments()
            )
        except RuleError as error:
            context["hint"] = rule_message(error)
        else:
            lang = current_language()
            context["forecasts"] = [
                {
                    "text": getattr(f, lang),
                    "key": f.key,
                    "death": engine_percent(f.death),
                    "dies": bool(f.death),
                }
                for f in forecasts
            ]
    return render(request, "play/_forecast.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def party_action(request, campaign_id, action):
    membership = get_gm_membership(request, campaign_id)
    spec = PARTY_ACTIONS.get(action)
    if spec is None:
        raise Http404
    return _run_action(request, membership, spec)


@login_required
@require_GET
def campaign_detail(request, campaign_id):
    membership = get_membership(request, campaign_id)
    campaign = membership.campaign
    if membership.is_gm:
        return _dashboard(request, membership)
    rows = list(selectors.characters_for_cards(campaign))
    own = [c for c in rows if c.owner_id == request.user.pk]
    context = {
        "campaign": campaign,
        "membership": membership,
        "own": own,
        "party": selectors.party_for(membership, rows),
        "fight_strip": selectors.fight_strip(campaign, membership, own, rows=rows),
    }
    # The live updates redraw the two lists on every change (static/live.js): one request
    # aimed at the player's own list gets both, not the whole page twice.
    target = request.htmx.target if request.htmx else None
    if target == parts.OWN_LIST:
        return render(request, "play/player_home.html#lists", context | {"oob": True})
    if target == parts.PARTY_LIST:
        return render(request, "play/player_home.html#party", context)
    if target == parts.FIGHT_STRIP:
        return render(request, "play/_fight_strip.html", context)
    response = render(request, "play/player_home.html", context)
    # A player's « Groupe » is read at the table too: the service worker (live/offline.py)
    # keeps it offline; the GM's dashboard, at the same address, it does not.
    response[OFFLINE_COPY_HEADER] = "keep"
    return response


def _dashboard(request, membership):
    return dashboard_response(request, membership)


def dashboard_response(request, membership, *, status=200, proposal_error=None):
    """The GM's dashboard; an htmx request aimed at one of its parts gets that part alone: the
    live updates refetch the clock bar, the log and the players' proposals, and closing a
    panel or a result asks for the empty slot it is at rest. `proposal_error`: (proposal id,
    why it could not be approved or refused), shown beside it."""
    campaign = membership.campaign
    target = request.htmx.target if request.htmx else None
    if target and parts.SLOT_ID.match(target):
        return HttpResponse("")
    if target in parts.GM_PART_TEMPLATES:
        return render(request, *parts.gm_part(target, campaign, membership))
    context = {"campaign": campaign, "membership": membership}
    error_for, error = proposal_error or (None, None)
    context |= parts.proposals_list(campaign, error_for=error_for, error=error)
    if target == parts.PROPOSALS:
        return render(request, "play/_proposals.html", context)
    context["log_entries"] = selectors.latest_entries(membership)
    key, value = DOWN_FIRST
    context |= dashboard_characters(
        campaign,
        down_first=request.GET.get(key) == value,
        cards_for=membership,
    )
    context["view"] = membership.dashboard_view
    context["views"] = DashboardView.choices
    return render(request, "play/dashboard.html", context, status=status)


# The dashboard's « À terre en premier », in its address (?down=first): kept by a reload.
DOWN_FIRST = ("down", "first")


def dashboard_characters(campaign, *, down_first: bool = False, cards_for=None) -> dict:
    """The dashboard's characters and its fight section, drawn from the same rows (one read);
    `down_first`: those down first (`selectors.down_first`). `cards_for`: the GM's membership
    when the page draws the cards: they are looked up in the cache first, and only the rows
    whose card must be drawn (and those whose state the page reads: the fight's, or all when
    those down come first) get their conditions, sequels and requests read."""
    rows = list(selectors.characters_for_cards(campaign, prefetch=cards_for is None))
    # Characters taken off the table (« Retirer de la table ») leave the dashboard, not the fight.
    characters = [row for row in rows if row.in_play]
    if cards_for is not None:
        fighting = {int(key) for key in campaign.fight["order"]} if campaign.fight else set()
        preload(
            characters,
            campaign=campaign,
            membership=cards_for,
            view=cards_for.dashboard_view,
            also=rows if down_first else [row for row in rows if row.pk in fighting],
        )
    if down_first:
        characters = selectors.down_first(characters, campaign)
    return {
        "characters": characters,
        "fight_section": selectors.fight_section(campaign, rows),
        "down_first": down_first,
    }


@login_required
@require_POST
def dashboard_view(request, campaign_id):
    """The GM switches the dashboard between cards and compact rows, remembered for this
    campaign (Membership.dashboard_view), and sees the dashboard again."""
    membership = get_gm_membership(request, campaign_id)
    try:
        campaign_services.dashboard_view_set(
            membership_id=membership.pk, view=request.POST.get("view", "")
        )
    except campaign_services.CampaignError as error:
        return HttpResponseBadRequest(str(error))
    return redirect("campaign", campaign_id)


@login_required
@require_POST
def entry_undo(request, campaign_id, entry_id, whole_action=False):
    """The GM reverts a change (or a whole action) with new entries; a conflict is explained
    and the GM chooses: revert anyway (`force`), or cancel."""
    membership = get_gm_membership(request, campaign_id)
    entry = get_object_or_404(AuditEntry, pk=entry_id, campaign_id=membership.campaign_id)
    force = request.POST.get("force") == "1"
    # Undone from a card's result (htmx), everything is answered in that result's place.
    slot = parts.slot_named(request.htmx.target) if request.htmx else None
    context = {
        "campaign": membership.campaign,
        "membership": membership,
        "entry": entry,
        "whole_action": whole_action,
        "slot": slot,
        "undo_url": reverse(
            "action_undo" if whole_action else "entry_undo", args=[campaign_id, entry.pk]
        ),
        "back": reverse("campaign", args=[campaign_id])
        if slot
        else reverse("history", args=[campaign_id]) + f"#entry-{entry.pk}",
    }
    template = "play/undo_conflict.html#conflict" if slot else "play/undo_conflict.html"
    try:
        result = services.entry_undo(
            campaign_id=membership.campaign_id,
            actor=request.user,
            entry_id=entry.pk,
            whole_action=whole_action,
            force=force,
        )
    except services.UndoConflict as conflict:
        lang = current_language()
        context["problems"] = [getattr(p, lang) for p in conflict.problems]
        return render(request, template, context, status=409)
    except RuleError as error:
        context["refusal"] = rule_message(error)
        return render(request, template, context, status=400)
    if slot:
        context = action_fragments(
            request, membership, result, slot=slot, lines=parts.undo_lines(result.entries)
        )
        return render(request, "play/_action_result.html", context)
    messages.success(
        request,
        _("Undone: %(n)s change(s) reverted, as new entries in the history.")
        % {"n": len(result.entries)},
    )
    return redirect(reverse("history", args=[campaign_id]) + f"#entry-{result.entries[-1].pk}")


@login_required
@require_POST
def action_undo(request, campaign_id, entry_id):
    return entry_undo(request, campaign_id, entry_id, whole_action=True)
