# syntax=docker/dockerfile:1
# Chroniqueur's web app: Django on uvicorn (ASGI, because live updates stream over SSE).
# Used by docker-compose.yml; see README, "Deployment".

ARG PYTHON_VERSION=3.13

# --- build: dependencies, compiled translations, collected static files -----------------
FROM python:${PYTHON_VERSION}-slim AS build

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# gettext provides msgfmt for compilemessages; it is not needed at run time.
RUN apt-get update \
    && apt-get install -y --no-install-recommends gettext \
    && rm -rf /var/lib/apt/lists/*

RUN python -m venv /opt/venv
ENV PATH="/opt/venv/bin:$PATH"

WORKDIR /app
# Runtime dependencies only (requirements-dev.txt is for tests and lint).
COPY requirements.txt ./
RUN pip install -r requirements.txt

COPY . .
# The .mo files are not in git: compile them here. collectstatic runs with the production
# storage (hashed, compressed files), which needs DEBUG off and therefore some SECRET_KEY;
# this throwaway one exists only for this command and is not kept in the image.
RUN python manage.py compilemessages --ignore=.venv \
    && DEBUG=false SECRET_KEY=build-time-only-not-a-secret \
       python manage.py collectstatic --noinput -v0

# --- runtime ---------------------------------------------------------------------------
FROM python:${PYTHON_VERSION}-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH="/opt/venv/bin:$PATH" \
    DEBUG=false \
    WEB_CONCURRENCY=2

RUN groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid app --home-dir /app --no-create-home app

COPY --from=build /opt/venv /opt/venv
# The code stays owned by root: the app user can read it, not change it.
COPY --from=build /app /app
WORKDIR /app

USER app
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]

# --no-proxy-headers: the app believes X-Forwarded-For only from TRUSTED_PROXIES
# (config/proxy.py). Several workers: each SSE client holds a connection open. The
# graceful-shutdown timeout stops those open streams from delaying a restart until Docker
# kills the container.
CMD ["sh", "-c", "exec uvicorn config.asgi:application --host 0.0.0.0 --port 8000 --no-proxy-headers --workers \"${WEB_CONCURRENCY:-2}\" --timeout-graceful-shutdown 5 --lifespan off"]
