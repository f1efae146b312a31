"""Characters and campaigns in the Django admin: shown whole, written only through the services.

Here rather than in characters/, because saving goes through `play.services` (the layers
import downwards only): an admin's change is logged and follows the rules like the GM's.
"""

from django import forms
from django.contrib import admin

from campaign.forms import CampaignSettingsForm
from campaign.models import Campaign, Membership
from characters.models import Character, Condition, Illness, Sequel
from play import services

# Game state changes only through play, which writes the audit log; the admin shows it.
STATE_FIELDS = [
    "pv",
    "flux",
    "vital",
    "coma_due",
    "next_coma_hour",
    "stabilised_at",
    "last_wake_try",
    "wake_tries_from",
    "down_cause",
    "sleep_deprived",
    "version",
]


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ConditionInline(ReadOnlyInline):
    model = Condition
    fields = ["kind", "cause", "started_at"]


class SequelInline(ReadOnlyInline):
    model = Sequel
    fields = ["stat", "cause", "d6", "gained_at"]


class IllnessInline(ReadOnlyInline):
    model = Illness
    fields = ["name", "severity", "days_left", "started_at"]


class CharacterAdminForm(forms.ModelForm):
    def _post_clean(self):
        # R1: a lowered maximum brings the current value down (the service logs it), so the
        # model's "not above the maximum" has nothing to say about PV and Flux, not shown here.
        if self.instance.pk is not None:
            for name in ("pv", "flux"):
                maximum = self.cleaned_data.get(f"{name}_max")
                if maximum is not None:
                    setattr(self.instance, name, min(getattr(self.instance, name), maximum))
        super()._post_clean()


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    form = CharacterAdminForm
    list_display = [
        "name",
        "campaign",
        "kind",
        "owner",
        "vital",
        "pv",
        "pv_max",
        "flux",
        "flux_max",
    ]
    list_filter = ["kind", "vital", "campaign"]
    search_fields = ["name", "campaign__name", "owner__username"]
    autocomplete_fields = ["campaign", "owner"]
    readonly_fields = STATE_FIELDS
    inlines = [ConditionInline, SequelInline, IllnessInline]

    def get_readonly_fields(self, request, obj=None):
        # A new character starts with the PV and Flux it is given; afterwards only play moves
        # them. A character never changes campaign: its log is that campaign's.
        if obj is None:
            return [name for name in STATE_FIELDS if name not in ("pv", "flux")]
        return [*STATE_FIELDS, "campaign"]

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        if change:
            changed = {name: data[name] for name in form.changed_data if name in SHEET_ARGUMENTS}
            services.character_update(character_id=obj.pk, actor=request.user, **changed)
            return
        result = services.character_create(
            campaign_id=data["campaign"].pk,
            actor=request.user,
            pv=data["pv"],
            flux=data["flux"],
            **{name: data[name] for name in SHEET_ARGUMENTS},
        )
        # The admin goes on with this object (its message, its history, the redirect).
        obj.pk = result.character_ids[0]
        obj._state.adding = False


# What `services.character_update` takes, as the admin's form names it.
SHEET_ARGUMENTS = (
    "name",
    "kind",
    "gender",
    "owner",
    "stats",
    "pv_max",
    "flux_max",
    "pa",
    "actions",
    "reflexes",
    "public_notes",
    "gm_notes",
)


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    can_delete = False  # the members page removes a member: their characters' owner is logged
    autocomplete_fields = ["user"]


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "created_at", "default_difficulty", "players_roll"]
    search_fields = ["name"]
    inlines = [MembershipInline]
    # Game state, moved only by play's services, which log it (R18, R32, R33).
    readonly_fields = ["clock", "scene", "hour_rests_used", "pending_hour_rest", "fight"]

    def save_model(self, request, obj, form, change):
        if not change:  # a new campaign: nothing has happened in it yet to log
            super().save_model(request, obj, form, change)
            return
        settings = set(CampaignSettingsForm.Meta.fields)
        changed = {name: form.cleaned_data[name] for name in form.changed_data if name in settings}
        services.campaign_settings_update(campaign_id=obj.pk, actor=request.user, **changed)
