from django.contrib import admin

from campaign.models import Invitation, Membership

# The Campaign admin is play's (play/admin.py): a setting changed there is logged.


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "campaign", "role", "joined_at"]
    list_filter = ["role"]
    search_fields = ["user__username", "campaign__name"]
    autocomplete_fields = ["user", "campaign"]

    def has_delete_permission(self, request, obj=None):
        # Removing a member takes their characters' player away, which is logged: the
        # campaign's members page does it (play.services.membership_end).
        return False


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["campaign", "role", "expires_at", "uses", "max_uses", "revoked_at"]
    list_filter = ["role"]
    search_fields = ["campaign__name"]
    readonly_fields = ["token", "uses", "created_at"]
