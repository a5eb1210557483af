"""Every page the e2e journeys reach, in each of the three languages, checked in Chromium for
what tests/e2e/page_checks.py describes: no serious accessibility violation (axe-core), no
page wider than the screen at 1366 and at 390 px, and, on a Chinese page, no English interface
string. One market and one visit of each page serve all three checks: the page loads at 1366 px,
is checked there, then resized to 390 px and checked again (tests/e2e/main_pages.py, `resize`).
The failure report names each check's findings apart."""

from __future__ import annotations

import pytest

from tests.e2e.main_pages import LANGUAGES, PHONE, WIDE, build_market, resize, visit_all
from tests.e2e.page_checks import (
    INTERFACE_TEXT,
    OVERFLOW,
    STICKING_OUT,
    axe_response,
    english_words,
    serious_violations,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("language", LANGUAGES)
def test_main_pages_are_accessible_fit_the_screen_and_speak_the_language(
    live_server, browser, reference_data, language
):
    market = build_market()
    chinese = language.startswith("zh")
    found: dict[str, dict[str, str]] = {
        "axe-core found serious or critical violations": {},
        "wider than the screen": {},
        "English on a Chinese page": {},
    }
    accessibility, overflowing, english = found.values()
    visited = 0
    for where, page in visit_all(browser, live_server.url, market, language):
        visited += 1
        assert page.locator("html").get_attribute("lang") == language
        if lines := serious_violations(axe_response(page)):
            accessibility[where] = "\n  ".join(lines)
        texts = page.evaluate(INTERFACE_TEXT) if chinese else []
        if shown := sorted({text for text in texts if english_words(text)}):
            english[where] = str(shown)
        for viewport in (WIDE, PHONE):
            resize(page, viewport)
            assert page.evaluate("innerWidth") == viewport["width"]
            if (overflow := page.evaluate(OVERFLOW)) > 0:
                overflowing[f"{where} at {viewport['width']}px"] = (
                    f"{overflow}px too wide: {page.evaluate(STICKING_OUT)}"
                )
    assert visited == len(market.pages)
    report = "\n".join(
        f"{check}:\n" + "\n".join(f"  {where}: {what}" for where, what in findings.items())
        for check, findings in found.items()
        if findings
    )
    assert not report, report
