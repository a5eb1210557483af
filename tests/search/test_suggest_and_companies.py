"""Suggestions while typing, and company search."""

from __future__ import annotations

import pytest

from tests.factories.catalog import make_category, make_product
from tests.factories.companies import make_company
from tests.factories.search import index
from tradepost.search.selectors import (
    CompanyFilters,
    parse_company_filters,
    search_companies,
    suggest,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def suppliers():
    lamps = make_category(
        parent=make_category(), name_en="Desk lamps", name_zh_hans="台灯", name_zh_hant="檯燈"
    )
    shenzhen = make_company(
        country="CN",
        legal_name="深圳光明照明有限公司",
        english_name="Shenzhen Guangming Lighting",
        main_products="LED台灯, 护眼灯",
        business_types=["manufacturer"],
        is_verified=True,
    )
    taichung = make_company(
        country="TW",
        legal_name="臺中燈飾企業社",
        main_products="檯燈、落地燈",
        business_types=["trading_company"],
    )
    berlin = make_company(
        country="DE", legal_name="Berlin Lamp Traders GmbH", business_types=["wholesaler"]
    )
    products = [
        make_product(company=shenzhen, category=lamps, title="LED护眼台灯 USB充电"),
        make_product(company=taichung, category=lamps, title="復古檯燈 黃銅"),
        make_product(company=berlin, category=lamps, title="Adjustable LED desk lamp"),
        make_product(company=berlin, category=lamps, title="Adjustable LED desk lamp, clamp"),
    ]
    index(*products, shenzhen, taichung, berlin)
    return {"shenzhen": shenzhen, "taichung": taichung, "berlin": berlin}


def test_suggestions_complete_titles_categories_and_company_names(suppliers):
    assert suggest("adjus", "en")[:2] == [
        "adjustable led desk lamp",
        "adjustable led desk lamp, clamp",
    ]
    assert "desk lamps" in suggest("desk", "en")
    assert "berlin lamp traders gmbh" in suggest("Berl", "en")


def test_suggestions_work_in_both_scripts(suppliers):
    # A traditional prefix finds a title written in simplified characters...
    assert "led护眼台灯 usb充电" not in suggest("護眼", "zh-hans")  # not a prefix of the title
    assert "台灯" in suggest("檯", "zh-hans")
    assert "深圳光明照明有限公司" in suggest("深圳", "zh-hans")
    # ...and a simplified prefix a traditional one, shown in traditional to zh-hant readers.
    assert "復古檯燈 黃銅" in suggest("复古", "zh-hant")
    assert "复古台灯 黄铜" in suggest("復古", "zh-hans")


def test_suggestions_need_a_meaningful_prefix(suppliers):
    assert suggest("", "en") == []
    assert suggest("a", "en") == []
    assert suggest("zzzz", "en") == []
    assert len(suggest("ad", "en", limit=1)) == 1


def test_company_search_matches_names_in_both_forms_and_main_products(suppliers):
    def found(query: str) -> list[int]:
        return [hit.company.id for hit in search_companies(query=query, language="en").hits]

    assert found("guangming") == [suppliers["shenzhen"].id]
    assert found("深圳光明") == [suppliers["shenzhen"].id]
    # Both scripts of the main products; the glossary adds the English "lamp" too.
    assert set(found("台灯")) == {s.id for s in suppliers.values()}
    assert found("berlin lamp") == [suppliers["berlin"].id]


def test_company_search_filters_and_facets(suppliers):
    result = search_companies(query="", language="en")
    assert result.total == 3
    facets = {f.name: {o.value: o.count for o in f.options} for f in result.facets}
    assert facets["country"] == {"CN": 1, "TW": 1, "DE": 1}
    assert facets["verified"] == {"1": 1}
    assert facets["business_type"] == {"manufacturer": 1, "trading_company": 1, "wholesaler": 1}
    only = search_companies(
        query="", language="en", filters=CompanyFilters(countries=("TW", "DE"), verified_only=False)
    )
    assert {hit.company.id for hit in only.hits} == {
        suppliers["taichung"].id,
        suppliers["berlin"].id,
    }
    verified = search_companies(
        query="", language="en", filters=parse_company_filters({"verified": "1"})
    )
    assert [hit.company.id for hit in verified.hits] == [suppliers["shenzhen"].id]


def test_company_name_is_highlighted_in_the_viewers_form(suppliers):
    result = search_companies(query="lighting", language="en")
    assert str(result.hits[0].name_html) == "Shenzhen Guangming <mark>Lighting</mark>"


def test_suggestions_skip_removed_listings_and_accept_long_prefixes(suppliers):
    from tradepost.catalog.models import Product, ProductStatus

    lamp = Product.objects.get(title="Adjustable LED desk lamp, clamp")
    assert suggest("adjustable led desk lamp, c", "en") == ["adjustable led desk lamp, clamp"]
    Product.objects.filter(pk=lamp.pk).update(status=ProductStatus.HIDDEN)
    index(lamp)
    # The title's term may stay in the dictionary until segments merge; it is not offered.
    assert suggest("adjus", "en") == ["adjustable led desk lamp"]
    assert suggest("adjustable led desk lamp, c", "en") == []
    # The most common completion comes first: the category name is on all four listings.
    make_product(category=lamp.category, title="Desk lamp with wireless charger")
    index()
    assert suggest("desk", "en")[0] == "desk lamps"
