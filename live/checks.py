"""The static files a deployment serves (`manage.py check`, and at every server start).

With DEBUG off, every `{% static %}` (each page, the offline sheet's service worker) asks the
static files' manifest for the file's hashed name; without the manifest each page answers
500. The servers refuse to start instead (config/asgi.py, config/wsgi.py), saying what to run.
"""

from django.conf import settings
from django.contrib.staticfiles.storage import ManifestFilesMixin
from django.core import checks
from django.core.files.storage import storages

TAG = "static_manifest"


@checks.register(TAG)
def static_manifest(app_configs=None, **kwargs):
    storage = storages["staticfiles"]
    if settings.DEBUG or not isinstance(storage, ManifestFilesMixin):
        return []
    if storage.read_manifest() is not None:
        return []
    return [
        checks.Error(
            f"DEBUG is off and the static files are not collected for it: no "
            f"{storage.manifest_name} in {settings.STATIC_ROOT}, so every page would answer 500.",
            hint="Run `DEBUG=false python manage.py collectstatic --noinput` (or `make run "
            "DEBUG=false`, which does), then start the server again.",
            id="live.E001",
        )
    ]


def refuse_to_start() -> None:
    """Stop a server that would answer 500 everywhere, with the check's message."""
    errors = [e for e in checks.run_checks(tags=[TAG]) if e.is_serious()]
    if errors:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured("\n".join(f"{e.msg}\nHINT: {e.hint}" for e in errors))
