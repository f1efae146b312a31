from django.contrib import admin

from campaign.models import Campaign, Invitation, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "created_at", "default_difficulty", "players_roll"]
    search_fields = ["name"]
    inlines = [MembershipInline]
    # Game state, moved only by play's services, which log it (R18, R32).
    readonly_fields = ["clock", "scene", "hour_rests_used", "pending_hour_rest", "fight"]


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
