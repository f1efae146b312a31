from django.contrib import admin

from journal.models import AuditEntry


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
