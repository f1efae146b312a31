"""The app's settings plus a floor route, for benchmarks that serve the app under uvicorn."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.floor.urls"
