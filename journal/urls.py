from django.urls import path

from journal import story_views, views

urlpatterns = [
    path("c/<int:campaign_id>/history/", views.history, name="history"),
    path(
        "c/<int:campaign_id>/history/export.<str:fmt>",
        views.history_export,
        name="history_export",
    ),
    path("c/<int:campaign_id>/history/seal.json", views.history_seal, name="history_seal"),
    path(
        "c/<int:campaign_id>/history/<int:entry_id>/reveal/",
        views.entry_reveal,
        name="entry_reveal",
    ),
    path(
        "c/<int:campaign_id>/history/sessions/new/",
        views.session_start,
        name="session_start",
    ),
    path(
        "c/<int:campaign_id>/history/sessions/<int:session_id>/recap.md",
        views.session_recap,
        name="session_recap",
    ),
    path(
        "c/<int:campaign_id>/history/sessions/<int:session_id>/recap/",
        views.session_recap_page,
        name="session_recap_page",
    ),
    path("c/<int:campaign_id>/statistics/", story_views.statistics, name="statistics"),
    path("c/<int:campaign_id>/party-chart/", story_views.party_chart_page, name="party_chart"),
    path(
        "c/<int:campaign_id>/characters/<int:character_id>/chart/",
        story_views.character_chart_page,
        name="character_chart",
    ),
]
