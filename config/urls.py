from django.contrib import admin
from django.http import HttpResponse, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path


def healthz(request):
    return HttpResponse("ok", content_type="text/plain")


def favicon(request):
    """Browsers ask for /favicon.ico whatever the page names: the app's icon."""
    return HttpResponsePermanentRedirect(static("icons/icon-192.png"))


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/", include("campaign.account_urls")),
    path("", include("campaign.urls")),
    path("", include("journal.urls")),
    path("", include("play.urls")),
    path("", include("live.urls")),
]
