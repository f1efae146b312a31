from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from campaign.models import Campaign

STAT_MIN, STAT_MAX = -10, 30
RESOURCE_MAX = 999


class Kind(models.TextChoices):
    PC = "pc", _("Player character")
    NPC = "npc", _("Non-player character")


class Gender(models.TextChoices):
    """The grammatical gender the game's sentences give a character: « il est mort »,
    « elle est morte », « iel est mort·e » (the inclusive form, when nobody said). Values
    match rules.engine.words."""

    IL = "il", _("il (masculine)")
    ELLE = "elle", _("elle (feminine)")
    IEL = "iel", _("iel (inclusive)")


class Vital(models.TextChoices):
    # Values match rules.engine.Vital.
    UP = "up", _("Up")
    BORROWED_TIME = "borrowed_time", _("On borrowed time")
    COMA = "coma", _("In a coma")
    STABILISED = "stabilised", _("Stabilised, unconscious")
    DEAD = "dead", _("Dead")


class ConditionKind(models.TextChoices):
    # Values match rules.engine.ConditionKind (R20–R25).
    EBRANLE = "ebranle", _("Shaken")
    EXTENUE = "extenue", _("Exhausted")
    GENE = "gene", _("Hindered")
    IMMOBILISE = "immobilise", _("Immobilised")
    PARALYSE = "paralyse", _("Paralysed")
    SURPRIS = "surpris", _("Surprised")


class Severity(models.IntegerChoices):
    # Values match rules.engine.Severity (R28): the malus to all tests.
    MILD = 1, _("Slightly ill")
    ILL = 2, _("Ill")
    SEVERE = 3, _("Seriously ill")
    CRITICAL = 4, _("Critically ill")


class Character(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="characters")
    name = models.CharField(_("name"), max_length=80)
    kind = models.CharField(_("kind"), max_length=4, choices=Kind.choices, default=Kind.PC)
    gender = models.CharField(
        _("grammatical gender"),
        max_length=4,
        choices=Gender.choices,
        default=Gender.IEL,
        help_text=_("How the game’s sentences agree with this character: mort, morte, mort·e."),
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="characters",
    )
    # Base values per stat code of the campaign's list (R2); effective values are derived.
    stats = models.JSONField(_("statistics"), default=dict)
    # R1: PV may go below 0, Flux never; neither current value above its maximum.
    pv = models.IntegerField(_("PV"), validators=[MaxValueValidator(RESOURCE_MAX)])
    pv_max = models.PositiveSmallIntegerField(
        _("max PV"), validators=[MinValueValidator(1), MaxValueValidator(RESOURCE_MAX)]
    )
    flux = models.PositiveSmallIntegerField(_("Flux"), validators=[MaxValueValidator(RESOURCE_MAX)])
    flux_max = models.PositiveSmallIntegerField(
        _("max Flux"), validators=[MaxValueValidator(RESOURCE_MAX)]
    )
    pa = models.PositiveSmallIntegerField(
        _("PA (armour)"), default=0, validators=[MaxValueValidator(99)]
    )
    actions = models.PositiveSmallIntegerField(
        _("actions per turn"), default=2, validators=[MaxValueValidator(10)]
    )
    reflexes = models.PositiveSmallIntegerField(
        _("reflexes per turn"), default=1, validators=[MaxValueValidator(10)]
    )
    # R10–R16: where the character stands, and the timers the clock runs (game times).
    vital = models.CharField(
        _("vital state"), max_length=16, choices=Vital.choices, default=Vital.UP
    )
    coma_due = models.DateTimeField(null=True, blank=True)
    next_coma_hour = models.DateTimeField(null=True, blank=True)
    stabilised_at = models.DateTimeField(null=True, blank=True)
    last_wake_try = models.DateTimeField(null=True, blank=True)
    # R13/R32: automatic waking tries count from here at the earliest (the clock moved it while
    # the tries were off, so switching them back on never replays the hours that passed).
    wake_tries_from = models.DateTimeField(null=True, blank=True)
    down_cause = models.CharField(max_length=200, blank=True)
    sleep_deprived = models.BooleanField(default=False)  # R31
    # An NPC out of the story (dead, fled) leaves the dashboard and the table screen but keeps
    # its log; the GM puts it back in play from the list of characters out of play.
    in_play = models.BooleanField(_("in play"), default=True)
    # Bumped on every write: cards carry it, so a cached or late fragment is never taken for
    # a newer one (play/cards.py, live updates).
    version = models.PositiveIntegerField(default=0, editable=False)
    public_notes = models.TextField(_("public notes"), blank=True, max_length=5000)
    gm_notes = models.TextField(_("GM-only notes"), blank=True, max_length=5000)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["kind", "name", "pk"]
        verbose_name = _("character")
        verbose_name_plural = _("characters")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(pv__lte=models.F("pv_max")), name="pv_not_above_max"
            ),
            models.CheckConstraint(
                condition=models.Q(flux__lte=models.F("flux_max")), name="flux_not_above_max"
            ),
        ]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        self.version += 1
        update_fields = kwargs.get("update_fields")
        if update_fields is not None:
            kwargs["update_fields"] = {*update_fields, "version"}
        super().save(*args, **kwargs)

    def clean(self):
        errors = {}
        if self.pv is not None and self.pv_max is not None and self.pv > self.pv_max:
            errors["pv"] = _("Current PV cannot be above max PV (R1).")
        if self.flux is not None and self.flux_max is not None and self.flux > self.flux_max:
            errors["flux"] = _("Current Flux cannot be above max Flux (R1).")
        if self.owner_id and self.kind == Kind.NPC:
            errors["owner"] = _("Only a player character can be given to a player.")
        if (
            self.owner_id
            and self.campaign_id
            and not self.campaign.memberships.filter(user_id=self.owner_id).exists()
        ):
            errors["owner"] = _("The player must be a member of the campaign.")
        # The admin's JSON field accepts anything: refuse a non-mapping instead of crashing.
        stats = self.stats if isinstance(self.stats, dict) else {}
        if stats is not self.stats:
            errors["stats"] = _("Statistics must map each code to a number.")
        if self.campaign_id:
            unknown = set(stats) - set(self.campaign.stats)
            if unknown:
                errors["stats"] = _("Statistics not in this campaign's ruleset: %(codes)s.") % {
                    "codes": ", ".join(sorted(unknown))
                }
        for code, value in stats.items():
            if not isinstance(value, int) or not STAT_MIN <= value <= STAT_MAX:
                errors["stats"] = _("%(code)s must be a whole number from %(lo)s to %(hi)s.") % {
                    "code": code,
                    "lo": STAT_MIN,
                    "hi": STAT_MAX,
                }
        if errors:
            raise ValidationError(errors)

    @staticmethod
    def percent(value: int, maximum: int) -> int:
        if maximum <= 0:
            return 0
        return max(0, min(100, round(100 * value / maximum)))

    @property
    def pv_percent(self) -> int:
        return self.percent(self.pv, self.pv_max)

    @property
    def flux_percent(self) -> int:
        return self.percent(self.flux, self.flux_max)


