"""Players propose, the GM approves: the proposals' services and the player's form.

A player proposes a change to their own character (damage taken, Flux spent, a condition)
with a note: `proposal_make` checks that the rules would take it now, stores it and logs it,
and changes nothing else. The GM approves it (`proposal_approve`: the GM's own action, by its
form and its service in play/actions.py ACTIONS, so the rules apply as if the GM had clicked,
each entry naming the player who proposed it), perhaps edited first (the same service with
the GM's arguments), or refuses it with a word the player reads (`proposal_refuse`). The
player may withdraw it while it waits (`proposal_withdraw`).

Each step is an audit entry (field `proposal`, journal/texts.py PROPOSAL_FIELD) that only
the GM and the character's owner see (journal/visibility.py), and each publishes the
character as changed, so that the GM's card shows the count of what waits and the player's
sheet the outcome, live. Every service locks the campaign first, then the proposal, as the
game's services lock the campaign before the characters.
"""

from __future__ import annotations

from dataclasses import dataclass

from django import forms
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from campaign.models import Campaign, Visibility
from characters.models import Character, ConditionKind
from journal import audit
from journal.events import publish
from journal.models import EntryKind
from journal.texts import PROPOSAL_FIELD, de
from play import services
from play.actions import ACTIONS, MAX_AMOUNT
from play.models import Proposal, ProposalAction, ProposalStatus, summary
from rules import engine
from rules.engine.conditions import CONDITION_RULE

PENDING = ProposalStatus.PENDING


class ProposalClosed(engine.RuleError):
    """The GM (in another tab, or another GM) approved or refused it already."""

    code = "proposal_closed"


class NotYours(engine.RuleError):
    code = "proposal_not_yours"


class TooManyWaiting(engine.RuleError):
    """A player's proposals wait for the GM's decision; past a few, the list would drown the
    GM's dashboard."""

    code = "proposals_too_many"


MAX_WAITING = 10  # proposals of one character waiting at once


# ---------------------------------------------------------------------------------------------
# What a proposal says


def rule_id(action: str, arguments: dict) -> str:
    """The rule the proposed change would apply: R3 for damage (PA), R1 for Flux, R20–R25
    for a condition."""
    if action == ProposalAction.DAMAGE:
        return "R3"
    if action == ProposalAction.SPEND_FLUX:
        return "R1"
    return CONDITION_RULE[engine.ConditionKind(arguments["kind"])]


def _quoted(note: str) -> tuple[str, str]:
    return (f" — « {note} »", f" — “{note}”") if note else ("", "")


# ---------------------------------------------------------------------------------------------
# The player's form


