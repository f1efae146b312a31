from django.urls import path

from characters import views

urlpatterns = [
    path("c/<int:campaign_id>/characters/new/", views.character_create, name="character_create"),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/",
        views.character_sheet,
        name="character",
    ),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/edit/",
        views.character_edit,
        name="character_edit",
    ),
]
