"""What every page the e2e journeys reach (tests/e2e/main_pages.py) is checked for, in the
browser (#13):

- axe-core (through axe-playwright-python): no serious or critical violation. Moderate and
  minor findings (best-practice rules such as heading order) are not failures.
- The page fits the screen: nothing wider than a phone at 390 px or a laptop at 1366 px. A
  wide table scrolls inside its own wrapper (`.table-scroll`), never the page.
- A Chinese page shows no English interface string. The text looked at is every text node of
  the body (hidden ones too: a closed menu or a screen-reader label is interface all the same)
  outside scripts, styles, templates and text areas (what a person typed), the placeholder,
  aria-label, title and alt attributes, the page title and its meta description. Text inside
  an element whose `lang` is not Chinese (a language's own name in the language menu, a
  listing in its original language) or marked `translate="no"` is user content or a name, and
  is skipped. What is left may hold Latin letters only as the brand, a unit, a code (FOB, USD,
  LFGB, HS: capitals) or an e-mail address.
"""

from __future__ import annotations

import re
from functools import cache

FAILING_IMPACTS = {"serious", "critical"}


def axe_script_path() -> str:
    """axe-core's script as axe-playwright-python ships it."""
    from pathlib import Path

    import axe_playwright_python

    return str(Path(axe_playwright_python.__file__).parent / "axe.min.js")


@cache
def _axe_script() -> str:
    from pathlib import Path

    return Path(axe_script_path()).read_text(encoding="utf-8")


def load_axe_in(context) -> None:
    """Every page the Playwright `context` opens loads axe-core as it loads (the browser
    compiles the half megabyte once, instead of receiving and evaluating it again for each
    check: `axe_response`)."""
    context.add_init_script(path=axe_script_path())


def axe_response(page) -> dict:
    """axe-core's findings on the page as loaded (violations only; axe is added first when
    the page's context did not load it: `load_axe_in`)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(_axe_script())  # evaluated, not a script tag: the site's CSP allows none
    return page.evaluate("axe.run(document, {resultTypes: ['violations']})")


def serious_violations(axe_response: dict) -> list[str]:
    """One line per serious or critical rule broken: rule, impact, how many elements, the
    first few selectors and axe's summary of the first."""
    lines = []
    for violation in axe_response["violations"]:
        if violation["impact"] not in FAILING_IMPACTS:
            continue
        nodes = violation["nodes"]
        targets = ", ".join(str(node["target"]) for node in nodes[:3])
        summary = (nodes[0].get("failureSummary") or "").replace("\n", " ")[:200]
        lines.append(
            f"{violation['id']} ({violation['impact']}) on {len(nodes)} element(s): "
            f"{targets} — {summary}"
        )
    return lines


#: How many pixels the page is wider than the screen.
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


INTERFACE_TEXT = """() => {
  const skipped = (element) =>
    element.closest('script, style, template, noscript, textarea, [translate=no]') !== null
    || ((element.closest('[lang]')?.getAttribute('lang') || 'zh').toLowerCase()
        .startsWith('zh') === false);
  const texts = [document.title];
  const description = document.querySelector('meta[name=description]');
  if (description) texts.push(description.content);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (/[A-Za-z]/.test(node.textContent) && !skipped(node.parentElement)) {
      texts.push(node.textContent.trim());
    }
  }
  const labelled = '[placeholder], [aria-label], [title], img[alt]';
  for (const element of document.body.querySelectorAll(labelled)) {
    if (skipped(element)) continue;
    for (const name of ['placeholder', 'aria-label', 'title', 'alt']) {
      const value = element.getAttribute(name);
      if (value && /[A-Za-z]/.test(value)) texts.push(value);
    }
  }
  return texts;
}"""

EMAIL_OR_URL = re.compile(r"\S+@\S+|https?://\S+")
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
#: Latin words a Chinese page may show: the brand, units written the same in Chinese, names
#: written in Latin letters in Chinese too (payment services, RoHS, WebP, the software a
#: supplier's file comes from or a worker's queue lives in, "Webhook" as Chinese software
#: writes it; CLDR's Chinese name of the Bolivian fund currency BOV is "玻利维亚 Mvdol（资金）").
ALLOWED = {"Tradepost", "ml", "mL", "kg", "g", "cm", "mm", "m", "km", "lb", "oz", "pcs"} | {
    "PayPal",
    "MoneyGram",
    "Western",
    "Union",
    "RoHS",
    "WebP",
    "Mvdol",
    "Excel",
    "Windows",
    "Redis",
    "Webhook",
}


def english_words(text: str) -> list[str]:
    """The Latin words of `text` that are neither the brand, a unit, a code in capitals, nor
    part of an e-mail address or a link."""
    words = LATIN_WORD.findall(EMAIL_OR_URL.sub(" ", text))
    return [word for word in words if word not in ALLOWED and not word.isupper()]
