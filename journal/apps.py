from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class JournalConfig(AppConfig):
    name = "journal"
    verbose_name = _("Audit log")

    def ready(self):
        from journal import checks  # noqa: F401 (registers the checks)
