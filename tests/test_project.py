"""Project-wide behaviour: languages, production settings, CSP (config/).

The health check's answer, to anyone, is tests/test_permissions.py's.
"""

import json
import os
import re
import secrets
import string
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation

BASE_DIR = Path(__file__).resolve().parent.parent


def _gettext(message, language):
    with translation.override(language):
        return translation.gettext(message)


def test_it_speaks_french_by_default(anon_client, db):
    response = anon_client.get(reverse("home"))
    content = response.content.decode()
    assert '<html lang="fr">' in content
    log_in = _gettext("Log in", "fr")
    assert log_in != "Log in"
    assert log_in in content
    assert ">Log in<" not in content


@pytest.mark.parametrize("who", ["anon_client", "player_client"])
def test_it_switches_to_english_and_back(request, campaign, who):
    client = request.getfixturevalue(who)
    response = client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert response.status_code == 302
    assert response["Location"] == "/"
    content = client.get(reverse("home")).content.decode()
    assert '<html lang="en">' in content
    english = "Log in" if who == "anon_client" else "Your campaigns"
    assert english in content
    assert _gettext(english, "fr") not in content
    assert 'value="fr" class="link" lang="fr">Français</button>' in content
    assert 'value="en"' not in content

    client.post(reverse("set_language"), {"language": "fr", "next": "/"})
    content = client.get(reverse("home")).content.decode()
    assert '<html lang="fr">' in content
    assert _gettext(english, "fr") in content
    assert 'value="en" class="link" lang="en">English</button>' in content
    assert 'value="fr"' not in content


def test_it_ignores_an_unknown_language_and_a_foreign_next(anon_client, db):
    response = anon_client.post(
        reverse("set_language"), {"language": "xx", "next": "https://evil.example/"}
    )
    assert response.status_code == 302
    assert "evil.example" not in response["Location"]
    assert '<html lang="fr">' in anon_client.get(reverse("home")).content.decode()


def test_it_sends_a_csp_with_a_nonce_and_no_unsafe_inline_scripts(anon_client, db):
    response = anon_client.get(reverse("home"))
    policy = response["Content-Security-Policy"]
    directives = {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}
    script_src = directives["script-src"]
    assert "'unsafe-inline'" not in script_src
    assert "'unsafe-eval'" not in script_src
    nonces = [s for s in script_src if s.startswith("'nonce-")]
    assert len(nonces) == 1
    nonce = nonces[0][len("'nonce-") : -1]
    assert directives["object-src"] == ["'none'"]
    assert directives["frame-ancestors"] == ["'none'"]

    content = response.content.decode()
    scripts = re.findall(r"<script\b[^>]*>", content)
    htmx = [tag for tag in scripts if "htmx" in tag]
    assert htmx, scripts
    for tag in scripts:
        assert f'nonce="{nonce}"' in tag, tag


def test_it_uses_a_new_nonce_per_response(anon_client, db):
    def nonce():
        policy = anon_client.get(reverse("home"))["Content-Security-Policy"]
        return re.search(r"'nonce-([^']+)'", policy).group(1)

    assert nonce() != nonce()


def _production_env(**extra):
    alphabet = string.ascii_letters + string.digits + "!@#%^&*(-_=+)"
    # Not this test run's own DJANGO_ALLOW_ASYNC_UNSAFE (set for Playwright): a deploy check
    # rightly refuses it.
    inherited = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {
        **inherited,
        "DEBUG": "false",
        "SECRET_KEY": "".join(secrets.choice(alphabet) for _ in range(60)),
        "ALLOWED_HOSTS": "example.com",
        # A deployment sends real mail (password resets); Django 6.1's deploy check
        # refuses the console backend.
        "EMAIL_HOST": "smtp.example.com",
    }
    env.update(extra)
    return env


def _manage(*args, env):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_it_passes_the_deployment_checks_with_production_settings():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", env=_production_env())
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "WARNING" not in output
    assert "no issues" in output


def test_it_refuses_to_start_in_production_without_a_secret_key():
    env = _production_env()
    del env["SECRET_KEY"]
    result = _manage("check", env=env)
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_it_sets_secure_cookies_and_hsts_in_production():
    script = (
        "from django.conf import settings as s;"
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT,"
        " s.SECURE_HSTS_SECONDS >= 31536000, s.DEBUG)"
    )
    result = _manage("shell", "--no-imports", "-c", script, env=_production_env())
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True", "True", "True", "False"]


@pytest.mark.parametrize("debug", [True, False])
def test_pages_load_htmx_without_the_debug_helper_that_swallows_4xx_answers(
    anon_client, db, settings, debug
):
    """django-htmx's debug script replaced the whole page by any 400 (a refused action, whose
    form htmx is configured to swap into its panel), leaving a bare, unstyled fragment."""
    settings.DEBUG = debug
    content = anon_client.get(reverse("home")).content.decode()
    assert "django_htmx/htmx-2.min.js" in content
    assert "django-htmx.js" not in content


