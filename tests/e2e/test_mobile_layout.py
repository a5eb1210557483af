"""The header and the comparison of quotations on a phone (390×844) and on a laptop (1366×800),
in the three languages (#13): on a phone the header is two short rows (the brand, the account
links and the menu button; then the search box with its placeholder whole) and the menu opens
the main links and the tools; at 1366 px it stays one row even with one more select among the
tools; the comparison shows each quotation as a card a buyer reads without scrolling sideways;
axe-core finds no serious or critical violation on those phone pages."""

from __future__ import annotations

import pytest

from tests.e2e.page_checks import axe_response, serious_violations
from tests.e2e.people import log_in
from tests.factories.companies import make_trader
from tests.factories.sourcing import make_quoted_request

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LANGUAGES = ("en", "zh-hans", "zh-hant")
PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1366, "height": 800}
#: The tallest the phone header may be: two rows of about 40 px and their padding.
PHONE_HEADER_MAX = 110

OVERFLOW = "() => document.documentElement.scrollWidth - window.innerWidth"
HEADER_HEIGHT = "() => document.querySelector('.site-header').getBoundingClientRect().height"
# The header's visible pieces (the menu's content counts as the row's own on wider screens).
HEADER_PIECES = """() => [...document.querySelectorAll(
      '.header-row > *, .site-menu > *, .header-tools > *')]
    .filter(e => !e.matches('.site-menu, .header-tools') && e.getBoundingClientRect().height > 0)
    .map(e => ({name: e.className || e.tagName, top: Math.round(e.getBoundingClientRect().top),
                bottom: Math.round(e.getBoundingClientRect().bottom)}))"""
# Whether the placeholder fits the search box, typed in the placeholder's own font (the box
# shows it as a value would be: the same room, beside the same clear button).
PLACEHOLDER_FITS = """() => {
  const input = document.querySelector('#site-search-q');
  const size = getComputedStyle(input, '::placeholder').fontSize;
  const [value, fontSize] = [input.value, input.style.fontSize];
  input.style.fontSize = size;
  input.value = input.placeholder;
  const fits = input.scrollWidth <= input.clientWidth;
  input.value = value;
  input.style.fontSize = fontSize;
  return fits;
}"""
# One more small select beside the language's: the display-currency picker, or one like it
# where the page has none; answers its selector.
ADD_SELECT = """() => {
  if (document.querySelector('#currency-select')) { return '#currency-select'; }
  const tools = document.querySelector('.header-tools');
  const form = document.createElement('form');
  form.className = 'extra-switch';
  const select = document.createElement('select');
  select.setAttribute('aria-label', 'extra');
  for (const code of ['As listed', 'USD', 'EUR']) { select.add(new Option(code)); }
  select.selectedIndex = 1;
  form.append(select);
  tools.insertBefore(form, document.querySelector('.account-nav'));
  return '.extra-switch select';
}"""


@pytest.fixture
def five_quotes(reference_data):
    """A buyer's request with five quotations in three currencies, volume prices on one."""
    quotes = [
        {
            "unit_price": "21",
            "currency": "CNY",
            "named_place": "Ningbo",
            "price_tiers": [{"min_quantity": "5000", "unit_price": "19.5"}],
        },
        {"unit_price": "3.1"},
        {"unit_price": "2.95", "message": "Samples in three days; the lid in any colour."},
        {"unit_price": "2.6", "currency": "EUR"},
        {"unit_price": "3.4", "lead_time_days": 45},
    ]
    buyer, buying_request, _quotations = make_quoted_request(*quotes)
    return buyer, buying_request


def _phone_header_checks(page, where: str) -> None:
    assert page.evaluate(OVERFLOW) <= 0, f"wider than the screen: {where}"
    height = page.evaluate(HEADER_HEIGHT)
    assert height <= PHONE_HEADER_MAX, f"the header is {height}px tall: {where}"
    pieces = page.evaluate(HEADER_PIECES)
    rows = sorted({piece["top"] for piece in pieces})
    first = [piece for piece in pieces if piece["top"] - rows[0] < 12]
    names = " ".join(piece["name"] for piece in first)
    assert "brand" in names and "menu-button" in names and "account-nav" in names, (where, pieces)
    search = next(piece for piece in pieces if piece["name"] == "site-search")
    assert search["top"] >= max(piece["bottom"] for piece in first) - 1, (where, pieces)
    assert page.evaluate(PLACEHOLDER_FITS), f"the placeholder is cut: {where}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_phone_header_is_two_short_rows(live_server, open_page, reference_data, language):
    user, _company = make_trader()
    visitor = open_page(PHONE)
    member = open_page(PHONE)
    log_in(member, live_server.url, user, language)
    for who, page in (("visitor", visitor), ("member", member)):
        for path in ("/", "/search/?q=flask", "/requests/"):
            page.goto(f"{live_server.url}/{language}{path}")
            _phone_header_checks(page, f"{language}{path} ({who})")
        # One more select among the tools changes nothing on the first row.
        page.evaluate(ADD_SELECT)
        _phone_header_checks(page, f"{language} with one more select ({who})")


