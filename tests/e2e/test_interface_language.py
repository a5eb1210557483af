"""A Chinese page shows no English interface string (#13): every main page the e2e journeys
reach, in Simplified and Traditional Chinese, on a market whose user content is all Chinese.

The text looked at is every text node of the body (hidden ones too: a closed menu or a
screen-reader label is interface all the same) outside scripts, styles, templates and text
areas (what a person typed), the
placeholder, aria-label, title and alt attributes, the page title and its meta description.
Text inside an element whose `lang` is not Chinese (a language's own name in the language
menu, a listing in its original language) or marked `translate="no"` is user content or a
name, and is skipped. What is left may hold Latin letters only as the brand, a unit, a code
(FOB, USD, LFGB, HS: capitals) or an e-mail address."""

from __future__ import annotations

import re

import pytest

from tests.e2e.main_pages import build_market, visit_all

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

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


@pytest.mark.parametrize("language", ["zh-hans", "zh-hant"])
def test_chinese_pages_show_no_english_interface_string(
    live_server, browser, reference_data, language
):
    market = build_market()
    found: dict[str, set[str]] = {}
    for where, page in visit_all(browser, live_server.url, market, language):
        assert page.locator("html").get_attribute("lang") == language
        english = {text for text in page.evaluate(INTERFACE_TEXT) if english_words(text)}
        if english:
            found[where] = english
    report = "\n".join(f"{where}: {sorted(texts)}" for where, texts in found.items())
    assert not found, f"English on Chinese pages:\n{report}"
