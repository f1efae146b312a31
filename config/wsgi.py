import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()

# DEBUG off without the static files' manifest would answer 500 on every page: refuse to start.
from live.checks import refuse_to_start  # noqa: E402 (needs the apps loaded above)

refuse_to_start()
