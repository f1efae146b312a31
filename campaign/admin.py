from django.contrib import admin

from campaign.models import AuditEntry, Campaign, Invitation, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "created_at", "default_difficulty", "players_roll"]
    search_fields = ["name"]
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "campaign", "role", "joined_at"]
    list_filter = ["role"]
    search_fields = ["user__username", "campaign__name"]
    autocomplete_fields = ["user", "campaign"]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["campaign", "role", "expires_at", "uses", "max_uses", "revoked_at"]
    list_filter = ["role"]
    search_fields = ["campaign__name"]
    readonly_fields = ["token", "uses", "created_at"]


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    """The log, to read: nobody adds, changes or deletes an entry here."""

    list_display = ["id", "campaign", "game_time", "character_name", "kind", "rule_id", "text_fr"]
    list_filter = ["kind", "rule_id", "visibility", "campaign"]
    search_fields = ["character_name", "text_fr", "text_en", "actor_name"]
    list_select_related = ["campaign"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