@pytest.mark.parametrize("language", LANGUAGES)
def test_phone_menu_opens_the_links_and_the_tools(live_server, open_page, reference_data, language):
    page = open_page(PHONE)
    page.goto(f"{live_server.url}/{language}/")
    other_select = page.evaluate(ADD_SELECT)
    links = page.locator(".main-nav a")
    assert not links.first.is_visible() and not page.locator("#language-select").is_visible()
    button = page.locator(".menu-button")
    assert button.get_attribute("popovertarget") == "site-menu"
    button.click()
    menu = page.locator("#site-menu")
    assert menu.evaluate("e => e.matches(':popover-open')")
    assert links.count() == 3 and all(links.nth(i).is_visible() for i in range(3))
    for piece in ("#language-select", other_select, "#site-search-q"):
        box = page.locator(piece).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], piece
    assert page.evaluate(OVERFLOW) <= 0
    page.keyboard.press("Escape")
    assert not menu.evaluate("e => e.matches(':popover-open')")
    assert page.locator("#site-search-q").is_visible()  # back on the header's second row


@pytest.mark.parametrize("language", LANGUAGES)
def test_wide_header_keeps_one_row_with_one_more_select(
    live_server, open_page, reference_data, language
):
    user, _company = make_trader()
    page = open_page(WIDE)
    log_in(page, live_server.url, user, language)
    page.goto(f"{live_server.url}/{language}/")
    page.evaluate(ADD_SELECT)
    assert not page.locator(".menu-button").is_visible()
    pieces = page.evaluate(HEADER_PIECES)
    tops = [piece["top"] for piece in pieces]
    assert max(tops) - min(tops) < 20, f"the header wraps: {pieces}"
    assert page.evaluate(HEADER_HEIGHT) < 80
    assert page.evaluate(PLACEHOLDER_FITS), "the placeholder is cut"
    assert page.evaluate(OVERFLOW) <= 0


@pytest.mark.parametrize("language", LANGUAGES)
def test_compare_page_is_a_card_a_quotation_on_a_phone(
    live_server, open_page, five_quotes, language
):
    buyer, buying_request = five_quotes
    page = open_page(PHONE)
    log_in(page, live_server.url, buyer, language)
    page.goto(f"{live_server.url}/{language}/requests/{buying_request.pk}/compare/")
    assert page.evaluate(OVERFLOW) <= 0
    cards = page.locator("table.compare-table tbody tr")
    assert cards.count() == 5
    labels = page.locator("table.compare-table thead th").all_inner_texts()
    for index in range(5):
        card = cards.nth(index)
        box = card.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert box["height"] < 600, f"quotation {index + 1} is {box['height']}px tall"
        # Every cell lies inside the card, and the cells with a value name their column.
        cells = card.evaluate(
            """tr => [...tr.cells].map(td => ({
                 left: td.getBoundingClientRect().left, right: td.getBoundingClientRect().right,
                 width: td.getBoundingClientRect().width,
                 label: getComputedStyle(td, '::before').content}))"""
        )
        assert all(c["left"] >= box["x"] and c["right"] <= box["x"] + box["width"] for c in cells)
        assert all(c["width"] > 250 for c in cells), cells
        named = [c["label"].strip('"') for c in cells if c["label"] not in ("none", "normal")]
        assert named == labels[1:8], (named, labels)
    # The first quotation's supplier and price are on the first screen.
    price = cards.first.locator("td.normalised-price").bounding_box()
    assert price["y"] + price["height"] < PHONE["height"]


def test_phone_pages_have_no_serious_accessibility_violation(live_server, open_page, five_quotes):
    buyer, buying_request = five_quotes
    page = open_page(PHONE)
    log_in(page, live_server.url, buyer, "zh-hant")
    found = {}
    for language in LANGUAGES:
        for path in ("/", f"/requests/{buying_request.pk}/compare/"):
            page.goto(f"{live_server.url}/{language}{path}")
            if lines := serious_violations(axe_response(page)):
                found[f"{language}{path}"] = lines
            page.locator(".menu-button").click()  # and with the menu open
            if lines := serious_violations(axe_response(page)):
                found[f"{language}{path} (menu open)"] = lines
    assert not found, found
