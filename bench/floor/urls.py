"""The app's routes plus `bench-floor/<size>/`: what any logged-in request costs.

The floor loads the session and the user and passes the CSRF check (it is a POST when asked
with one) behind the app's own middleware, then answers `size` bytes and does nothing else.
"""

from django.http import HttpResponse
from django.urls import include, path


def floor_view(request, size):
    assert request.user.is_authenticated
    return HttpResponse(b"x" * size)


urlpatterns = [path("bench-floor/<int:size>/", floor_view), path("", include("config.urls"))]
