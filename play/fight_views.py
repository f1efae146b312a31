"""Fights in rounds (R33) on the GM's dashboard and on the players' phones.

The GM starts a fight with the characters ticked, in the order they are listed (the chapter
has no initiative rule: the app rolls none), moves combatants up or down, spends their actions
and reflexes, passes to the next turn (and round) and ends the fight. A player whose campaign
lets them roll (R9, `can_roll_for`) spends their own character's actions and reflexes from
the fight strip on their phone. Every write is one service of play/services/.

From the dashboard (htmx), the outcome goes to the fight's own result slot (#result-fight),
and the fight section, the cards whose seat moved and the log are redrawn out of band; a
refusal is a 400 whose message goes to that same slot. From a player's page, the page comes
back (a redirect after a success, the page with the message and a 400 after a refusal): htmx
takes its fight strip.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from campaign.models import Campaign, DashboardView, Visibility
from campaign.permissions import can_roll_for, get_gm_membership, get_membership
from characters.models import Character
from journal.texts import explanation, rule_message
from play import parts, selectors, services
from play.actions import DiceField
from play.views import action_fragments, dashboard_characters
from rules.engine import RuleError

# The turn is announced at the table: everyone sees the fight's entries, so that every phone
# follows the turn live whatever the campaign's default for rolls (R33).
FIGHT_VISIBILITY = Visibility.EVERYONE
SPENDS = {"action": "action", "reflex": "reflex"}
MOVES = ("up", "down", "out")


class FightStartForm(forms.Form):
    """The characters ticked, in the GM's order (R33): by the place each was given (the page
    numbers them in the order they are ticked, static/fight.js; the GM may type them), those
    without one after, in the order the page lists them; and those surprised (R25)."""

    fighters = forms.TypedMultipleChoiceField(
        label=gettext_lazy("In the fight"),
        coerce=int,
        error_messages={"required": gettext_lazy("Tick at least one character for the fight.")},
    )
    surprised = forms.TypedMultipleChoiceField(
        label=gettext_lazy("Surprised"), coerce=int, required=False
    )

    def __init__(self, *args, candidates, **kwargs):
        super().__init__(*args, **kwargs)
        candidates = list(candidates)
        choices = [(c.pk, c.name) for c in candidates]
        self.fields["fighters"].choices = choices
        self.fields["surprised"].choices = choices
        self.listed = [c.pk for c in candidates]
        for c in candidates:
            self.fields[f"place_{c.pk}"] = forms.IntegerField(
                label=gettext_lazy("Place: %(name)s") % {"name": c.name},
                required=False,
                min_value=1,
                max_value=len(candidates),
            )

    def clean(self):
        data = super().clean()
        fighters, surprised = data.get("fighters") or [], data.get("surprised") or []
        if fighters and not set(surprised) <= set(fighters):
            raise forms.ValidationError(_("Only a character in the fight can be surprised."))

        def place(pk):
            given = data.get(f"place_{pk}")
            return (given is None, given or 0, self.listed.index(pk))

        data["fighters"] = sorted(fighters, key=place)
        return data


def _fresh(campaign_id: int) -> Campaign:
    return Campaign.objects.get(pk=campaign_id)


def _from_dashboard(request) -> bool:
    if not request.htmx:
        return False
    return parts.page_parts(request, request.resolver_match.kwargs["campaign_id"]).fight


def _done(request, membership, result):
    """A fight action went through: its outcome where the GM looks, or back to the page."""
    lines = explanation(result.outcome)
    if _from_dashboard(request):
        context = action_fragments(request, membership, result, slot=parts.FIGHT, lines=lines)
        return render(request, "play/_action_result.html", context)
    if not request.htmx:  # htmx takes only the fight strip of the page it is sent back to
        for line in lines:
            messages.info(request, line)
    return redirect(_back(request, membership))


def _back(request, membership) -> str:
    """Where a plain form goes back to: the page it came from (a player's sheet or home)."""
    back = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(back, {request.get_host()}, request.is_secure()):
        return back
    return reverse("campaign", args=[membership.campaign_id])


def _refused(request, membership, message: str):
    """A refused fight action: its message in the fight section, a 400, the page whole."""
    campaign = _fresh(membership.campaign_id)
    context = {"campaign": campaign, "membership": membership, "fight_error": message}
    if _from_dashboard(request):
        context["fight_section"] = selectors.fight_section(campaign)
        return render(request, "play/_fight_refused.html", context, status=400)
    if membership.is_gm:
        return _dashboard_page(request, membership, context)
    return _player_page(request, membership, context)


def _form_refused(request, membership, form):
    """A fight form that does not validate: its errors, in the fight's result slot (400)."""
    return _refused(request, membership, " ".join(e for f in form.errors.values() for e in f))


def _dashboard_page(request, membership, context):
    context["log_entries"] = selectors.latest_entries(membership)
    context |= dashboard_characters(context["campaign"])
    context["view"] = membership.dashboard_view
    context["views"] = DashboardView.choices
    return render(request, "play/dashboard.html", context, status=400)


def _player_page(request, membership, context):
    """The player's page the refused form came from, with the message in its fight strip."""
    from play.player import sheet_response

    campaign = context["campaign"]
    membership.campaign = campaign
    character_id = request.resolver_match.kwargs.get("character_id")
    character = get_object_or_404(selectors.characters_for_cards(campaign), pk=character_id)
    return sheet_response(
        request, membership, character, status=400, fight_error=context["fight_error"]
    )


def _attempt(request, membership, call):
    try:
        result = call()
    except RuleError as error:
        return _refused(request, membership, rule_message(error, gm=membership.is_gm))
    return _done(request, membership, result)


@login_required
@require_GET
def fight_start_form(request, campaign_id):
    """The GM's form to start a fight: every character who may fight, to tick in their order
    (R33). Drawn when the GM opens the fight section's start, not on every dashboard."""
    membership = get_gm_membership(request, campaign_id)
    campaign = membership.campaign
    context = {"campaign": campaign, "fight_section": selectors.fight_section(campaign)}
    return render(request, "play/_fight_start_form.html", context)


@login_required
@require_POST
def fight_start(request, campaign_id):
    membership = get_gm_membership(request, campaign_id)
    rows = list(selectors.characters_for_cards(membership.campaign))
    form = FightStartForm(request.POST, candidates=selectors.fight_candidates(rows))
    if not form.is_valid():
        return _form_refused(request, membership, form)
    return _attempt(
        request,
        membership,
        lambda: services.fight_start(
            campaign_id=campaign_id,
            actor=request.user,
            character_ids=form.cleaned_data["fighters"],
            surprised_ids=form.cleaned_data["surprised"],
            visibility=FIGHT_VISIBILITY,
        ),
    )


class NextTurnForm(forms.Form):
    """R9/R33: the dice of the rolls a round's length makes due (R11, R13), typed in from
    physical dice like any other; empty, the server rolls them."""

    dice = DiceField()


@login_required
@require_POST
def fight_next_turn(request, campaign_id):
    membership = get_gm_membership(request, campaign_id)
    form = NextTurnForm(request.POST)
    if not form.is_valid():
        return _refused(request, membership, " ".join(form.errors["dice"]))
    return _attempt(
        request,
        membership,
        lambda: services.fight_next_turn(
            campaign_id=campaign_id,
            actor=request.user,
            dice=form.cleaned_data["dice"] or None,
            visibility=FIGHT_VISIBILITY,
        ),
    )


@login_required
@require_POST
def fight_end(request, campaign_id):
    membership = get_gm_membership(request, campaign_id)
    return _attempt(
        request,
        membership,
        lambda: services.fight_end(
            campaign_id=campaign_id, actor=request.user, visibility=FIGHT_VISIBILITY
        ),
    )


@login_required
@require_POST
def fight_move(request, campaign_id, character_id, direction):
    """The GM moves a combatant one place up or down in the order, or out of the fight."""
    membership = get_gm_membership(request, campaign_id)
    if direction not in MOVES:
        raise Http404
    character = get_object_or_404(Character, pk=character_id, campaign_id=campaign_id)
    fight = _fresh(campaign_id).fight
    order = [int(key) for key in fight["order"]] if fight else []
    if character.pk not in order:
        message = _("No fight is running.") if not fight else None
        if message is None:
            message = _("%(name)s is not in the fight.") % {"name": character.name}
        return _refused(request, membership, message)
    index = order.index(character.pk)
    if direction == "out":
        if len(order) == 1:
            return _refused(
                request, membership, _("A fight has at least one character: end it instead.")
            )
        return _attempt(
            request,
            membership,
            lambda: services.fight_leave(
                campaign_id=campaign_id,
                actor=request.user,
                character_id=character.pk,
                visibility=FIGHT_VISIBILITY,
            ),
        )
    else:
        other = index - 1 if direction == "up" else index + 1
        if not 0 <= other < len(order):
            return _refused(
                request,
                membership,
                _("%(name)s is already first.") % {"name": character.name}
                if direction == "up"
                else _("%(name)s is already last.") % {"name": character.name},
            )
        order[index], order[other] = order[other], order[index]
    return _attempt(
        request,
        membership,
        lambda: services.fight_set_order(
            campaign_id=campaign_id,
            actor=request.user,
            character_ids=order,
            visibility=FIGHT_VISIBILITY,
        ),
    )


class FightJoinForm(forms.Form):
    """R33: who joins the running fight (reinforcements) and at which place (1 is first;
    empty: last). Offered: every character who may fight (`fight_candidates`), so that a
    form sent twice, or from a page behind the fight, gets the rules' own refusal."""

    character = forms.TypedChoiceField(
        label=gettext_lazy("Who joins"),
        coerce=int,
        error_messages={
            "required": gettext_lazy("Choose who joins the fight."),
            "invalid_choice": gettext_lazy(
                "This character cannot join the fight: they are dead, off the table or not "
                "in this campaign."
            ),
        },
    )
    place = forms.IntegerField(
        label=gettext_lazy("Place"),
        required=False,
        min_value=1,
        error_messages={
            "invalid": gettext_lazy("The place is a whole number, 1 for first."),
            "min_value": gettext_lazy("The place is a whole number, 1 for first."),
        },
    )

    def __init__(self, *args, candidates, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["character"].choices = [(c.pk, c.name) for c in candidates]


@login_required
@require_POST
def fight_join(request, campaign_id):
    """R33: the GM brings a character into the running fight, last or at the place given."""
    membership = get_gm_membership(request, campaign_id)
    rows = list(selectors.characters_for_cards(membership.campaign))
    form = FightJoinForm(request.POST, candidates=selectors.fight_candidates(rows))
    if not form.is_valid():
        return _form_refused(request, membership, form)
    return _attempt(
        request,
        membership,
        lambda: services.fight_join(
            campaign_id=campaign_id,
            actor=request.user,
            character_id=form.cleaned_data["character"],
            place=form.cleaned_data["place"],
            visibility=FIGHT_VISIBILITY,
        ),
    )


@login_required
@require_POST
def fight_spend(request, campaign_id, character_id, what):
    """One action or one reflex of this round (R33): the GM's, or a player's on their own
    character when the campaign lets players roll (R9)."""
    membership = get_membership(request, campaign_id)
    if what not in SPENDS:
        raise Http404
    character = get_object_or_404(Character, pk=character_id, campaign_id=campaign_id)
    if not (membership.is_gm or can_roll_for(membership, character)):
        raise PermissionDenied
    return _attempt(
        request,
        membership,
        lambda: services.fight_spend(
            character_id=character.pk,
            actor=request.user,
            what=SPENDS[what],
            visibility=FIGHT_VISIBILITY,
        ),
    )
