"""The player's side of a character: the sheet on a phone and the tests they roll themselves.

Players never change PV, Flux or conditions; the only write here is a test (R5) when the
campaign lets players roll (R9), on their own character, through the GM's own test service
(`services.character_check`). What else happened to them they propose to the GM
(play/proposals.py, play/proposal_views.py: the form is on this sheet).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_POST

from campaign.permissions import can_roll_for, can_see_full_sheet, get_membership
from characters.models import Character, Vital
from journal.feed import feed
from journal.selectors import sealed_rolls
from journal.texts import rule_message
from play import parts, selectors, services
from play.actions import CheckForm, FreeRollForm
from play.parts import seen_explanation
from play.proposals import ProposalForm
from rules.engine import RuleError


class PlayerCheckForm(CheckForm):
    """A test as the player asks for it: stat, skill, difficulty, and maybe their own die.

    No GM modifier and no visibility choice: the roll is logged with the campaign's default.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        del self.fields["visibility"]
        del self.fields["modifier"]
        self.fields["dice"].label = _("My own D20 (optional)")
        self.fields["dice"].help_text = _(
            "Leave it empty and the server rolls; or type the die you rolled at the table."
        )


class PlayerFreeRollForm(FreeRollForm):
    """A free roll (R9) for the player's own character: the expression and maybe their own
    dice; logged with the campaign's default visibility, like their tests."""

    # Its refusals are a player's to read: without the rules' ids.
    gm_reads = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        del self.fields["visibility"]
        del self.fields["character"]
        self.fields["dice"].label = _("My own dice (optional)")
        self.fields["dice"].help_text = _(
            "Leave it empty and the server rolls; or type the dice you rolled, in order: 3, 5."
        )

    def arguments(self):
        return {"expression": self.cleaned_data["expression"], "character_id": self.character.pk}


# The states that act, and so roll tests (R10–R16).
CONSCIOUS = (Vital.UP, Vital.BORROWED_TIME)


def _character(membership, character_id):
    return get_object_or_404(selectors.characters_for_cards(membership.campaign), pk=character_id)


def sheet_response(
    request,
    membership,
    character,
    *,
    form=None,
    status=200,
    fight_error=None,
    proposal_form=None,
    free_roll_form=None,
):
    """The sheet: the live card, the notes, the owner's test form when they may roll, and the
    owner's proposals to the GM (play/proposals.py) with their form."""
    if not can_see_full_sheet(membership, character):
        raise PermissionDenied
    campaign = membership.campaign
    if request.htmx and request.htmx.target == f"sealed-rolls-{character.pk}":
        # The live updates refetch the sealed rolls alone (static/live.js).
        context = {"campaign": campaign, "membership": membership, "character": character}
        context["sealed_rolls"] = sealed_rolls(membership, character.pk)
        return render(request, "journal/_sealed_rolls.html", context)
    if request.htmx and request.htmx.target == f"proposals-{character.pk}":
        # The live updates refetch the owner's proposals alone when their character changes
        # (the GM may have decided one).
        proposing = _proposing(membership, character, None)
        if proposing:
            context = {"campaign": campaign, "membership": membership, "character": character}
            return render(request, "play/_my_proposals.html", context | proposing)
    if request.htmx and request.htmx.target == parts.FIGHT_STRIP and not membership.is_gm:
        # The live updates refetch the fight strip alone when the campaign moves.
        strip = selectors.fight_strip(campaign, membership, [character])
        context = {"campaign": campaign, "membership": membership, "fight_strip": strip}
        return render(request, "play/_fight_strip.html", context)
    may_roll = can_roll_for(membership, character)
    # Only the conscious act (R10–R16); the engine refuses the others' tests anyway.
    conscious = character.vital in CONSCIOUS
    if may_roll and conscious and form is None:
        form = PlayerCheckForm(campaign=campaign, character=character)
    if may_roll and free_roll_form is None:
        free_roll_form = PlayerFreeRollForm(campaign=campaign, character=character)
    return render(
        request,
        "play/sheet.html",
        {
            "campaign": campaign,
            "membership": membership,
            "character": character,
            # A refused roll keeps its form, to show why; otherwise only the conscious get one.
            "roll_form": form if may_roll and (conscious or form is not None) else None,
            "unconscious": may_roll and not conscious,
            # A free roll (R9): any dice, whatever the character's state.
            "free_roll_form": free_roll_form if may_roll else None,
            # The test form's part follows the card (static/live.js): redrawn when the
            # character comes to or falls unconscious, the page left as it is otherwise.
            "conscious": conscious,
            "conscious_vitals": " ".join(CONSCIOUS),
            # The fight strip shows this character only (R33); a refused spend says why there.
            "fight_strip": None
            if membership.is_gm
            else selectors.fight_strip(campaign, membership, [character]),
            "fight_error": fight_error,
            # The live roll feed (journal/feed.py): what this member may see of the log.
            "feed": feed(membership, character),
            # The GM's sealed rolls of this character, checked on the device.
            "sealed_rolls": sealed_rolls(membership, character.pk),
            **_proposing(membership, character, proposal_form),
        },
        status=status,
    )


