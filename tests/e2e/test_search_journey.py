"""A buyer searches in English for a product listed only in Traditional Chinese, narrows the
results to Taiwan and a price band with the facets, and opens the listing."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.factories.catalog import make_flask, make_product
from tests.factories.companies import make_company
from tradepost.search import indexer

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_english_search_finds_a_traditional_chinese_listing_and_narrows_it(
    live_server, page, reference_data
):
    base = live_server.url
    taiwan = make_company(country="TW", legal_name="台中保溫器材股份有限公司", slug="taichung")
    listing = make_flask(
        taiwan,
        "不鏽鋼真空保溫瓶 500ml",
        "zh-hant",
        ("3", "4"),
        slug="vacuum-flask-500",
        description="雙層304不鏽鋼，保溫12小時。",
        currency="USD",
        incoterms=["FOB"],
        moq=Decimal("1000"),
    )
    dearer = make_flask(
        make_company(country="US", legal_name="Ohio Drinkware Inc."),
        "Stainless steel vacuum flask with handle",
        "en",
        ("45", "60"),
    )
    make_flask(
        make_company(country="CN", legal_name="宁波恒达日用品有限公司"),
        "不锈钢保温杯 双层真空",
        "zh-hans",
        ("18", "25"),
        currency="CNY",
    )
    taiwan_dearer = make_flask(
        make_company(country="TW", legal_name="高雄精品有限公司"),
        "不鏽鋼真空保溫瓶 1000ml 禮盒",
        "zh-hant",
        ("30", "40"),
    )
    make_product(
        company=make_company(country="VN", legal_name="Hanoi Ceramics JSC"),
        title="Ceramic coffee mug",
        original_language="en",
        price_min=Decimal("1"),
        price_max=Decimal("2"),
    )
    indexer.apply_outbox()

    # Search from the header box on the home page.
    page.goto(f"{base}/en/")
    # Suggestions arrive while typing (progressive: the form works without them).
    page.locator("#site-search-q").press_sequentially("stainl", delay=30)
    page.locator("#site-search-suggestions option").first.wait_for(state="attached")
    suggestion = page.locator("#site-search-suggestions option").first.get_attribute("value")
    assert suggestion is not None and suggestion.startswith("stainl")
    page.fill("#site-search-q", "stainless steel vacuum flask")
    page.click(".site-search button[type=submit]")
    page.wait_for_url("**/en/search/?**")
    results = page.locator(".search-results")
    listing_link = results.locator(f"a[href*='/en/products/{listing.pk}-']")
    assert listing_link.first.is_visible()
    assert results.locator(f"a[href*='/en/products/{dearer.pk}-']").count() >= 1
    assert "Ceramic coffee mug" not in results.inner_text()
    assert page.locator(".search-expansions").is_visible()

    # Only suppliers in Taiwan.
    page.locator(".facet-country a.facet-option", has_text="Taiwan").click()
    page.wait_for_url("**country=TW**")
    assert results.locator(f"a[href*='/en/products/{dearer.pk}-']").count() == 0
    assert results.locator(f"a[href*='/en/products/{taiwan_dearer.pk}-']").count() >= 1

    # Only the US$1–5 price band.
    page.locator(".facet-price a.facet-option", has_text="US$1–5").click()
    page.wait_for_url("**price_max=5**")
    assert "country=TW" in page.url
    assert results.locator(".search-hit").count() == 1
    assert results.locator(f"a[href*='/en/products/{taiwan_dearer.pk}-']").count() == 0
    hit = results.locator(".search-hit").first
    assert "台中保溫器材股份有限公司" in hit.inner_text()
    assert "Taiwan" in hit.inner_text()

    # Open the listing.
    hit.locator(".hit-title a").click()
    page.wait_for_url(f"**/en/products/{listing.pk}-**")
    assert page.locator("h1").inner_text().startswith("不鏽鋼真空保溫瓶")

    # A query no listing matches whole: the best partial matches, and which word is missing.
    page.goto(f"{base}/zh-hans/search/?q=vacuum+flask+zorblexian")
    results = page.locator(".search-results")
    assert results.locator(".search-hit").count() >= 2
    note = page.locator(".search-partial")
    assert note.is_visible()
    assert "未找到" in note.inner_text() and "zorblexian" in note.inner_text()
