"""The audit log and play sessions: every roll and change, written in the transaction that
made it and never altered (journal/audit.py hashes and appends; journal/visibility.py decides
who sees an entry)."""

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from campaign.models import Campaign, Visibility
from journal.texts import in_language, rolled_by


class AppendOnlyQuerySet(models.QuerySet):
    """History is never rewritten: bulk updates and deletes are refused here too.

    `_viewer` is the member the entries are read for (journal.visibility.visible_entries):
    it follows the queryset through filters and slices, so that every entry read from it is
    shown as that member may see it (a sealed roll's result blanked for a player).
    """

    _viewer = None

    def _clone(self):
        clone = super()._clone()
        clone._viewer = self._viewer
        return clone

    def update(self, **kwargs):
        raise AuditLogImmutable("audit entries cannot be updated")

    def delete(self):
        raise AuditLogImmutable("audit entries cannot be deleted")


class AuditLogImmutable(Exception):
    pass


class EntryKind(models.TextChoices):
    ROLL = "roll", pgettext_lazy("log entry kind", "Roll")
    CHANGE = "change", pgettext_lazy("log entry kind", "Change")


class AuditEntry(models.Model):
    """One roll or one change, written in the transaction that made it; never altered.

    `hash` is an HMAC, with a key the database does not hold, over every other column and
    `prev_hash`, the hash of the campaign's previous entry; `seq` numbers a campaign's entries
    1, 2, 3… and `key_id` names the key. `manage.py verify_log` proves nothing was altered,
    removed or inserted (journal/audit.py).
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="log")
    character = models.ForeignKey(
        "characters.Character",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="log",
    )
    character_name = models.CharField(max_length=80, blank=True)
    # The clock's entries have no actor. A deleted account must not rewrite history.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        null=True,
        blank=True,
        related_name="+",
    )
    actor_name = models.CharField(max_length=150, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    game_time = models.DateTimeField(null=True, blank=True)
    action = models.CharField(max_length=40)
    batch = models.UUIDField(db_index=True)
    kind = models.CharField(max_length=8, choices=EntryKind.choices)
    rule_id = models.CharField(max_length=8, blank=True)
    field = models.CharField(max_length=40, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    roll = models.JSONField(null=True, blank=True)
    typed_in = models.BooleanField(default=False)
    text_fr = models.TextField(blank=True)
    text_en = models.TextField(blank=True)
    visibility = models.CharField(max_length=12, choices=Visibility.choices)
    reverts = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="reverted_by"
    )
    # The rule steps the action showed, "R3 · …" in both languages (journal/audit.py Draft).
    steps = models.JSONField(default=list, blank=True)
    seq = models.PositiveBigIntegerField()
    key_id = models.CharField(max_length=16)
    prev_hash = models.CharField(max_length=64, blank=True)
    hash = models.CharField(max_length=64, unique=True)

    objects = AppendOnlyQuerySet.as_manager()

    # What a viewer is shown of a sealed roll, set by journal/sealing.py's `present`; None on
    # every other entry, so that a page asking for it finds it (a missing attribute costs a
    # template a `dir()` of the instance: 20 of them for the dashboard's log).
    seal_view = None

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["campaign", "-id"], name="log_by_campaign"),
            # Keyset pages of the history filtered by character or kind (journal/views.py).
            models.Index(fields=["character", "-id"], name="log_by_character"),
            models.Index(fields=["campaign", "kind", "-id"], name="log_by_kind"),
            # The reveals of sealed rolls (journal/sealing.py): few, read whole per campaign.
            models.Index(fields=["campaign", "id"], condition=Q(field="seal"), name="log_reveals"),
        ]
        constraints = [
            # Two writers can never give out the same place in a campaign's chain.
            models.UniqueConstraint(fields=["campaign", "seq"], name="log_seq_per_campaign"),
        ]
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit log")

    def __str__(self):
        return f"#{self.pk} {self.rule_id} {self.action}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AuditLogImmutable("audit entries cannot be updated")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AuditLogImmutable("audit entries cannot be deleted")

    def text(self, language: str) -> str:
        return self.text_en if language == "en" else self.text_fr

    def steps_text(self, language: str) -> list[str]:
        """The action's rule steps kept on this entry, each "R3 · …", in `language`."""
        return [
            f"{step['rule_id']} · {step['en'] if language == 'en' else step['fr']}"
            for step in self.steps or ()
        ]

    @property
    def shown_steps(self) -> list[str]:
        """The steps in the language of the page being rendered."""
        return [
            f"{step['rule_id']} · {in_language(step['fr'], step['en'])}"
            for step in self.steps or ()
        ]

    @property
    def shown_text(self) -> str:
        """The sentence in the language of the page being rendered (templates do not choose)."""
        return in_language(self.text_fr, self.text_en)

    def rolled_by(self) -> str:
        """Who rolled, in the viewer's language (a roll's "Rolled" line in the history)."""
        return in_language(*rolled_by(self.typed_in, self.actor_name))


# A play session also begins by itself after this much silence in the log.
SESSION_GAP = timedelta(hours=4)


