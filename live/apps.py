from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LiveConfig(AppConfig):
    name = "live"
    verbose_name = _("Live updates")

    def ready(self):
        from live import checks  # noqa: F401 (registers the checks)