class ProposalForm(forms.Form):
    """What a player proposes: the kind of change, its amount, cause or condition, a note.

    Only the fields of the chosen kind count; the others are ignored (the page shows only
    them, app.css). `arguments()` gives them as the GM's action takes them.
    """

    action = forms.ChoiceField(
        label=_("I propose"),
        choices=ProposalAction.choices,
        initial=ProposalAction.DAMAGE,
        widget=forms.RadioSelect,
    )
    amount = forms.IntegerField(
        label=_("How much"),
        min_value=1,
        max_value=MAX_AMOUNT,
        required=False,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    cause = forms.CharField(
        label=_("Cause (a trap, a fall, a blade…)"), max_length=200, required=False
    )
    ignores_pa = forms.BooleanField(label=_("Ignores PA"), required=False)
    kind = forms.ChoiceField(
        label=_("Condition"),
        choices=[("", "—"), *ConditionKind.choices],
        required=False,
    )
    note = forms.CharField(
        label=_("Note for the GM"),
        max_length=300,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args, prefix_id: str = "", **kwargs):
        kwargs.setdefault("auto_id", f"propose-{prefix_id}-%s" if prefix_id else "propose-%s")
        super().__init__(*args, **kwargs)

    # The fields each kind of change reads; the page hides the others.
    FIELDS = {
        ProposalAction.DAMAGE: {"amount", "cause", "ignores_pa"},
        ProposalAction.SPEND_FLUX: {"amount"},
        ProposalAction.ADD_CONDITION: {"kind"},
    }

    def clean(self):
        cleaned = super().clean()
        action = cleaned.get("action")
        # A field the chosen kind hides (an amount typed before choosing a condition) must
        # not refuse the form with a message the player cannot see.
        for name in set().union(*self.FIELDS.values()) - self.FIELDS.get(action, set()):
            self._errors.pop(name, None)
        amounted = action in (ProposalAction.DAMAGE, ProposalAction.SPEND_FLUX)
        if amounted and cleaned.get("amount") is None and "amount" not in self.errors:
            self.add_error("amount", _("Say how much (a whole number from 1 to 999)."))
        # An unknown condition has its own error already.
        conditioned = action == ProposalAction.ADD_CONDITION
        if conditioned and not cleaned.get("kind") and "kind" not in self.errors:
            self.add_error("kind", _("Choose the condition."))
        return cleaned

    def arguments(self) -> dict:
        data = self.cleaned_data
        action = data["action"]
        if action == ProposalAction.DAMAGE:
            return {
                "amount": data["amount"],
                "ignores_pa": data["ignores_pa"],
                "cause": data["cause"].strip(),
            }
        if action == ProposalAction.SPEND_FLUX:
            return {"amount": data["amount"]}
        return {"kind": data["kind"]}


def gm_form_data(proposal: Proposal, arguments: dict | None = None) -> dict:
    """The GM's action form's data for what the player proposed (or `arguments`): approving
    as proposed binds the GM's own form to it, so it is validated as the GM's click would be;
    editing shows that form filled in with it."""
    data = dict(arguments if arguments is not None else proposal.arguments)
    if data.get("ignores_pa") is False:
        del data["ignores_pa"]  # an unticked box sends nothing
    return {**data, "visibility": proposal.campaign.default_roll_visibility, "dice": ""}


# ---------------------------------------------------------------------------------------------
# The services


@dataclass(frozen=True)
class Approved:
    proposal: Proposal
    result: services.Result  # what the GM's action did


# The services' own rolls for what a player may propose: the dry run plays what the GM's
# action would play.
_ROLLS = {
    ProposalAction.DAMAGE: services.damage_roll,
    ProposalAction.SPEND_FLUX: services.flux_spend_roll,
    ProposalAction.ADD_CONDITION: services.condition_add_roll,
}


def _would_apply(campaign: Campaign, rows, action: str, arguments: dict) -> None:
    """Raise the `RuleError` the rules would raise if the GM applied it now (a dead
    character's damage, more Flux than there is, a condition a state does not allow). Nothing
    is written; the dice rolled here are thrown away."""
    row = next(iter(rows.values()))
    services.roll_try(_ROLLS[action](row.pk, **arguments), campaign, rows)


def _log(campaign, actor, proposal: Proposal, *, action, before, after, fr, en):
    """One entry of a proposal's life, seen by the GM and the character's owner only."""
    [entry] = audit.append(
        campaign=campaign,
        actor=actor,
        drafts=[
            audit.Draft(
                kind=EntryKind.CHANGE,
                action=action,
                rule_id=rule_id(proposal.action, proposal.arguments),
                character=proposal.character,
                game_time=campaign.clock,
                field=PROPOSAL_FIELD,
                before=before,
                after=after,
                text_fr=fr,
                text_en=en,
                visibility=Visibility.EVERYONE,
            )
        ],
    )
    # The GM's card counts what waits, the player's sheet lists it: both follow the character.
    publish(campaign.pk, [proposal.character_id], entry.pk)
    return entry


def proposal_make(
    *, character_id: int, actor, action: str, arguments: dict, note: str = ""
) -> Proposal:
    """A player proposes a change to their own character (their membership and ownership
    are the view's to check, and checked again here). Raises the rules' `RuleError` when the
    GM could not apply it now; changes nothing but the proposal and its entry."""
    campaign_id = Character.objects.values_list("campaign_id", flat=True).get(pk=character_id)
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        rows = services.locked_rows(campaign, [character_id], lock=False)
        character = rows[str(character_id)]
        if character.owner_id != actor.pk:
            raise NotYours(
                "Vous ne pouvez proposer que pour votre propre personnage.",
                "You may only propose for your own character.",
            )
        waiting = Proposal.objects.filter(character=character, status=PENDING).count()
        if waiting >= MAX_WAITING:
            raise TooManyWaiting(
                f"{MAX_WAITING} propositions pour {character.name} attendent déjà le MJ : "
                "attendez qu’il les traite.",
                f"{MAX_WAITING} proposals for {character.name} already wait for the GM: wait "
                "until they are dealt with.",
            )
        _would_apply(campaign, rows, action, arguments)
        proposal = Proposal.objects.create(
            campaign=campaign,
            character=character,
            proposed_by=actor,
            proposer_name=actor.get_username(),
            action=action,
            arguments=arguments,
            note=note.strip(),
        )
        fr, en = summary(action, arguments)
        note_fr, note_en = _quoted(proposal.note)
        who_fr, who = de(proposal.proposer_name), proposal.proposer_name
        _log(
            campaign,
            actor,
            proposal,
            action="proposal",
            before=None,
            after={"id": proposal.pk, "action": action, "arguments": arguments, "note": note},
            fr=f"Proposition #{proposal.pk} {who_fr} : {fr}{note_fr}",
            en=f"Proposal #{proposal.pk} by {who}: {en}{note_en}",
        )
    return proposal


_DECIDED = {
    ProposalStatus.APPROVED: ("approuvée", "approved"),
    ProposalStatus.REFUSED: ("refusée", "refused"),
    ProposalStatus.WITHDRAWN: ("retirée", "withdrawn"),
}


def _locked(proposal_id: int, campaign_id: int) -> tuple[Campaign, Proposal]:
    campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
    proposal = (
        Proposal.objects.select_for_update(of=("self",))
        .select_related("character", "campaign")
        .get(pk=proposal_id, campaign=campaign)
    )
    if not proposal.pending:
        raise ProposalClosed(*closed_message(proposal))
    return campaign, proposal


def closed_message(proposal: Proposal) -> tuple[str, str]:
    fr, en = _DECIDED[proposal.status]
    return (
        f"La proposition #{proposal.pk} a déjà été {fr} : rien n’a été changé.",
        f"Proposal #{proposal.pk} was already {en}: nothing was changed.",
    )


def _close(proposal: Proposal, status: str, actor, *fields: str) -> None:
    """The proposal leaves the waiting list: its new status, who closed it and when (and
    `fields` set by the caller)."""
    proposal.status = status
    proposal.decided_by = actor
    proposal.decided_at = timezone.now()
    proposal.save(update_fields=["status", "decided_by", "decided_at", *fields])


def proposal_refuse(*, campaign_id: int, proposal_id: int, actor, reply: str = "") -> Proposal:
    """The GM refuses a proposal, with a word the player reads on their sheet."""
    with transaction.atomic():
        campaign, proposal = _locked(proposal_id, campaign_id)
        proposal.reply = reply.strip()
        _close(proposal, ProposalStatus.REFUSED, actor, "reply")
        fr, en = summary(proposal.action, proposal.arguments)
        reply_fr, reply_en = _quoted(proposal.reply)
        _log(
            campaign,
            actor,
            proposal,
            action="proposal_refused",
            before={"id": proposal.pk, "status": PENDING},
            after={"id": proposal.pk, "status": proposal.status, "reply": proposal.reply},
            fr=f"Proposition #{proposal.pk} {de(proposal.proposer_name)} refusée : {fr}{reply_fr}",
            en=f"Proposal #{proposal.pk} by {proposal.proposer_name} refused: {en}{reply_en}",
        )
    return proposal


def proposal_withdraw(*, campaign_id: int, proposal_id: int, actor) -> Proposal:
    """The player who made a proposal takes it back while it still waits (a slip of the
    finger, the table settled it aloud): the GM's list and count drop it; nothing else
    changes."""
    with transaction.atomic():
        campaign, proposal = _locked(proposal_id, campaign_id)
        if proposal.proposed_by_id != actor.pk:
            raise NotYours(
                "Seule la personne qui a fait cette proposition peut la retirer.",
                "Only the person who made this proposal may withdraw it.",
            )
        _close(proposal, ProposalStatus.WITHDRAWN, actor)
        fr, en = summary(proposal.action, proposal.arguments)
        _log(
            campaign,
            actor,
            proposal,
            action="proposal_withdrawn",
            before={"id": proposal.pk, "status": PENDING},
            after={"id": proposal.pk, "status": proposal.status},
            fr=f"Proposition #{proposal.pk} retirée par {proposal.proposer_name} : {fr}",
            en=f"Proposal #{proposal.pk} withdrawn by {proposal.proposer_name}: {en}",
        )
    return proposal


def proposal_approve(*, campaign_id: int, proposal_id: int, actor, **arguments) -> Approved:
    """The GM approves a proposal: the GM's own action's service applies it (`arguments`,
    the action form's `service_arguments()`: as proposed, or as the GM edited it), naming the
    player who proposed it on each entry, then an entry says it was approved. A `RuleError`
    (the character's state changed since: Flux spent meanwhile, a death…) leaves the
    proposal waiting and nothing written."""
    with transaction.atomic():
        campaign, proposal = _locked(proposal_id, campaign_id)
        service = ACTIONS[proposal.action].service
        result = service(
            character_id=proposal.character_id,
            actor=actor,
            proposed_by=proposal.proposer_name,
            **arguments,
        )
        # What the proposal is made of (the amount, the cause…), not how the GM's form rolls it
        # (visibility, dice, who rolls R10): only a change of those is an edit.
        shape = ProposalForm.FIELDS[ProposalAction(proposal.action)]
        applied = {k: v for k, v in arguments.items() if k in shape}
        edited = applied != proposal.arguments
        proposal.applied_arguments = applied if edited else None
        _close(proposal, ProposalStatus.APPROVED, actor, "applied_arguments")
        fr, en = summary(proposal.action, applied)
        done_fr, done_en = "approuvée", "approved"
        if edited:
            was_fr, was_en = summary(proposal.action, proposal.arguments)
            fr, en = f"{fr} (au lieu de {was_fr})", f"{en} (instead of {was_en})"
            done_fr, done_en = "modifiée puis approuvée", "edited, then approved"
        who_fr, who = de(proposal.proposer_name), proposal.proposer_name
        _log(
            campaign,
            actor,
            proposal,
            action="proposal_approved",
            before={"id": proposal.pk, "status": PENDING},
            after={
                "id": proposal.pk,
                "status": proposal.status,
                "arguments": applied,
                "entries": [e.pk for e in result.entries],
            },
            fr=f"Proposition #{proposal.pk} {who_fr} {done_fr} : {fr}",
            en=f"Proposal #{proposal.pk} by {who} {done_en}: {en}",
        )
    return Approved(proposal, result)