class PlaySession(models.Model):
    """One evening at the table: opened by the GM, or by the first entry after a long pause
    (`started_by` empty). The history groups entries by the session they fall in."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="sessions")
    started_at = models.DateTimeField(default=timezone.now)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["-started_at", "-pk"]
        indexes = [models.Index(fields=["campaign", "-started_at"], name="session_by_campaign")]
        verbose_name = _("play session")
        verbose_name_plural = _("play sessions")

    def __str__(self):
        return f"{self.campaign} · {self.started_at:%Y-%m-%d %H:%M}"


class DiceTally(models.Model):
    """The dice's statistics kept in the transaction of each action (journal/tally.py): one
    row per campaign, roller, character, dice source, visibility and reveal, so that the
    statistics page reads a few rows instead of every roll of a long campaign.

    Derived from the log only, never a source: `manage.py dice_tally` recomputes it from the
    log and proves it equal (or rebuilds it). What stands is counted: an action undone as a
    whole takes its rolls out, and an undo undone puts them back."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=80)
    actor_id = models.IntegerField(null=True, blank=True)
    actor_name = models.CharField(max_length=150, blank=True)
    character = models.ForeignKey(
        "characters.Character",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
    )
    character_name = models.CharField(max_length=80, blank=True)
    typed_in = models.BooleanField(default=False)
    visibility = models.CharField(max_length=12, choices=Visibility.choices)
    revealed = models.BooleanField(default=False)
    tests = models.IntegerField(default=0)
    successes = models.IntegerField(default=0)
    passing = models.IntegerField(default=0)  # the tests' passing faces, added up (odds × 20)
    natural_1 = models.IntegerField(default=0)
    natural_20 = models.IntegerField(default=0)
    survie_passed = models.IntegerField(default=0)
    survie_failed = models.IntegerField(default=0)
    faces = models.JSONField(default=list)  # how many times each D20 face 1…20 came

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "key"], name="dice_tally_per_key"),
        ]
        verbose_name = _("dice tally")
        verbose_name_plural = _("dice tallies")

    def __str__(self):
        return f"{self.campaign_id} {self.key}"


class ChartPoint(models.Model):
    """A character's chart rows kept in the transaction of each action (journal/points.py):
    one row per change of PV, Flux, vital state, conditions or sequels that counts
    (journal/standing.py), so that a whole-campaign chart reads a narrow table, aggregated by
    the drawing's columns, instead of every change of a long campaign in the log.

    Derived from the log only, never a source: `manage.py chart_points` recomputes it from the
    log and proves it equal (or rebuilds it). An undone change's row goes, and comes back when
    the undo is undone."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    character = models.ForeignKey(
        "characters.Character", on_delete=models.CASCADE, related_name="+"
    )
    entry_id = models.BigIntegerField(unique=True)  # the audit entry it copies
    game_time = models.DateTimeField(null=True, blank=True)
    field = models.CharField(max_length=40)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    rule_id = models.CharField(max_length=8, blank=True)
    batch = models.UUIDField()
    visibility = models.CharField(max_length=12, choices=Visibility.choices)
    # PV and Flux: the value after the change (what the line draws), else None.
    value = models.IntegerField(null=True, blank=True)
    # A PV change's own moment, for the database to count: "zero" (fell to 0 or below),
    # "rest" (a rest's healing), else "".
    moment = models.CharField(max_length=8, blank=True)

    class Meta:
        indexes = [
            models.Index(
                fields=["character", "field", "game_time", "entry_id"], name="chart_points_line"
            ),
            # A long campaign's chart reads its first rows in game-time order (its table).
            models.Index(fields=["character", "game_time", "entry_id"], name="chart_points_time"),
            # The PV changes that mark a moment (a fall to 0, a rest): few, counted apart.
            models.Index(
                fields=["character", "game_time", "entry_id"],
                condition=~Q(moment=""),
                name="chart_points_moments",
            ),
            # A coarse chart reads its falls to 0 from the hours, its rests from the rows.
            models.Index(
                fields=["character", "game_time", "entry_id"],
                condition=Q(moment="rest"),
                name="chart_points_rests",
            ),
        ]
        verbose_name = _("chart point")
        verbose_name_plural = _("chart points")

    def __str__(self):
        return f"{self.character_id} #{self.entry_id} {self.field}"


class ChartHour(models.Model):
    """A character's PV or Flux changes of one hour of game time, summed up for the
    whole-campaign chart (journal/points.py): one row per character, field, visibility and
    hour that holds kept chart rows (ChartPoint) with a number. A long campaign's chart reads
    these (a year of play is some 9,000 hours per line) instead of every change.

    Kept in the action's transaction with the chart rows, from them: the hours an action or an
    undo touches are summed again. Derived from the log only: `manage.py chart_points` proves
    them equal to the log's changes summed by hour (or rebuilds them)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    character = models.ForeignKey(
        "characters.Character", on_delete=models.CASCADE, related_name="+"
    )
    field = models.CharField(max_length=40)
    visibility = models.CharField(max_length=12, choices=Visibility.choices)
    hour = models.BigIntegerField()  # whole hours since 1970-01-01 00:00 UTC (game time)
    count = models.IntegerField()
    low = models.IntegerField()
    high = models.IntegerField()
    # The hour's first and last change, in game-time order (ties by log order).
    first_value = models.IntegerField()
    first_at = models.DateTimeField()
    first_entry = models.BigIntegerField()
    last_value = models.IntegerField()
    last_at = models.DateTimeField()
    last_entry = models.BigIntegerField()
    # The hour's falls to 0 PV (ChartPoint.moment "zero"): how many, the first's game time
    # and the lowest entry id among them (a coarse chart marks them by the hour).
    zeros = models.IntegerField(default=0)
    zero_at = models.DateTimeField(null=True, blank=True)
    zero_entry = models.BigIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["character", "field", "visibility", "hour"], name="chart_hours_unique"
            )
        ]
        verbose_name = _("chart hour")
        verbose_name_plural = _("chart hours")

    def __str__(self):
        return f"{self.character_id} {self.field} h{self.hour}"
