# Tradepost — the three entry points: make run, make test, make lint.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TP := $(BIN)/tradepost
STAMP := $(VENV)/.installed
PORT ?= 8000
export PORT

.PHONY: run test lint install browser translations format migrations

$(STAMP): requirements.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	@touch $@

install: $(STAMP)

translations: install
	@$(TP) compiletranslations -v0

run: install translations
	@$(TP) migrate --noinput -v0
	@$(TP) collectstatic --noinput -v0
	@$(TP) demo --if-empty
	$(TP) serve --port $(PORT)

# Debian's Chromium for the browser tests; installed when missing (needs root or sudo).
browser:
	@command -v chromium >/dev/null 2>&1 || bash scripts/install-chromium.sh

test: install translations browser
	$(BIN)/pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check src tests bench scripts conftest.py
	$(BIN)/ruff format --check src tests bench scripts conftest.py scripts conftest.py
	$(BIN)/mypy src

format: install
	$(BIN)/ruff check --fix src tests bench
	$(BIN)/ruff format src tests bench

migrations: install
	$(TP) makemigrations
