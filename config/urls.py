from django.contrib import admin
from django.http import HttpResponse
from django.urls import include, path


def healthz(request):
    return HttpResponse("ok", content_type="text/plain")


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/", include("campaign.account_urls")),
    path("", include("campaign.urls")),
    path("", include("journal.urls")),
    path("", include("play.urls")),
    path("", include("live.urls")),
]
