"""The client's address is read from X-Forwarded-For only when the connection comes from a
proxy the deployment names (TRUSTED_PROXIES, none by default; config/proxy.py), and uvicorn
is told to believe nobody's headers itself."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync

from config.proxy import behind_proxies

ROOT = Path(__file__).resolve().parent.parent


def client_seen(wrap, peer, forwarded_for):
    """The client's host an app wrapped by `wrap` is told of, for a connection from `peer`
    that sends `forwarded_for`."""
    seen = {}

    async def app(scope, receive, send):
        seen["client"] = scope["client"]

    scope = {
        "type": "http",
        "client": (peer, 50000),
        "scheme": "http",
        "headers": [(b"x-forwarded-for", forwarded_for.encode())],
    }
    async_to_sync(wrap(app))(scope, None, None)
    return seen["client"][0]


def test_with_no_proxy_named_nobody_is_believed(settings):
    assert settings.TRUSTED_PROXIES == []
    wrap = lambda app: behind_proxies(app, settings.TRUSTED_PROXIES)  # noqa: E731
    # From the loopback, as uvicorn's own default would have believed, and from anywhere.
    assert client_seen(wrap, "127.0.0.1", "192.0.2.9") == "127.0.0.1"
    assert client_seen(wrap, "203.0.113.5", "192.0.2.9") == "203.0.113.5"


def test_the_named_proxy_is_believed_and_only_it():
    wrap = lambda app: behind_proxies(app, ["127.0.0.2", "10.9.0.0/16"])  # noqa: E731
    assert client_seen(wrap, "127.0.0.2", "192.0.2.9") == "192.0.2.9"
    assert client_seen(wrap, "10.9.3.4", "192.0.2.9") == "192.0.2.9"
    assert client_seen(wrap, "127.0.0.1", "192.0.2.9") == "127.0.0.1"
    # What the client put in front of the proxy's own entry is not its address: the nearest
    # untrusted address is.
    assert client_seen(wrap, "127.0.0.2", "6.6.6.6, 192.0.2.9") == "192.0.2.9"


def test_trusting_everyone_is_refused():
    env = {**os.environ, "TRUSTED_PROXIES": "*", "DJANGO_SETTINGS_MODULE": "config.settings"}
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "TRUSTED_PROXIES names the proxies to trust" in result.stderr


@pytest.mark.parametrize("path", ["Makefile", "Dockerfile", "docker-compose.yml"])
def test_uvicorn_believes_no_proxy_header_itself(path):
    text = (ROOT / path).read_text()
    commands = re.findall(r"uvicorn config\.asgi:application[^\n]*(?:\n[^\n]*){0,2}", text)
    assert commands, path
    for command in commands:
        assert "--no-proxy-headers" in command, path
    assert "forwarded-allow-ips" not in text, path
    assert re.search(r"(?<!no-)--proxy-headers", text) is None, path
