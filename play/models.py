"""What the table itself holds besides the characters: players' proposals to the GM, and
the rolls the GM asks of players (R34)."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from campaign.models import Campaign
from characters.models import Character
from journal.texts import in_language
from rules import engine
from rules.engine.text import condition_name


class ProposalAction(models.TextChoices):
    """What a player may propose; each value is the name of the GM's own action
    (play/actions.py ACTIONS), whose form and service apply it once approved."""

    DAMAGE = "damage", _("Damage taken")
    SPEND_FLUX = "spend_flux", _("Flux spent")
    ADD_CONDITION = "add_condition", _("A condition")


class ProposalStatus(models.TextChoices):
    PENDING = "pending", _("Waiting for the GM")
    APPROVED = "approved", _("Approved")
    REFUSED = "refused", _("Refused")
    WITHDRAWN = "withdrawn", _("Withdrawn")  # by the player who made it, before any decision


def summary(action: str, arguments: dict) -> tuple[str, str]:
    """`(fr, en)`: "Dégâts 5 (piège), ignorent les PA", "Flux dépensé : 3", "État : Gêné"."""
    if action == ProposalAction.DAMAGE:
        fr = en = str(arguments.get("amount"))
        fr, en = f"Dégâts : {fr}", f"Damage: {en}"
        if arguments.get("cause"):
            fr, en = f"{fr} ({arguments['cause']})", f"{en} ({arguments['cause']})"
        if arguments.get("ignores_pa"):
            fr, en = f"{fr}, ignorent les PA", f"{en}, ignoring PA"
        return fr, en
    if action == ProposalAction.SPEND_FLUX:
        return f"Flux dépensé : {arguments.get('amount')}", f"Flux spent: {arguments.get('amount')}"
    name_fr, name_en = condition_name(engine.ConditionKind(arguments["kind"]))
    return f"État : {name_fr}", f"Condition: {name_en}"


class Proposal(models.Model):
    """A change a player proposes to their own character (damage taken, Flux spent, a
    condition), with a note. It changes nothing until the GM approves it, which applies it
    through the GM's own action (play/proposals.py); the GM may edit it first, or refuse it
    with a word the player reads. Its life is on the audit log too."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="proposals")
    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="proposals")
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    proposer_name = models.CharField(max_length=150)
    action = models.CharField(max_length=20, choices=ProposalAction.choices)
    # The action's arguments as its service takes them (play/actions.py `arguments()`).
    arguments = models.JSONField(default=dict)
    note = models.CharField(max_length=300, blank=True)
    status = models.CharField(
        max_length=10, choices=ProposalStatus.choices, default=ProposalStatus.PENDING
    )
    created_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    reply = models.CharField(max_length=200, blank=True)  # the GM's word to the player
    # What the GM applied, when it differs from what was proposed (edited, then approved).
    applied_arguments = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [
            models.Index(fields=["character", "status"], name="proposal_by_character"),
            models.Index(fields=["campaign", "status"], name="proposal_by_campaign"),
        ]
        verbose_name = _("proposal")
        verbose_name_plural = _("proposals")

    def __str__(self):
        return f"#{self.pk} {self.action} ({self.status})"

    @property
    def pending(self) -> bool:
        return self.status == ProposalStatus.PENDING

    @property
    def shown_summary(self) -> str:
        """What was proposed, in the page's language."""
        return in_language(*summary(self.action, self.arguments))

    @property
    def shown_applied(self) -> str:
        """What the GM applied instead, when edited before approval."""
        if self.applied_arguments is None:
            return ""
        return in_language(*summary(self.action, self.applied_arguments))


# R34: rolls the GM asks of a player: the request, then its answer or its cancellation. A
# request is not game state: the character changes only when the roll is made, through the
# same service as the GM's own roll (play/requests.py). Making, answering and cancelling one
# each writes an entry in the audit log.


class RequestKind(models.TextChoices):
    CHECK = "check", _("Test")  # R5: the GM's stat, skill, difficulty and modifier
    DEATHS_DOOR = "deaths_door", _("Survie at 0 PV")  # R10
    COMA_HOUR = "coma_hour", _("Hourly death test")  # R11 (the clock stopped for it)
    WAKE_CLOCK = "wake_clock", _("Hourly waking try")  # R13 (the clock stopped for it)
    WAKE = "wake", _("Waking try")  # R13 by hand
    FALL_ILL = "fall_ill", _("Constitution on falling ill")  # R28
    SLEEP = "sleep", _("Volonté after a short night")  # R31


class RequestStatus(models.TextChoices):
    PENDING = "pending", _("Pending")
    ANSWERED = "answered", _("Answered")
    CANCELLED = "cancelled", _("Cancelled")
    # R34: the rules no longer call for the roll (healed, stabilised, dead…); nobody rolls it.
    LAPSED = "lapsed", _("Lapsed")


class RollRequest(models.Model):
    campaign = models.ForeignKey(
        "campaign.Campaign", on_delete=models.CASCADE, related_name="roll_requests"
    )
    character = models.ForeignKey(
        "characters.Character", on_delete=models.CASCADE, related_name="roll_requests"
    )
    kind = models.CharField(max_length=16, choices=RequestKind.choices)
    rule_id = models.CharField(max_length=8)
    # The roll's own arguments, as its service takes them (stat, skill, difficulty, modifier;
    # severity and name for R28; sequel_cause for R13).
    arguments = models.JSONField(default=dict, blank=True)
    visibility = models.CharField(max_length=12, blank=True)
    # R34: the game time the roll fell due at, and where the stopped clock was going.
    due_at = models.DateTimeField()
    clock_target = models.DateTimeField(null=True, blank=True)
    # What the action that moved the clock still does once it gets there (a night's recovery,
    # an hour rest's 1D4, a fight's new round: rules.engine.resume.ENDINGS), or {}.
    clock_then = models.JSONField(default=dict, blank=True)
    # The clock waits for it (a rules roll, R34); a plain test does not hold the clock.
    holds_clock = models.BooleanField(default=False)
    status = models.CharField(
        max_length=12, choices=RequestStatus.choices, default=RequestStatus.PENDING
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    closed_at = models.DateTimeField(null=True, blank=True)
    typed_in = models.BooleanField(default=False)
    # The answer in a line, for the card ("Survie 14 + 2 = 16 ≥ 10 : réussite · en sursis").
    result_fr = models.TextField(blank=True)
    result_en = models.TextField(blank=True)

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["character", "status"])]
        verbose_name = _("roll request")
        verbose_name_plural = _("roll requests")

    def __str__(self):
        return f"{self.get_kind_display()} ({self.character_id}, {self.status})"

    @property
    def pending(self) -> bool:
        return self.status == RequestStatus.PENDING

    @property
    def cancellable(self) -> bool:
        """A roll the GM chose to ask for may be withdrawn; one the rules made due (R10, R11,
        R13 by the clock, R31) stays due, and the GM rolls it instead (R34)."""
        return self.kind in (RequestKind.CHECK, RequestKind.WAKE, RequestKind.FALL_ILL)
