"""R34 at the table: the GM asks a player for a roll; the player's phone answers it.

The GM asks from a card (`roll_ask`) or for several characters at once from the party bar
(`party_ask`), sees the odds as the form is typed in (`roll_ask_probability`), and may cancel
a request or roll it instead (`roll_answer` as the GM). The owner answers from their sheet
(`roll_answer`): a server roll, or the die they rolled at the table (R9). Every write goes
through play/requests.py; the cards, which show the requests, follow live.
"""

from __future__ import annotations

from dataclasses import replace

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import reswap, retarget

from campaign.permissions import get_gm_membership, get_membership
from characters.models import Character, Kind, Severity
from journal.texts import current_language, rule_message
from play import parts, requests, services
from play.actions import Action, ActionForm, typed_value
from play.models import RequestKind, RollRequest
from play.views import action_fragments, campaign_character, odds_response, render_action_form
from rules.engine import RuleError

# The answer's die: a D20 (the sequel's D6 of a waking try, or the clock's rolls after it,
# are the server's, and logged as such, R9).
DIE_SIDES = 20


class RequestForm(ActionForm):
    """What the GM asks of a character's player (R34): a test, or a rules roll."""

    kind = forms.ChoiceField(label=gettext_lazy("Roll asked for"))
    stat = forms.ChoiceField(label=gettext_lazy("Statistic"), required=False)
    skill = forms.CharField(label=gettext_lazy("Skill or test name"), max_length=40, required=False)
    difficulty = forms.IntegerField(
        label=gettext_lazy("Difficulty"), min_value=1, max_value=60, required=False
    )
    modifier = forms.IntegerField(
        label=gettext_lazy("GM's modifier"), min_value=-20, max_value=20, initial=0, required=False
    )
    severity = forms.TypedChoiceField(
        label=gettext_lazy("Severity (falling ill)"),
        choices=Severity.choices,
        coerce=int,
        initial=Severity.MILD,
        required=False,
    )
    name = forms.CharField(label=gettext_lazy("Illness"), max_length=120, required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        kinds = [RequestKind.CHECK, RequestKind.WAKE, RequestKind.FALL_ILL]
        character = self.character
        if character is not None and character.vital == "up" and character.pv <= 0:
            kinds.insert(0, RequestKind.DEATHS_DOOR)  # R10 left to the player, still due
        self.fields["kind"].choices = [(k.value, k.label) for k in kinds]
        self.fields["stat"].choices = [(code, code) for code in self.campaign.stats]
        self.fields["difficulty"].initial = self.campaign.default_difficulty

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("kind") == RequestKind.CHECK:
            if not cleaned.get("stat"):
                self.add_error("stat", _("Choose the statistic of the test (R5)."))
            if cleaned.get("difficulty") is None:
                self.add_error("difficulty", _("Give the test's difficulty (R5)."))
        return cleaned

    def arguments(self):
        data = self.cleaned_data
        kind = data["kind"]
        if kind == RequestKind.CHECK:
            return {
                "kind": kind,
                "stat": data["stat"],
                "skill": data["skill"] or None,
                "difficulty": data["difficulty"],
                "modifier": data.get("modifier") or 0,
            }
        if kind == RequestKind.FALL_ILL:
            return {"kind": kind, "severity": data.get("severity") or 1, "name": data["name"]}
        return {"kind": kind}


class PartyRequestForm(ActionForm):
    """The same test asked of several players at once (R34, R5)."""

    characters = forms.ModelMultipleChoiceField(
        label=gettext_lazy("Asked of"),
        queryset=Character.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": gettext_lazy("Tick at least one character.")},
    )
    stat = forms.ChoiceField(label=gettext_lazy("Statistic"))
    skill = forms.CharField(label=gettext_lazy("Skill or test name"), max_length=40, required=False)
    difficulty = forms.IntegerField(label=gettext_lazy("Difficulty"), min_value=1, max_value=60)
    modifier = forms.IntegerField(
        label=gettext_lazy("GM's modifier"), min_value=-20, max_value=20, initial=0, required=False
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["characters"].queryset = Character.objects.filter(
            campaign=self.campaign, kind=Kind.PC, owner__isnull=False
        ).order_by("name")
        self.fields["stat"].choices = [(code, code) for code in self.campaign.stats]
        self.fields["difficulty"].initial = self.campaign.default_difficulty

    def arguments(self):
        data = self.cleaned_data
        return {
            "character_ids": [c.pk for c in data["characters"]],
            "stat": data["stat"],
            "skill": data["skill"] or None,
            "difficulty": data["difficulty"],
            "modifier": data.get("modifier") or 0,
        }


ASK = Action("ask", gettext_lazy("Ask the player for a roll"), RequestForm, None)
PARTY_ASK = Action(
    "party_ask", gettext_lazy("Ask several players for a test"), PartyRequestForm, None
)
ASK_ODDS = parts.OddsText(
    gettext_lazy("Chance of success (the player sees it too):"),
    gettext_lazy("— (no test to roll)"),
)


def _panel_response(request, context, *, url, probability_url=None, status=200):
    """The request's form in the card's panel (htmx) or as a page, as the GM's actions are."""
    panel = parts.action_panel(
        context["action"],
        context["form"],
        context["campaign"],
        context["character"],
        in_panel=bool(request.htmx),
    )
    panel = replace(
        panel,
        url=url,
        probability_url=probability_url,
        odds=ASK_ODDS if probability_url else None,
    )
    context["panel"] = panel
    return render_action_form(request, context, status)


def _asked(request, membership, results, character=None):
    """What the GM sees once the request is made: who was asked what, beside the card."""
    lang = current_language()
    entries = [entry for result in results for entry in result.entries]
    lines = [
        f"{entry.character_name} · {entry.text_fr if lang == 'fr' else entry.text_en}"
        for entry in entries
    ]
    if request.htmx:
        slot = parts.slot_for(character)
        merged = services.Result(
            results[0].outcome, entries, sorted({pk for r in results for pk in r.character_ids})
        )
        context = action_fragments(
            request, membership, merged, slot=slot, lines=lines, closed_panel=slot
        )
        context["result"] = replace(context["result"], undo_url=None)
        return render(request, "play/_action_result.html", context)
    for line in lines:
        messages.info(request, line)
    return redirect("campaign", membership.campaign_id)


@login_required
@require_http_methods(["GET", "POST"])
def roll_ask(request, campaign_id, character_id):
    """The GM asks the character's player for a roll (R34), from the card."""
    membership = get_gm_membership(request, campaign_id)
    character = campaign_character(membership, character_id)
    campaign = membership.campaign
    form = RequestForm(request.POST or None, campaign=campaign, character=character)
    context = {
        "campaign": campaign,
        "membership": membership,
        "form": form,
        "action": ASK,
        "character": character,
    }
    urls = {
        "url": _url("roll_ask", campaign.pk, character.pk),
        "probability_url": _url("roll_ask_probability", campaign.pk, character.pk),
    }
    if request.method == "POST":
        if form.is_valid():
            try:
                result = requests.roll_request_create(
                    character_id=character.pk, actor=request.user, **form.service_arguments()
                )
            except RuleError as error:
                form.add_error(None, rule_message(error))
            else:
                return _asked(request, membership, [result], character)
        return _panel_response(request, context, status=400, **urls)
    return _panel_response(request, context, **urls)


@login_required
@require_GET
def roll_ask_probability(request, campaign_id, character_id):
    """The odds of the roll the GM is about to ask for, as the form is typed in: a dash and
    what is missing while it is half-typed or refused (never a 4xx at each keystroke)."""
    membership = get_gm_membership(request, campaign_id)
    character = campaign_character(membership, character_id)
    campaign = membership.campaign
    form = RequestForm(request.GET, campaign=campaign, character=character)
    form.fields.pop("visibility", None)
    return odds_response(
        form,
        lambda arguments: services.roll_odds(
            services.REQUEST_ROLLS["ask"](character.pk, **arguments), campaign
        ),
        ASK_ODDS.no_test,
    )


@login_required
@require_http_methods(["GET", "POST"])
def party_ask(request, campaign_id):
    """The GM asks the same test of several players at once (R34), from the party bar."""
    membership = get_gm_membership(request, campaign_id)
    campaign = membership.campaign
    form = PartyRequestForm(request.POST or None, campaign=campaign)
    context = {
        "campaign": campaign,
        "membership": membership,
        "form": form,
        "action": PARTY_ASK,
        "character": None,
    }
    url = _url("party_ask", campaign.pk)
    if request.method == "POST":
        if form.is_valid():
            try:
                results = requests.roll_requests_create(
                    campaign_id=campaign.pk, actor=request.user, **form.service_arguments()
                )
            except RuleError as error:
                form.add_error(None, rule_message(error))
            else:
                return _asked(request, membership, results)
        return _panel_response(request, context, url=url, status=400)
    return _panel_response(request, context, url=url)


def _request(membership, request_id) -> RollRequest:
    return get_object_or_404(
        RollRequest.objects.select_related("character"),
        pk=request_id,
        campaign_id=membership.campaign_id,
    )


def _refused(request, roll_request, message, membership):
    """A refusal, said where the answer was typed (htmx) or on a page of its own; a 400."""
    if request.htmx:
        response = HttpResponse(message, status=400)
        return reswap(retarget(response, f"#request-error-{roll_request.pk}"), "innerHTML")
    return render(
        request,
        "play/request_refused.html",
        {
            "campaign": membership.campaign,
            "membership": membership,
            "message": message,
            "character": roll_request.character,
        },
        status=400,
    )


def _typed_die(value: str) -> list[int] | str:
    """The die typed in (a D20, 1 to 20), or why it is refused, in the viewer's language."""
    text = (value or "").strip()
    if not text:
        return _("Type the die you rolled (1 to 20), or let the server roll.")
    value = typed_value(text, DIE_SIDES)
    if value is None:
        return _("“%(value)s” is not a D20 result: type a whole number from 1 to 20.") % {
            "value": text[:10]
        }
    return [value]


@login_required
@require_POST
def roll_answer(request, campaign_id, request_id):
    """The roll asked for: by the character's owner, or by the GM instead (R34, R9)."""
    membership = get_membership(request, campaign_id)
    roll_request = _request(membership, request_id)
    character = roll_request.character
    if not membership.is_gm and character.owner_id != request.user.pk:
        raise PermissionDenied
    dice = None
    if request.POST.get("mode") != "server":
        typed = _typed_die(request.POST.get("die", ""))
        if isinstance(typed, str):
            return _refused(request, roll_request, typed, membership)
        dice = typed
    try:
        result = requests.roll_request_answer(
            request_id=roll_request.pk, actor=request.user, dice=dice
        )
    except RuleError as error:
        message = rule_message(error, gm=membership.is_gm)
        return _refused(request, roll_request, message, membership)
    # The answering player sees a GM-only roll as every other player does: sealed.
    lines = parts.seen_explanation(membership, result)
    if not request.htmx:
        for line in lines:
            messages.info(request, line, "roll")
        if membership.is_gm:
            return redirect("campaign", campaign_id)
        return redirect("character", campaign_id, character.pk)
    slot = parts.slot_for(character)
    context = action_fragments(request, membership, result, slot=slot, lines=lines)
    if not membership.is_gm:
        # The player's answer: the roll explained under their card, which comes with it
        # (their sheet shows no other part); no Undo, which is the GM's.
        # no Reveal either: a sealed roll is the GM's to reveal.
        context["result"] = replace(context["result"], undo_url=None, sealed=())
    return render(request, "play/_action_result.html", context)


@login_required
@require_POST
def roll_cancel(request, campaign_id, request_id):
    """The GM withdraws a request (R34)."""
    membership = get_gm_membership(request, campaign_id)
    roll_request = _request(membership, request_id)
    try:
        result = requests.roll_request_cancel(request_id=roll_request.pk, actor=request.user)
    except RuleError as error:
        return _refused(request, roll_request, rule_message(error), membership)
    return _asked(request, membership, [result], roll_request.character)


def _url(name, *args):
    return reverse(name, args=args)
