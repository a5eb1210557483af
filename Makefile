# Tradepost — the three entry points: make run, make test, make lint.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TP := $(BIN)/tradepost
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
BOOT_STAMP := $(VENV)/.installed-bootstrap
PORT ?= 8000
export PORT
# uv installs exactly what a lock lists, hash-checked, whatever pip the interpreter ships.
UV_PIP := $(BIN)/uv pip
UV_ARGS := --quiet --python $(BIN)/python --require-hashes
export UV_PYTHON_DOWNLOADS := never

.PHONY: run test lint install install-dev install-rq install-bench codegen-tools system-libs \
	test-tools \
	translations format migrations lock audit screenshots

# Nothing is resolved at install time (ADR 0030). The interpreter's own pip installs only the
# installer, from requirements-bootstrap.lock (hash-checked, no dependencies); uv then makes
# the venv hold exactly one lock (the site's packages, requirements.lock; the development tools
# on top, requirements-dev.lock, at the very same versions), and the project itself, editable,
# built with the bootstrap's setuptools. Every module is compiled to bytecode at install, as
# pip does and uv does only when asked: a process that may not write it (a read-only venv,
# PYTHONDONTWRITEBYTECODE set) would otherwise compile each module it imports on every start,
# 3.3 of the 5.1 s a Django start took.
$(BOOT_STAMP): requirements-bootstrap.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps \
		--require-hashes -r requirements-bootstrap.lock
	@touch $@

define sync
	$(UV_PIP) sync $(UV_ARGS) --compile-bytecode $(1) requirements-bootstrap.lock
	$(UV_PIP) install --quiet --python $(BIN)/python --no-deps --no-build-isolation -e .
	$(BIN)/python -m compileall -q -j 0 src tests >/dev/null
endef

$(STAMP): $(BOOT_STAMP) requirements.lock pyproject.toml
	$(call sync,requirements.lock)
	@rm -f $(DEV_STAMP)
	@touch $@

$(DEV_STAMP): $(STAMP) requirements-dev.lock
	$(call sync,requirements-dev.lock)
	@touch $@

install: $(STAMP)

install-dev: $(DEV_STAMP)

# The site with the RQ task queue (TRADEPOST_TASKS_BACKEND=rq; docs/deploy.md).
install-rq: $(STAMP) requirements-rq.lock
	$(call sync,requirements-rq.lock)
	@rm -f $(DEV_STAMP)

# The API client generator the tests run (tests/api/test_generated_client.py), in a venv of its
# own: it pins an older httpx than the site's. Made by the interpreter's venv without pip,
# filled by the bootstrap's uv from its lock, hash-checked.
CODEGEN_VENV := .venv-codegen
CODEGEN_STAMP := $(CODEGEN_VENV)/.installed
$(CODEGEN_STAMP): $(BOOT_STAMP) requirements-codegen.lock
	@test -x $(CODEGEN_VENV)/bin/python || $(PYTHON) -m venv --without-pip $(CODEGEN_VENV)
	$(UV_PIP) sync --quiet --python $(CODEGEN_VENV)/bin/python --require-hashes \
		requirements-codegen.lock
	@touch $@

codegen-tools: $(CODEGEN_STAMP)

# The development tools and the load and fault benchmarks' (locust, psutil).
install-bench: $(DEV_STAMP) requirements-bench.lock
	$(call sync,requirements-bench.lock)

translations: install
	@$(TP) compiletranslations -v0

# Debian's Pango and Noto CJK fonts (WeasyPrint's invoice PDFs); installed when missing (needs
# root or sudo).
system-libs:
	@bash scripts/install-system-libs.sh

# Each step timed (scripts/run.sh): system packages, venv and install, translations, migrate,
# collectstatic, the demo when the database is empty, then serve; once the first page answers
# and the search index is built, the steps' seconds and the total are printed.
run:
	@bash scripts/run.sh

# Debian's Chromium (browser tests) and nginx (the deploy configuration's test); installed
# when missing (needs root or sudo).
test-tools:
	@bash scripts/install-test-tools.sh

# In parallel, one worker per core (pytest-xdist; TEST_WORKERS=0 runs in this process), in a
# random order (pytest-randomly prints its seed; PYTEST_ARGS="-p randomly --randomly-seed=N"
# repeats an order, "-p no:randomly" keeps the files' order: docs/operations.md, "Tests").
# Bytecode is written whatever the shell says: each worker would otherwise rewrite and compile
# every test module again (collecting took 18 s instead of 8).
TEST_WORKERS ?= auto
test: install-dev codegen-tools translations system-libs test-tools
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

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

# Re-resolve the lock files after a change to pyproject.toml or requirements-bootstrap.in, with
# the bootstrap's uv (run `make install` first). Each lock keeps the versions of the one before.
LOCK := $(UV_PIP) compile --quiet --generate-hashes --python-version 3.11
lock: $(BOOT_STAMP)
	$(LOCK) requirements-bootstrap.in -o requirements-bootstrap.lock
	$(LOCK) pyproject.toml -o requirements.lock
	$(LOCK) pyproject.toml --extra rq -c requirements.lock -o requirements-rq.lock
	$(LOCK) pyproject.toml --extra dev --extra rq -c requirements-rq.lock -o requirements-dev.lock
	$(LOCK) pyproject.toml --extra dev --extra rq --extra bench -c requirements-dev.lock \
		-o requirements-bench.lock
	$(LOCK) requirements-codegen.in -o requirements-codegen.lock

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