def _proposing(membership, character, form) -> dict:
    """The owner proposes changes to the GM; the GM applies them directly instead."""
    if membership.is_gm or character.owner_id != membership.user_id:
        return {}
    return {
        "proposal_form": form or ProposalForm(),
        "proposals": selectors.proposals_of(character),
    }


@login_required
@require_GET
def character_feed(request, campaign_id, character_id):
    """The sheet's feed alone, as the sheet shows it: refetched by static/feed.js when the
    live updates announce something newer than its newest entry."""
    membership = get_membership(request, campaign_id)
    character = get_object_or_404(
        Character.objects.filter(campaign_id=membership.campaign_id).only("pk", "owner_id"),
        pk=character_id,
    )
    if not can_see_full_sheet(membership, character):
        raise PermissionDenied
    context = {
        "campaign": membership.campaign,
        "membership": membership,
        "character": character,
        "feed": feed(membership, character),
    }
    response = render(request, "play/sheet.html#feed", context)
    response["Cache-Control"] = "no-cache"
    return response


@login_required
@require_POST
def character_roll(request, campaign_id, character_id):
    """A player's own test (R5, R9): server roll or typed-in die, explained after."""
    membership = get_membership(request, campaign_id)
    character = _character(membership, character_id)
    if not can_roll_for(membership, character):
        raise PermissionDenied
    form = PlayerCheckForm(request.POST, campaign=membership.campaign, character=character)
    if form.is_valid():
        try:
            result = services.character_check(
                character_id=character.pk, actor=request.user, **form.service_arguments()
            )
        except RuleError as error:
            form.add_error(None, rule_message(error, gm=membership.is_gm))
        else:
            # Logged GM-only (the campaign's default), the roll is sealed to its player too.
            for line in seen_explanation(membership, result):
                messages.info(request, line, "roll")
            return redirect("character", membership.campaign_id, character.pk)
    # Rows may have changed since they were read: show the sheet as it stands.
    character = _character(membership, character_id)
    return sheet_response(request, membership, character, form=form, status=400)


@login_required
@require_POST
def character_free_roll(request, campaign_id, character_id):
    """A player's free roll (R9) for their own character, where the campaign lets players
    roll: « 2d6+3 », « 1d20+ADR », the server's dice or their own, explained after."""
    membership = get_membership(request, campaign_id)
    character = _character(membership, character_id)
    if not can_roll_for(membership, character):
        raise PermissionDenied
    form = PlayerFreeRollForm(request.POST, campaign=membership.campaign, character=character)
    if form.is_valid():
        try:
            result = services.free_roll(
                campaign_id=membership.campaign_id,
                actor=request.user,
                **form.service_arguments(),
            )
        except RuleError as error:
            form.add_error(None, rule_message(error, gm=membership.is_gm))
        else:
            for line in seen_explanation(membership, result):
                messages.info(request, line, "roll")
            return redirect("character", membership.campaign_id, character.pk)
    character = _character(membership, character_id)
    return sheet_response(request, membership, character, free_roll_form=form, status=400)
