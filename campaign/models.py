import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

# R32: a campaign's game clock starts on day 1 at 08:00 (the engine counts the days and
# writes game time: rules/engine/text.py).
from rules.engine.text import GAME_EPOCH


def default_clock() -> datetime:
    return GAME_EPOCH + timedelta(hours=8)


# R2: the seven statistics, in the chapter's order. The sequel table (R14) only touches the
# first six; Médecine uses ESP. A campaign may add its own after them, never drop these.
DEFAULT_STATS = ("ADR", "PUI", "INS", "PRE", "VAI", "SAV", "ESP")


def default_stats() -> list[str]:
    return list(DEFAULT_STATS)


class Visibility(models.TextChoices):
    EVERYONE = "everyone", _("Everyone")
    GM_ONLY = "gm", _("GM only")


class PartyVisibility(models.TextChoices):
    NOTHING = "nothing", _("Names only")
    STATE = "state", _("Names and vital state")
    BARS = "bars", _("Names, vital state, PV and Flux bars")


class Campaign(models.Model):
    name = models.CharField(_("name"), max_length=120)
    created_at = models.DateTimeField(auto_now_add=True)

    # The ruleset: every "Choice" of docs/rules.md that is a setting, with its default there.
    stats = models.JSONField(_("statistics"), default=default_stats)
    default_difficulty = models.PositiveSmallIntegerField(
        _("default difficulty"),
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(60)],
        help_text=_("R5: difficulty of a test when the GM sets none."),
    )
    natural_extremes = models.BooleanField(
        _("natural 20 always succeeds, natural 1 always fails"),
        default=False,
        help_text=_("R5: off by default; the chapter gives them no special meaning."),
    )
    hour_rests_per_half_day = models.PositiveSmallIntegerField(
        _("hour rests per half-day"),
        default=1,
        validators=[MaxValueValidator(12)],
        help_text=_("R18: how many hour rests the party may take per half-day."),
    )
    players_roll = models.BooleanField(
        _("players roll their own tests"),
        default=True,
        help_text=_("R9: players may roll on their phone or type in their physical dice."),
    )
    players_roll_rules = models.BooleanField(
        _("players roll their characters' rules rolls"),
        default=False,
        help_text=_(
            "R34: off, the server rolls them. On, the clock stops at the first rules roll due "
            "for a player character (R10, R11, R13, R28, R31) and asks its player; it goes on "
            "once answered or rolled by the GM."
        ),
    )
    default_roll_visibility = models.CharField(
        _("default visibility of rolls"),
        max_length=12,
        choices=Visibility.choices,
        default=Visibility.EVERYONE,
    )
    party_visibility = models.CharField(
        _("what players see of the rest of the party"),
        max_length=12,
        choices=PartyVisibility.choices,
        default=PartyVisibility.STATE,
    )
    # The rest of docs/rules.md's Choices, with its defaults (rules.engine.Ruleset).
    coma_delay_minutes = models.PositiveSmallIntegerField(
        _("minutes of borrowed time before the coma"),
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(120)],
        help_text=_("R10: after a passed Survie test at 0 PV; the end of the scene comes first."),
    )
    automatic_wake_tries = models.BooleanField(
        _("the clock makes the hourly waking tries"),
        default=True,
        help_text=_("R13: off, the GM triggers each try by hand."),
    )
    poor_night_is_proper = models.BooleanField(
        _("a full night of poor sleep ends sleep deprivation"),
        default=False,
        help_text=_("R31: by default only a proper night does."),
    )
    damage_ends_stabilisation = models.BooleanField(
        _("damage puts a stabilised character back into the coma"),
        default=True,
        help_text=_("R11, R12: off, a stabilised character hurt again stays stabilised."),
    )
    surprise_ends_after_first_round = models.BooleanField(
        _("Surpris given at a fight's start ends after the first round"),
        default=True,
        help_text=_("R25, R33: off, only the GM removes it."),
    )
    round_seconds = models.PositiveSmallIntegerField(
        _("length of a fight's round (seconds of game time)"),
        default=0,
        validators=[MaxValueValidator(600)],
        help_text=_("R33: 0, rounds do not move the game clock."),
    )
    morning_hour = models.PositiveSmallIntegerField(
        _("hour the morning starts"),
        default=6,
        validators=[MaxValueValidator(23)],
        help_text=_("R30, R32: illness days count down then; half-days start then and 12 h later."),
    )

    # R32: the game clock (in UTC, it is fiction), the scene, R18's hour-rest bookkeeping.
    clock = models.DateTimeField(_("game clock"), default=default_clock)
    scene = models.PositiveIntegerField(_("scene"), default=1)
    hour_rests_used = models.PositiveSmallIntegerField(default=0)
    pending_hour_rest = models.PositiveSmallIntegerField(null=True, blank=True)
    # R33: the running fight, as rules.engine.Fight.to_json() gives it; None between fights.
    fight = models.JSONField(null=True, blank=True)
    # The table screen's link for a device without an account (a TV): only the SHA-256 of its
    # token is kept, so the database never holds a working link; empty when there is none.
    screen_token_hash = models.CharField(max_length=64, blank=True, editable=False)
    screen_token_created_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = _("campaign")
        verbose_name_plural = _("campaigns")

    def __str__(self):
        return self.name

    def clean(self):
        validate_stat_list(self.stats)


