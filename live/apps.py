from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LiveConfig(AppConfig):
    name = "live"
    verbose_name = _("Live updates")

    def ready(self):
        from django.contrib.auth.signals import user_logged_out

        from live import checks  # noqa: F401 (registers the checks)

        user_logged_out.connect(_end_streams_at_logout, dispatch_uid="live-end-at-logout")


def _end_streams_at_logout(sender, request, user, **kwargs):
    """The session's streams in this process end with the logout itself, not at the guard's
    next round: nothing more reaches a page whose viewer has logged out."""
    from live.stream import end_session_streams

    session = getattr(request, "session", None)
    end_session_streams(getattr(session, "session_key", None))
