from django.urls import path

from campaign import views

urlpatterns = [
    path("", views.home, name="home"),
    path("campaigns/new/", views.campaign_create, name="campaign_create"),
    path("c/<int:campaign_id>/settings/", views.campaign_settings, name="campaign_settings"),
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
    path("join/<str:token>/", views.join, name="join"),
]
