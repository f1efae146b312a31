"""docker-compose.yml parses and runs what the README says: PostgreSQL 17 and the app."""

import re
from pathlib import Path

import pytest
import yaml

BASE_DIR = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def compose():
    with open(BASE_DIR / "docker-compose.yml", encoding="utf-8") as f:
        return yaml.safe_load(f)


def _command(service) -> str:
    parts = []
    for key in ("entrypoint", "command"):
        value = service.get(key) or ""
        parts.append(" ".join(value) if isinstance(value, list) else value)
    return " ".join(parts)


def test_it_names_the_db_and_web_services(compose):
    assert {"db", "web"} <= set(compose["services"])


def test_it_runs_postgresql_17(compose):
    assert re.fullmatch(r"postgres:17([.\-].*)?", compose["services"]["db"]["image"])


def test_it_starts_web_after_db(compose):
    depends_on = compose["services"]["web"]["depends_on"]
    assert "db" in depends_on
    if isinstance(depends_on, dict):
        # Waiting for a healthy database, not just a started container.
        assert depends_on["db"].get("condition") == "service_healthy"
        assert "healthcheck" in compose["services"]["db"]


def test_it_checks_the_health_of_web(compose):
    healthcheck = compose["services"]["web"]["healthcheck"]
    test = healthcheck["test"]
    test = " ".join(test) if isinstance(test, list) else test
    assert "/healthz" in test
    assert not healthcheck.get("disable", False)


def test_it_migrates_then_serves_with_uvicorn(compose):
    command = _command(compose["services"]["web"])
    assert "migrate" in command
    assert "uvicorn" in command
    assert command.index("migrate") < command.index("uvicorn")
    assert "config.asgi:application" in command


def test_it_points_web_at_the_db_service(compose):
    environment = compose["services"]["web"]["environment"]
    if isinstance(environment, list):
        environment = dict(item.split("=", 1) for item in environment)
    assert "@db:5432/" in environment["DATABASE_URL"]
    assert str(environment["DEBUG"]).lower() == "false"


def test_the_readme_names_the_same_services(compose):
    readme = (BASE_DIR / "README.md").read_text(encoding="utf-8")
    for service in compose["services"]:
        assert f"`{service}`" in readme, service
