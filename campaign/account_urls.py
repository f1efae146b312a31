from django.contrib.auth import views as auth_views
from django.urls import include, path

from campaign import views
from campaign.forms import ThrottledPasswordResetForm

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path(
        "password_reset/",
        auth_views.PasswordResetView.as_view(form_class=ThrottledPasswordResetForm),
        name="password_reset",
    ),
    path(
        "reset/<uidb64>/<token>/",
        views.ResetPasswordConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path("", include("django.contrib.auth.urls")),
]
