from django.urls import path

from campaign import history, stream, views

urlpatterns = [
    path("", views.home, name="home"),
    path("campaigns/new/", views.campaign_create, name="campaign_create"),
    path("c/<int:campaign_id>/", views.campaign_detail, name="campaign"),
    path("c/<int:campaign_id>/settings/", views.campaign_settings, name="campaign_settings"),
    path("c/<int:campaign_id>/events/", stream.events, name="campaign_events"),
    path("c/<int:campaign_id>/events/poll", stream.poll, name="campaign_events_poll"),
    path("c/<int:campaign_id>/members/", views.members, name="members"),
    path("c/<int:campaign_id>/members/leave/", views.leave, name="leave"),
    path(
        "c/<int:campaign_id>/members/<int:membership_id>/remove/",
        views.member_remove,
        name="member_remove",
    ),
    path("c/<int:campaign_id>/invitations/new/", views.invitation_create, name="invitation_create"),
    path(
        "c/<int:campaign_id>/invitations/<int:invitation_id>/revoke/",
        views.invitation_revoke,
        name="invitation_revoke",
    ),
    path(
        "c/<int:campaign_id>/invitations/<int:invitation_id>/qr.svg",
        views.invitation_qr,
        name="invitation_qr",
    ),
    path("c/<int:campaign_id>/history/", history.history, name="history"),
    path(
        "c/<int:campaign_id>/history/export.<str:fmt>",
        history.history_export,
        name="history_export",
    ),
    path(
        "c/<int:campaign_id>/history/sessions/new/",
        history.session_start,
        name="session_start",
    ),
    path(
        "c/<int:campaign_id>/history/sessions/<int:session_id>/recap.md",
        history.session_recap,
        name="session_recap",
    ),
    path(
        "c/<int:campaign_id>/history/<int:entry_id>/undo/",
        history.entry_undo,
        name="entry_undo",
    ),
    path(
        "c/<int:campaign_id>/history/<int:entry_id>/undo-action/",
        history.action_undo,
        name="action_undo",
    ),
    path("join/<str:token>/", views.join, name="join"),
]
