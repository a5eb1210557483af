"""Every page the e2e journeys reach (tests/e2e/main_pages.py) fits the screen (#13): nothing
wider than a phone at 390 px or a laptop at 1366 px, in the three languages. A wide table
scrolls inside its own wrapper (`.table-scroll`), never the page."""

from __future__ import annotations

import pytest

from tests.e2e.main_pages import LANGUAGES, PHONE, WIDE, build_market, visit_all

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

OVERFLOW = "() => document.documentElement.scrollWidth - window.innerWidth"
# What sticks out past the right edge of the screen (outside a scrolling wrapper), to say
# what to fix: the outermost such elements, by tag and class.
STICKING_OUT = """() => {
  const width = window.innerWidth;
  const scrolls = (e) => ['auto', 'scroll', 'hidden', 'clip']
    .includes(getComputedStyle(e).overflowX);
  const found = [];
  for (const element of document.body.querySelectorAll('*')) {
    if (element.getBoundingClientRect().right <= width + 0.5) continue;
    let parent = element.parentElement, inside = false;
    while (parent && parent !== document.body) {
      if (scrolls(parent)) { inside = true; break; }
      if (parent.getBoundingClientRect().right > width + 0.5) { inside = true; break; }
      parent = parent.parentElement;
    }
    if (!inside) found.push(element.tagName.toLowerCase()
      + (element.className && typeof element.className === 'string'
         ? '.' + element.className.trim().split(/\\s+/).join('.') : ''));
  }
  return found.slice(0, 5);
}"""


@pytest.mark.parametrize("viewport", [PHONE, WIDE], ids=["390px", "1366px"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_main_pages_are_no_wider_than_the_screen(
    live_server, browser, reference_data, language, viewport
):
    market = build_market()
    found: dict[str, str] = {}
    visited = 0
    for where, page in visit_all(browser, live_server.url, market, language, viewport):
        visited += 1
        if (overflow := page.evaluate(OVERFLOW)) > 0:
            found[where] = f"{overflow}px too wide: {page.evaluate(STICKING_OUT)}"
    assert visited == len(market.pages)
    report = "\n".join(f"{where}: {what}" for where, what in found.items())
    assert not found, f"wider than {viewport['width']}px:\n{report}"
