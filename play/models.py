"""Rolls the GM asks of a player (R34): the request, then its answer or its cancellation.

A request is a row of its own, not game state: the character's state changes only when the
roll is made, through the same service as the GM's own roll (play/requests.py). Creating,
answering and cancelling one each writes an entry in the audit log.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


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
