"""Browser tests: Playwright for Python driving Debian's Chromium against the live server."""

from __future__ import annotations

import os

import pytest

from tests.e2e.chromium import CHROMIUM_ARGS, chromium_path
from tests.reference_data import restore_reference_data

# Playwright's sync API runs an event loop in the test thread; the ORM calls the tests make
# (fixtures, assertions) are still synchronous, so Django's async guard is lifted here only.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

DESKTOP = {"width": 1280, "height": 900}
#: How long a page load or a wait may take (ms). A hang still fails; a page that loads slowly
#: while the other worker runs the 47-page walkthrough on two cores does not (a home page
#: once took more than 15 s to reach "load" on PostgreSQL in CI).
E2E_TIMEOUT_MS = 30_000


def _new_context(browser, viewport: dict = DESKTOP, locale: str = "en-US"):
    """A browser context (own cookies) of that size and browser locale."""
    context = browser.new_context(locale=locale, viewport=viewport)
    context.set_default_timeout(E2E_TIMEOUT_MS)
    return context


@pytest.fixture(scope="session")
def browser():
    executable = chromium_path()
    if executable is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is not installed; `make test` installs Debian's chromium package")
        pytest.skip("Chromium is not installed (Debian package 'chromium'); run `make test`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    """A page in a fresh context. Every journey also checks the site's Content-Security-
    Policy: a page that breaks it (an inline script or style, a resource from elsewhere)
    fails the test that visited it."""
    context = _new_context(browser)
    page = context.new_page()
    violations: list[str] = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text)
            if "Content Security Policy" in message.text
            or "Content-Security-Policy" in message.text
            else None
        ),
    )
    yield page
    context.close()
    assert not violations, f"pages broke the Content-Security-Policy: {violations}"


@pytest.fixture
def reference_data(transactional_db):
    """The shipped category tree, HS codes, reference exchange rates and default plans, as the
    migrations load them (tests/reference_data.py)."""
    restore_reference_data()


@pytest.fixture
def open_page(browser):
    """Opens a page of the given size (a desktop's by default) and browser locale in its own
    context, with its own cookies (one a person); every context is closed after the test."""
    contexts = []

    def open_page(viewport: dict = DESKTOP, locale: str = "en-US"):
        context = _new_context(browser, viewport, locale)
        contexts.append(context)
        return context.new_page()

    yield open_page
    for context in contexts:
        context.close()