def _database_settings(**extra) -> dict:
    script = (
        "import json; from django.conf import settings as s; d = s.DATABASES['default'];"
        "print(json.dumps({'pool': d.get('OPTIONS', {}).get('pool'),"
        " 'age': d['CONN_MAX_AGE']}))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DATABASE_")}
    result = _manage("shell", "--no-imports", "-c", script, env={**env, **extra})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_postgresql_gets_a_connection_pool_by_default():
    url = "postgres://someone@db.example:5432/chroniqueur"
    assert _database_settings(DATABASE_URL=url) == {
        "pool": {"min_size": 2, "max_size": 10, "timeout": 10},
        "age": 0,
    }
    sized = _database_settings(
        DATABASE_URL=url,
        DATABASE_POOL_MIN_SIZE="1",
        DATABASE_POOL_MAX_SIZE="30",
        DATABASE_POOL_TIMEOUT="5",
        CONN_MAX_AGE="60",  # ignored with the pool
    )
    assert sized == {"pool": {"min_size": 1, "max_size": 30, "timeout": 5}, "age": 0}
    # Turned off, persistent connections come back; SQLite has no pool.
    off = _database_settings(DATABASE_URL=url, DATABASE_POOL="false", CONN_MAX_AGE="60")
    assert off == {"pool": None, "age": 60}
    assert _database_settings()["pool"] is None


# A clone explains itself: the rules and the design are in docs/, and a comment says its reason
# rather than the number of a ticket a reader of the code cannot open. Written so that this file
# does not match what it looks for (nor the same search made with grep).
STEERING = "shared"  # the steering folder beside the repository, absent from a clone
POINTS_OUTSIDE = re.compile(
    rf"\.\./{STEERING}/"
    r"|\b[Ii]ssue\s+#?\d"  # the word, then a number
    r"|#\d+ \([Ii]ssue"  # a number, then the word in parentheses
)
SOURCE_SUFFIXES = {".py", ".html", ".js", ".css", ".md", ".yml", ".toml", ".txt"}
SOURCE_NAMES = {"Makefile", "Dockerfile", "run"}
NOT_SOURCE = {".git", ".venv", "staticfiles", "test-artifacts", "node_modules", "__pycache__"}


def _source_files():
    for folder, dirs, files in os.walk(BASE_DIR):
        dirs[:] = [d for d in dirs if d not in NOT_SOURCE and not d.endswith("_cache")]
        for name in files:
            path = Path(folder, name)
            if path.suffix in SOURCE_SUFFIXES or name in SOURCE_NAMES:
                yield path


def test_no_comment_cites_an_issue_number_or_a_folder_outside_the_repository():
    files = list(_source_files())
    assert BASE_DIR / "docs" / "rules.md" in files and BASE_DIR / "Makefile" in files
    found = [
        f"{path.relative_to(BASE_DIR)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if POINTS_OUTSIDE.search(line)
    ]
    assert found == [], "say the reason, or point into docs/:\n" + "\n".join(found)


def test_the_pattern_catches_what_it_is_for():
    word, n = "issue", 13
    cited = (f"({word} {n})", f"{word.title()} {n} in a browser", f"{word} #{n}", f"#{n} ({word}")
    for text in cited:
        assert POINTS_OUTSIDE.search(text), text
    assert POINTS_OUTSIDE.search(f"see ../{STEERING}/RULES.md")
    for fine in (f"t{word} {n}", f"#{n} in the chain", "docs/rules.md", f"{STEERING} fixtures"):
        assert not POINTS_OUTSIDE.search(fine), fine


def test_the_favicon_is_the_apps_icon_never_a_404(client):
    from django.templatetags.static import static

    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == static("icons/icon-192.png")
    assert client.get(response["Location"]).status_code == 200
    login = client.get("/accounts/login/").content.decode()
    assert f'<link rel="icon" href="{static("icons/icon.svg")}" type="image/svg+xml">' in login


# Templates read like the code: a tag's attributes go on lines of their own rather than on one
# line past the screen, long sentences in `{% blocktranslate trimmed %}` (the same msgid) and
# long notes in `{% comment %}`. Every template holds to it.
LONGEST_TEMPLATE_LINE = 160
TEMPLATES = sorted((BASE_DIR / "templates").rglob("*.html"))


def test_every_template_is_checked():
    names = {path.name for path in TEMPLATES}
    assert {"_card.html", "_row.html", "_quick_actions.html", "history.html"} <= names


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda path: str(path.relative_to(BASE_DIR)))
def test_no_template_has_a_line_over_160_characters(path):
    long = [
        f"{path.name}:{number}: {len(line)} characters"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if len(line) > LONGEST_TEMPLATE_LINE
    ]
    assert long == []
