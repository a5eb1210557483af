"""The pages where business happens, laid out in Chromium at 1366×800 and 390×844 in the three
languages (#13): the header on one row at 1366 px with its search placeholder whole, nothing
wider than the screen, long category names wrapped inside their tiles, the comparison's
actions column readable in Traditional Chinese, and on a phone the first search result on the
first screen (the filters behind a disclosure)."""

from __future__ import annotations

import pytest

from tests.e2e.people import log_in
from tests.factories.catalog import flask_category, make_flask
from tests.factories.companies import make_company, make_trader
from tests.factories.sourcing import make_quotation, make_request
from tradepost.search import indexer

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LANGUAGES = ("en", "zh-hans", "zh-hant")
WIDE = {"width": 1366, "height": 800}
PHONE = {"width": 390, "height": 844}
# A Dutch browser: dates and numbers follow the interface language, not the browser.
DUTCH = "nl-NL"

OVERFLOW = "() => document.documentElement.scrollWidth - window.innerWidth"
HEADER_HEIGHT = "() => document.querySelector('.site-header').getBoundingClientRect().height"
# The header row's pieces (the menu's content lies in the row on wide screens).
HEADER_ROW_TOPS = """() => [...document.querySelectorAll('.header-row > *, .site-menu > *')]
    .filter(e => e.getBoundingClientRect().height > 0)
    .map(e => Math.round(e.getBoundingClientRect().top))"""
# Width the placeholder needs against the room the search box gives it.
PLACEHOLDER_ROOM = """() => {
  const input = document.querySelector('#site-search-q');
  const style = getComputedStyle(input);
  const context = document.createElement('canvas').getContext('2d');
  context.font = style.font;
  const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return [context.measureText(input.placeholder).width, room];
}"""


@pytest.fixture
def market(reference_data):
    """A buyer's request with two quotations (one with volume prices), a supplier with
    listings, and a top-level category with a long one-word name."""
    flasks = flask_category()
    top = flasks
    while top.parent_id:
        top = top.parent
    top.name_en = "Telecommunicationsequipmentandaccessoriesforprofessionals"
    top.save(update_fields=["name_en"])
    buyer, _buyer_company = make_trader(country="NL")
    supplier, supplier_company = make_trader(
        legal_name="寧波明達保溫製品有限公司",
        english_name="Ningbo Mingda Thermos Co., Ltd.",
        original_language="zh-hant",
    )
    for number in range(8):
        make_flask(
            supplier_company,
            f"Stainless steel vacuum flask {number + 3}00 ml",
            "en",
            ("3", "4"),
            currency="USD",
        )
    make_flask(
        make_company(country="TW", legal_name="台中保溫器材股份有限公司"),
        "不鏽鋼真空保溫瓶 500ml",
        "zh-hant",
    )
    indexer.apply_outbox()
    buying_request = make_request(actor=buyer, category_id=flasks.pk, quantity="10000")
    make_quotation(
        buying_request,
        actor=supplier,
        unit_price="21",
        currency="CNY",
        price_tiers=[{"min_quantity": "5000", "unit_price": "3.9"}],
    )
    make_quotation(buying_request, actor=make_trader(country="PL")[0], unit_price="3.1")
    return {"buyer": buyer, "supplier": supplier, "request": buying_request}


def test_header_is_one_row_at_1366_and_nothing_overflows(live_server, open_page, market):
    base = live_server.url
    request_id = market["request"].pk
    pages = {
        None: ["/", "/categories/", "/requests/", f"/requests/{request_id}/", "/search/?q=flask"],
        "supplier": ["/accounts/dashboard/", "/requests/quotations/"],
        "buyer": [f"/requests/{request_id}/compare/", f"/requests/{request_id}/"],
    }
    for viewport in (WIDE, PHONE):
        for who, paths in pages.items():
            page = open_page(viewport, locale=DUTCH)
            if who:
                log_in(page, base, market[who])
            for language in LANGUAGES:
                for path in paths:
                    page.goto(f"{base}/{language}{path}")
                    where = f"{language}{path} at {viewport['width']}px ({who or 'visitor'})"
                    assert page.evaluate(OVERFLOW) <= 0, f"wider than the screen: {where}"
                    if viewport is not WIDE:
                        continue
                    tops = page.evaluate(HEADER_ROW_TOPS)
                    assert max(tops) - min(tops) < 20, f"the header wraps: {where} {tops}"
                    assert page.evaluate(HEADER_HEIGHT) < 80, f"the header is tall: {where}"
                    needed, room = page.evaluate(PLACEHOLDER_ROOM)
                    assert needed <= room, f"the placeholder is cut: {where} {needed} > {room}"


def test_long_category_names_wrap_inside_their_tiles(live_server, open_page, market):
    for viewport in (WIDE, PHONE):
        page = open_page(viewport, locale=DUTCH)
        page.goto(f"{live_server.url}/en/")
        spills = page.evaluate(
            """() => [...document.querySelectorAll('.category-tiles a')]
              .filter(tile => {
                const box = tile.getBoundingClientRect();
                return [...tile.querySelectorAll('.name')].some(name => {
                  const inner = name.getBoundingClientRect();
                  return inner.right > box.right + 0.5 || name.scrollWidth > name.clientWidth + 1;
                });
              }).map(tile => tile.textContent.trim())"""
        )
        assert spills == [], spills
        assert page.evaluate(OVERFLOW) <= 0


def test_compare_actions_stay_readable_in_traditional_chinese(live_server, open_page, market):
    page = open_page(WIDE, locale=DUTCH)
    log_in(page, live_server.url, market["buyer"])
    page.goto(f"{live_server.url}/zh-hant/requests/{market['request'].pk}/compare/")
    cell = page.locator("table.compare-table td.actions").first
    assert cell.bounding_box()["width"] >= 150
    award = cell.locator("a.award-link")
    line_height = award.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)")
    assert award.bounding_box()["height"] < line_height * 2 + 20  # one line, not a column


@pytest.mark.parametrize("language", LANGUAGES)
def test_first_search_result_is_on_the_first_phone_screen(live_server, open_page, market, language):
    page = open_page(PHONE, locale=DUTCH)
    page.goto(f"{live_server.url}/{language}/search/?q=flask&country=CN")
    first = page.locator("ol.search-hits > li").first
    top = first.evaluate("e => e.getBoundingClientRect().top + window.scrollY")
    assert top < PHONE["height"], f"the first result starts {top}px down"
    # The filters wait behind their disclosure, which says how many are on and opens.
    disclosure = page.locator("details.filters-disclosure")
    assert not disclosure.evaluate("e => e.open")
    summary = disclosure.locator("summary")
    assert "1" in summary.inner_text()
    summary.click()
    assert page.locator(".facet-country").is_visible()

    wide = open_page(WIDE, locale=DUTCH)
    wide.goto(f"{live_server.url}/{language}/search/?q=flask")
    assert wide.locator(".facet-country").is_visible()  # beside the results, shown
