from django.contrib import admin

from characters.models import Character, Condition, Illness, Sequel

# Game state changes only through the services, which write the audit log; the admin shows it.
STATE_FIELDS = [
    "pv",
    "flux",
    "vital",
    "coma_due",
    "next_coma_hour",
    "stabilised_at",
    "last_wake_try",
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


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
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
        # A new character starts with the PV and Flux it is given; afterwards only play moves them.
        return STATE_FIELDS if obj is not None else ["version"]
