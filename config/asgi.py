import os

from django.conf import settings
from django.core.asgi import get_asgi_application

from config.proxy import behind_proxies

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = behind_proxies(get_asgi_application(), settings.TRUSTED_PROXIES)

# DEBUG off without the static files' manifest would answer 500 on every page: refuse to start.
from live.checks import refuse_to_start  # noqa: E402 (needs the apps loaded above)

refuse_to_start()
