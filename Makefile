# Tradepost — the three entry points: make run, make test, make lint.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TP := $(BIN)/tradepost
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check
PORT ?= 8000
export PORT

.PHONY: run test lint install install-dev system-libs test-tools translations format migrations \
	lock audit screenshots

# What the site needs (requirements.lock); the development tools (tests, lint, benchmarks) are
# in requirements-dev.lock, which holds the same versions of the site's packages.
$(STAMP): requirements.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) --require-hashes -r requirements.lock
	$(PIP) --no-deps -e .
	@touch $@

$(DEV_STAMP): $(STAMP) requirements-dev.lock
	$(PIP) --require-hashes -r requirements-dev.lock
	@touch $@

install: $(STAMP)

install-dev: $(DEV_STAMP)

translations: install
	@$(TP) compiletranslations -v0

# Debian's Pango and Noto CJK fonts (WeasyPrint's invoice PDFs); installed when missing (needs
# root or sudo).
system-libs:
	@bash scripts/install-system-libs.sh

run: system-libs install translations
	@$(TP) migrate --noinput -v0
	@$(TP) collectstatic --noinput -v0
	@$(TP) demo --if-empty
	$(TP) serve --port $(PORT)

# Debian's Chromium (browser tests) and nginx (the deploy configuration's test); installed
# when missing (needs root or sudo).
test-tools:
	@bash scripts/install-test-tools.sh

test: install-dev translations system-libs test-tools
	$(BIN)/pytest $(PYTEST_ARGS)

lint: install-dev
	$(BIN)/ruff check src tests bench scripts conftest.py
	$(BIN)/ruff format --check src tests bench scripts conftest.py
	$(BIN)/mypy src
	$(BIN)/lint-imports --no-cache

format: install-dev
	$(BIN)/ruff check --fix src tests bench
	$(BIN)/ruff format src tests bench

migrations: install
	$(TP) makemigrations

# Re-resolve both lock files after a change to pyproject.toml (needs uv: pip install uv).
lock:
	uv pip compile pyproject.toml --generate-hashes --python-version 3.11 -o requirements.lock
	uv pip compile pyproject.toml --extra dev --generate-hashes --python-version 3.11 \
		-c requirements.lock -o requirements-dev.lock

# Lighthouse on the main pages of the served demo, three languages (bench/lighthouse_audit.py;
# results in bench/results/lighthouse-*.md). Not in CI: about 20 s a page. npm ci installs the
# pinned Lighthouse and downloads no browser (Debian's Chromium through CHROME_PATH).
LIGHTHOUSE_DIR := bench/lighthouse
$(LIGHTHOUSE_DIR)/node_modules/.installed: $(LIGHTHOUSE_DIR)/package-lock.json
	cd $(LIGHTHOUSE_DIR) && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --ignore-scripts
	@touch $@

AUDIT_ARGS ?=
audit: install-dev translations test-tools $(LIGHTHOUSE_DIR)/node_modules/.installed
	CHROME_PATH=$${CHROME_PATH:-/usr/bin/chromium} $(BIN)/python bench/lighthouse_audit.py $(AUDIT_ARGS)

# A PNG of every main page, three languages, 1366 and 390 px wide (bench/screenshots.py).
SCREENSHOTS ?= var/screenshots
screenshots: install-dev translations test-tools
	$(BIN)/python bench/screenshots.py --out $(SCREENSHOTS)