def validate_stat_list(stats) -> None:
    if not isinstance(stats, list) or not all(isinstance(s, str) for s in stats):
        raise ValidationError({"stats": _("The statistics must be a list of short codes.")})
    missing = [s for s in DEFAULT_STATS if s not in stats]
    if missing:
        raise ValidationError(
            {
                "stats": _("The rules need these statistics: %(missing)s.")
                % {"missing": ", ".join(missing)}
            }
        )
    if len(set(stats)) != len(stats):
        raise ValidationError({"stats": _("Each statistic may appear only once.")})
    for code in stats:
        if not (1 <= len(code) <= 6 and code.isalpha() and code.isupper()):
            raise ValidationError(
                {
                    "stats": _("“%(code)s” is not a valid code: 1 to 6 capital letters.")
                    % {"code": code}
                }
            )


class Role(models.TextChoices):
    GM = "gm", _("Game master")
    PLAYER = "player", _("Player")


class DashboardView(models.TextChoices):
    """How the GM's dashboard shows the characters: a card each, or a dense row each."""

    CARDS = "cards", _("Cards")
    COMPACT = "compact", _("Compact")


class Membership(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(_("role"), max_length=8, choices=Role.choices, default=Role.PLAYER)
    joined_at = models.DateTimeField(auto_now_add=True)
    # The member's own choice for this campaign's dashboard: a preference, not game state.
    dashboard_view = models.CharField(
        _("dashboard view"),
        max_length=8,
        choices=DashboardView.choices,
        default=DashboardView.CARDS,
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="one_membership_per_user")
        ]
        ordering = ["role", "user__username"]
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")

    def __str__(self):
        return f"{self.user} ({self.get_role_display()}) in {self.campaign}"

    @property
    def is_gm(self) -> bool:
        return self.role == Role.GM


def new_token() -> str:
    return secrets.token_urlsafe(24)


def default_expiry():
    return timezone.now() + timedelta(days=7)


class Invitation(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invitations")
    token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    role = models.CharField(_("role"), max_length=8, choices=Role.choices, default=Role.PLAYER)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(_("expires at"), default=default_expiry)
    max_uses = models.PositiveIntegerField(
        _("maximum uses"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("Empty: any number of people may use the link until it expires."),
    )
    uses = models.PositiveIntegerField(default=0)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")

    def __str__(self):
        return f"{self.campaign} ({self.get_role_display()})"

    def problem(self, now=None) -> str | None:
        """Why this link can't be used now, in words for the person holding it; None if it can."""
        now = now or timezone.now()
        if self.revoked_at is not None:
            return _("This invitation has been revoked by the game master.")
        if self.expires_at <= now:
            return _("This invitation has expired. Ask the game master for a new link.")
        if self.max_uses is not None and self.uses >= self.max_uses:
            return _("This invitation has already been used.")
        return None


class PasswordResetRequest(models.Model):
    """One password-reset request for an address, kept an hour to throttle the mails sent to it
    (campaign.services.password_reset_allow). The address is stored as a keyed digest: asking
    for a reset leaves no address in the database, known or not."""

    address_digest = models.CharField(max_length=64, db_index=True)
    requested_at = models.DateTimeField(db_index=True)

    class Meta:
        verbose_name = _("password reset request")
        verbose_name_plural = _("password reset requests")

    def __str__(self):
        return f"{self.address_digest[:12]}… {self.requested_at:%Y-%m-%d %H:%M}"
