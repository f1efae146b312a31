"""With DEBUG off and no static files' manifest every page answered 500: the system check
says so and the servers refuse to start, naming what to run."""

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from live.checks import refuse_to_start, static_manifest
from tests.conftest import MANIFEST_STORAGE


@pytest.fixture
def production_without_manifest(settings, tmp_path):
    settings.DEBUG = False
    settings.STATIC_ROOT = tmp_path  # nothing collected there
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": MANIFEST_STORAGE}}


def test_debug_off_without_the_manifest_is_an_error_with_what_to_run(
    production_without_manifest,
):
    [error] = static_manifest()
    assert error.id == "live.E001" and "staticfiles.json" in error.msg
    assert "collectstatic" in error.hint
    with pytest.raises(SystemCheckError, match=r"live\.E001"):
        call_command("check", tags=["static_manifest"])
    with pytest.raises(ImproperlyConfigured, match="collectstatic"):
        refuse_to_start()


def test_the_manifest_collected_passes(settings, production_static):
    settings.DEBUG = False
    assert static_manifest() == []
    refuse_to_start()  # starts


def test_debug_on_needs_no_manifest(settings, tmp_path):
    settings.DEBUG = True
    settings.STATIC_ROOT = tmp_path
    assert static_manifest() == []
