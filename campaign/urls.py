from django.urls import path

from campaign import views

urlpatterns = [
    path("", views.home, name="home"),
    path("campaigns/new/", views.campaign_create, name="campaign_create"),
    path("c/<int:campaign_id>/members/", views.members, name="members"),
    # Settings, leaving and removal are play's (play/campaign_views.py): they are logged.
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
