# Two commands for a fresh machine: `make run` and `make test` (see README).
SHELL := /bin/bash
.DEFAULT_GOAL := help
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
STAMP := $(VENV)/.installed

# A Python 3.12+ interpreter: pyenv's choice from .python-version first, then what is on PATH.
PYTHON ?= $(shell for p in "$$(pyenv which python 2>/dev/null)" python3.13 python3.12 python3; do \
	  if [ -n "$$p" ] && command -v "$$p" >/dev/null 2>&1 && \
	     "$$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then \
	    command -v "$$p"; break; fi; done)

.PHONY: help run test setup lint format browser bench coverage-engine clean

help:
	@echo "make run   - set up, load the demo campaign and serve the app on http://$(HOST):$(PORT)/"
	@echo "make test  - set up and run the whole test suite (DATABASE_URL picks PostgreSQL)"
	@echo "make lint  - ruff lint and format check"
	@echo "make bench - run the benchmarks in bench/"

$(STAMP): requirements.txt requirements-dev.txt
	@if [ -z "$(PYTHON)" ]; then \
	  echo "No Python 3.12+ found. Install Python 3.13, e.g. 'pyenv install 3.13' (this repo's"; \
	  echo ".python-version selects it) or 'apt-get install python3.13 python3.13-venv', then retry."; \
	  exit 1; fi
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $(STAMP)

setup: $(STAMP)
	$(PY) manage.py compilemessages --ignore=.venv -v0
	@# Always the production storage's collect (hashed names and their manifest): a server with
	@# DEBUG off refuses to start without it (live/checks.py); DEBUG on serves the sources.
	DEBUG=false SECRET_KEY=collectstatic-only-not-a-secret $(PY) manage.py collectstatic --noinput -v0

run: setup
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py seed_demo
	@echo ""
	@echo "  Chroniqueur is running at http://$(HOST):$(PORT)/"
	@echo "  Demo logins (password 'demo'): mj (GM), alice and bruno (players). Ctrl-C stops it."
	@echo ""
	$(VENV)/bin/uvicorn config.asgi:application --host $(HOST) --port $(PORT) --lifespan off \
	  --timeout-graceful-shutdown 2

# Debian's Chromium for the browser tests; installed when we may (root with apt-get).
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "Note: /usr/bin/chromium is missing; browser tests will be skipped" \
	         "(install Debian's 'chromium' package to run them)."; \
	  fi; fi

# The suite runs on pytest-xdist workers, one per core up to 4 (TEST_WORKERS=1: one process);
# each worker has its own test database. Whole files go to one worker (--dist loadfile).
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$n)

test: setup browser
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: setup
	@for f in bench/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

# The rules engine is held to 100 % branch coverage: a branch no test reaches is a rule nobody
# has checked. CI runs this.
coverage-engine: setup
	$(PY) -m coverage run --branch --source=rules/engine -m pytest tests/rules -q -p no:cacheprovider
	$(PY) -m coverage report --fail-under=100 --skip-covered

clean:
	rm -rf $(VENV) staticfiles db.sqlite3