class Condition(models.Model):
    """R20–R26: one condition on a character, with the cause that decides how it ends."""

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="conditions")
    kind = models.CharField(_("condition"), max_length=12, choices=ConditionKind.choices)
    cause = models.CharField(_("cause"), max_length=40, default="gm")
    started_at = models.DateTimeField(_("since (game time)"), null=True, blank=True)

    class Meta:
        ordering = ["pk"]
        verbose_name = _("condition")
        verbose_name_plural = _("conditions")

    def __str__(self):
        return f"{self.get_kind_display()} ({self.cause})"


class Sequel(models.Model):
    """R14: a permanent trauma; its stat is one point lower and Survie tests take −1 (R7)."""

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="sequels")
    stat = models.CharField(_("statistic lost"), max_length=6)
    cause = models.CharField(_("cause"), max_length=200, blank=True)
    d6 = models.PositiveSmallIntegerField(default=0)
    gained_at = models.DateTimeField(_("gained at (game time)"), null=True, blank=True)

    class Meta:
        ordering = ["pk"]
        verbose_name = _("sequel")
        verbose_name_plural = _("sequels")

    def __str__(self):
        return f"−1 {self.stat}: {self.cause}"


class Illness(models.Model):
    """R28–R30: at most one illness per character."""

    character = models.OneToOneField(Character, on_delete=models.CASCADE, related_name="illness")
    name = models.CharField(_("illness"), max_length=120, blank=True)
    severity = models.PositiveSmallIntegerField(_("severity"), choices=Severity.choices)
    days_left = models.PositiveSmallIntegerField(_("days left"))
    started_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("illness")
        verbose_name_plural = _("illnesses")

    def __str__(self):
        return f"{self.get_severity_display()} ({self.days_left})"


class NpcTemplate(models.Model):
    """An NPC's stat block saved once for a campaign (« Enregistrer comme modèle »), spawned
    in numbers: each copy a new NPC, numbered, at full PV and Flux (play/services/table.py
    npc_template_spawn). Saving a character's block again under the same name replaces it."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="npc_templates")
    name = models.CharField(_("name"), max_length=80)
    stats = models.JSONField(_("statistics"), default=dict)
    pv_max = models.PositiveSmallIntegerField(
        _("max PV"), validators=[MinValueValidator(1), MaxValueValidator(RESOURCE_MAX)]
    )
    flux_max = models.PositiveSmallIntegerField(
        _("max Flux"), validators=[MaxValueValidator(RESOURCE_MAX)]
    )
    pa = models.PositiveSmallIntegerField(
        _("PA (armour)"), default=0, validators=[MaxValueValidator(99)]
    )
    actions = models.PositiveSmallIntegerField(
        _("actions per turn"), default=2, validators=[MaxValueValidator(10)]
    )
    reflexes = models.PositiveSmallIntegerField(
        _("reflexes per turn"), default=1, validators=[MaxValueValidator(10)]
    )
    public_notes = models.TextField(_("public notes"), blank=True, max_length=5000)
    gm_notes = models.TextField(_("GM-only notes"), blank=True, max_length=5000)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("NPC template")
        verbose_name_plural = _("NPC templates")
        ordering = ("name", "pk")
        constraints = [
            models.UniqueConstraint(fields=("campaign", "name"), name="one_template_per_name")
        ]

    def __str__(self):
        return self.name
