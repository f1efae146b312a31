"""Settings, read from environment variables (see README, "Configuration").

Defaults are for a developer's machine: DEBUG on, SQLite beside the code, mail to the console.
Production sets DEBUG=false, SECRET_KEY, ALLOWED_HOSTS and DATABASE_URL.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env(name: str, default: str) -> str:
    """A variable set but empty counts as unset: compose files often pass `VAR=`."""
    return os.environ.get(name, "").strip() or default


def env_int(name: str, default: int) -> int:
    value = env(name, str(default))
    try:
        return int(value)
    except ValueError:
        raise RuntimeError(f"{name} must be a whole number, not {value!r}.") from None


def env_bool(name: str, default: bool) -> bool:
    value = env(name, "")
    if not value:
        return default
    return value.lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in env(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)

_INSECURE_DEV_KEY = "django-insecure-dev-only-key-never-use-in-production-3f9a1c"
SECRET_KEY = env("SECRET_KEY", _INSECURE_DEV_KEY)
if not DEBUG and SECRET_KEY == _INSECURE_DEV_KEY:
    raise RuntimeError("SECRET_KEY must be set when DEBUG is off.")

# The audit log's HMAC key (journal/audit.py): kept out of the database, so that whoever can
# write the table cannot recompute the chain. Unset: derived from SECRET_KEY. Retired keys,
# newest first, still verify the entries they signed (README, "Configuration").
AUDIT_LOG_KEY = env("AUDIT_LOG_KEY", "")
AUDIT_LOG_OLD_KEYS = env_list("AUDIT_LOG_OLD_KEYS", "")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "servestatic.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "axes",
    "rules",
    "campaign",
    "characters",
    "journal",
    "play",
    "live",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "servestatic.middleware.ServeStaticMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",  # turns a refused login into the lockout page
    "config.middleware.SyncMiddlewareChain",  # last: see its docstring
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

DATABASES = {
    "default": dj_database_url.parse(
        env("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("CONN_MAX_AGE", 0),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool(
    "DATABASE_POOL", True
):
    # Under ASGI every request runs its synchronous part on a thread of its own, each with its
    # own connection: without a pool, a burst of requests (every phone reconnecting its live
    # stream after a restart) opens as many connections as requests and exhausts PostgreSQL's.
    # The pool caps this process's connections; a request past the cap waits for one (up to
    # DATABASE_POOL_TIMEOUT seconds). The live stream's LISTEN connection is apart from it.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": env_int("DATABASE_POOL_MIN_SIZE", 2),
        "max_size": env_int("DATABASE_POOL_MAX_SIZE", 10),
        "timeout": env_int("DATABASE_POOL_TIMEOUT", 10),
    }

# Live streams (live/stream.py) one account may hold open in one app process; past that the
# page polls for changes instead.
LIVE_STREAMS_PER_ACCOUNT = env_int("LIVE_STREAMS_PER_ACCOUNT", 8)

# Several app hosts (README, "Several app hosts"). Live updates keep ONE direct LISTEN
# connection per process: it needs a session of its own, which PgBouncer's transaction mode
# does not give, so behind PgBouncer point DATABASE_LISTEN_URL at PostgreSQL itself.
DATABASE_LISTEN_URL = env("DATABASE_LISTEN_URL", "")
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool(
    "DATABASE_BEHIND_PGBOUNCER", False
):
    # A transaction-mode PgBouncer hands each transaction to any server connection: no
    # server-side cursor (it outlives its transaction) and no prepared statement (psycopg
    # prepares a query run 5 times on one connection).
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = None
# The live fan-out between processes (journal/events.py): a class with publish / ready / stop.
# Empty: PostgreSQL's NOTIFY on PostgreSQL, in-process on SQLite.
LIVE_TRANSPORT = env("LIVE_TRANSPORT", "")

# Per-process memory cache: rendered cards, keyed by their character's version.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "OPTIONS": {"MAX_ENTRIES": 5000},
    }
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
# django-axes counts failed logins (the site's and the admin's) per username, from whatever
# address: at LOGIN_FAILURE_LIMIT failures the username is refused, even with the right
# password, until LOGIN_LOCKOUT_MINUTES have passed since its last failure (a 429 page, French
# by default). Counted per address too, a client changing its address (or the X-Forwarded-For
# it sends) would start afresh each time. A password reset lifts it (campaign.views).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["username"]
# axes.W006 asks for the address among the parameters. Alone (an address locked whatever the
# username), it would lock every player behind one address, a household's router or a proxy
# not named in TRUSTED_PROXIES, after ten mistakes among them all; with the username, it is
# the count a changed address starts afresh, which the username alone closes.
SILENCED_SYSTEM_CHECKS = ["axes.W006"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "campaign.views.locked_out"
AXES_VERBOSE = False
# The reverse proxies whose X-Forwarded-For (and -Proto) the app believes: addresses or
# networks, comma-separated; none by default (config/proxy.py). Never everyone: any client
# could then choose the address the logs and the login records show.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", "")
if "*" in TRUSTED_PROXIES:
    raise RuntimeError("TRUSTED_PROXIES names the proxies to trust: list them, not “*”.")
# The largest campaign archive `campaign_import` reads, in MB: it is parsed in memory (about
# five times its size at the peak); a larger file is refused before it is parsed.
ARCHIVE_IMPORT_MAX_MB = env_int("ARCHIVE_IMPORT_MAX_MB", 100)
# Password-reset mails to one address: at most this many an hour; further requests get the
# same answer and no mail, so nobody learns whether the address has an account.
PASSWORD_RESET_MAILS_PER_HOUR = env_int("PASSWORD_RESET_MAILS_PER_HOUR", 3)
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# French by default, English one click away.
LANGUAGE_CODE = "fr"
LANGUAGES = [("fr", _("French")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = env("TIME_ZONE", "Europe/Paris")
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "servestatic.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Mail: the console unless an SMTP host is given (Django 6.1's MAILERS).
EMAIL_HOST = env("EMAIL_HOST", "")
if EMAIL_HOST:
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": EMAIL_HOST,
                "port": env_int("EMAIL_PORT", 587),
                "username": env("EMAIL_HOST_USER", ""),
                "password": env("EMAIL_HOST_PASSWORD", ""),
                "use_tls": env_bool("EMAIL_USE_TLS", True),
            },
        }
    }
else:
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
del EMAIL_HOST  # the deprecated setting must not stay defined beside MAILERS
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", "chroniqueur@localhost")

# Security. Scripts only from our origin or with the per-request nonce: no 'unsafe-inline'.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    # Behind a TLS-terminating proxy the health check comes over plain HTTP.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", "INFO")},
}
