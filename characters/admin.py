from django.contrib import admin

from characters.models import Character


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ["name", "campaign", "kind", "owner", "pv", "pv_max", "flux", "flux_max"]
    list_filter = ["kind", "campaign"]
    search_fields = ["name", "campaign__name", "owner__username"]
    autocomplete_fields = ["campaign", "owner"]
