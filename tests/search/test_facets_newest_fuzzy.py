"""Disjunctive facet counts, the "newest" order to the microsecond (ties by id), and the
fuzzy retry that starts from the words as typed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.factories.catalog import make_product
from tests.factories.companies import make_company
from tests.factories.search import index
from tradepost.catalog.models import Product
from tradepost.search import index as search_index
from tradepost.search.analysis import analyze_query
from tradepost.search.index import PRODUCT_WORD_FIELDS
from tradepost.search.querying import fuzzy_terms
from tradepost.search.selectors import ProductFilters, search_products

pytestmark = pytest.mark.django_db


def _facet(result, name):
    facet = next(f for f in result.facets if f.name == name)
    return {option.value: (option.count, option.selected) for option in facet.options}


@pytest.fixture
def boards():
    cn = make_company(country="CN")
    tw = make_company(country="TW")
    vn = make_company(country="VN")
    products = [
        make_product(company=cn, title="Bamboo cutting board", incoterms=["FOB"]),
        make_product(company=cn, title="Bamboo cutting board large", incoterms=["EXW"]),
        make_product(company=tw, title="Bamboo cutting board set", incoterms=["FOB", "CIF"]),
        make_product(company=vn, title="Bamboo cutting board round", incoterms=["CIF"]),
        make_product(company=tw, title="竹砧板 bamboo cutting board", original_language="zh-hant"),
    ]
    index(*products)
    return products


def test_a_selected_country_leaves_the_other_countries_countable(boards):
    everything = search_products(query="bamboo board", language="en")
    assert _facet(everything, "country") == {
        "CN": (2, False),
        "TW": (2, False),
        "VN": (1, False),
    }
    taiwan = search_products(
        query="bamboo board", language="en", filters=ProductFilters(countries=("TW",))
    )
    assert taiwan.total == 2
    # Counted without the country filter: the others can still be added, with their counts.
    assert _facet(taiwan, "country") == {"CN": (2, False), "TW": (2, True), "VN": (1, False)}
    # Every other facet still counts within Taiwan only.
    assert {k: c for k, (c, _s) in _facet(taiwan, "incoterm").items()} == {"CIF": 1, "FOB": 1}
    both = search_products(
        query="bamboo board", language="en", filters=ProductFilters(countries=("TW", "VN"))
    )
    assert both.total == 3
    assert _facet(both, "country") == {"CN": (2, False), "TW": (2, True), "VN": (1, True)}


def test_other_filters_still_apply_to_a_disjunctive_facet(boards):
    result = search_products(
        query="bamboo board",
        language="en",
        filters=ProductFilters(countries=("TW",), incoterms=("FOB",)),
    )
    assert [hit.product.id for hit in result.hits] == [boards[2].id]
    # Countries: within FOB (the incoterm filter applies), without the country filter.
    assert _facet(result, "country") == {"CN": (1, False), "TW": (1, True)}
    # Incoterms: within Taiwan, without the incoterm filter.
    assert {k: c for k, (c, _s) in _facet(result, "incoterm").items()} == {"CIF": 1, "FOB": 1}
    # Languages (not selected): the search itself.
    assert {k: c for k, (c, _s) in _facet(result, "language").items()} == {"en": 1}


def test_a_selected_language_leaves_the_other_languages_countable(boards):
    result = search_products(
        query="bamboo board", language="en", filters=ProductFilters(languages=("zh-hant",))
    )
    assert [hit.product.id for hit in result.hits] == [boards[4].id]
    languages = _facet(result, "language")
    assert languages["zh-hant"] == (1, True)
    assert languages["en"] == (4, False)
    assert _facet(result, "country") == {"TW": (1, False)}


def test_disjunctive_counts_are_cached_per_index_generation(boards):
    filters = ProductFilters(countries=("TW",))
    first = search_products(query="bamboo board", language="en", filters=filters)
    again = search_products(query="bamboo board", language="en", filters=filters)
    assert _facet(first, "country") == _facet(again, "country")
    index(make_product(company=make_company(country="TH"), title="Bamboo cutting board"))
    after = search_products(query="bamboo board", language="en", filters=filters)
    assert _facet(after, "country")["TH"] == (1, False)


# --- newest -------------------------------------------------------------------------------


def _published(products, moments):
    for product, moment in zip(products, moments, strict=True):
        Product.objects.filter(pk=product.pk).update(published_at=moment)


def _newest_ids(**kwargs):
    return [hit.product.id for hit in search_products(sort="newest", **kwargs).hits]


def test_newest_orders_listings_published_a_moment_apart():
    moment = datetime(2026, 3, 1, 9, 30, 15, 100_000, tzinfo=UTC)
    products = [make_product(title=f"Garden hose {n}") for n in range(5)]
    # Within one second, and not in id order.
    offsets = [400, 100, 300, 900, 200]
    _published(products, [moment + timedelta(milliseconds=ms) for ms in offsets])
    index(*products)
    expected = [p.id for _ms, p in sorted(zip(offsets, products, strict=True), reverse=True)]
    assert _newest_ids(query="", language="en") == expected
    assert _newest_ids(query="garden hose", language="en") == expected


def test_newest_breaks_equal_times_by_id_descending_across_pages():
    moment = datetime(2026, 3, 1, 9, 30, 15, 123_456, tzinfo=UTC)
    older = [make_product(title=f"Garden hose old {n}") for n in range(2)]
    batch = [make_product(title=f"Garden hose batch {n}") for n in range(7)]
    newer = make_product(title="Garden hose new")
    _published(older, [moment - timedelta(seconds=5), moment - timedelta(seconds=4)])
    _published(batch, [moment] * len(batch))
    _published([newer], [moment + timedelta(microseconds=1)])
    index(*older, *batch, newer)
    expected = [
        newer.id,
        *sorted((p.id for p in batch), reverse=True),
        older[1].id,
        older[0].id,
    ]
    assert _newest_ids(query="", language="en", per_page=50) == expected
    for per_page in (1, 2, 3, 4):
        pages = []
        for page in range(1, len(expected) // per_page + 2):
            pages.extend(_newest_ids(query="", language="en", per_page=per_page, page=page))
        assert pages == expected, per_page


# --- fuzzy retry --------------------------------------------------------------------------


@pytest.fixture
def drills():
    drill = make_product(title="Cordless drill 18V with two batteries")
    other = make_product(title="Cordless drill brushless 20V")
    kettle = make_product(title="Electric kettle 1.7 litre")
    index(drill, other, kettle)
    return drill, other, kettle


def test_misspelt_words_are_retried_as_typed_not_as_stems(drills):
    drill, other, _kettle = drills
    result = search_products(query="cordles dril", language="en")
    assert result.fuzzy_used
    assert {hit.product.id for hit in result.hits} == {drill.id, other.id}
    # The stem of "cordles" ("cordl") is three edits from "cordless"; the typed word is one.
    terms = fuzzy_terms(analyze_query("cordles dril"), search_index.searcher(), PRODUCT_WORD_FIELDS)
    assert terms["cordl"].variants[0] == ("cordles", 2)


def test_the_fuzzy_retry_only_touches_rare_words(drills):
    exact = search_products(query="cordless drill", language="en")
    assert not exact.fuzzy_used and exact.total == 2
    analyzed = analyze_query("cordless kettel")
    terms = fuzzy_terms(analyzed, search_index.searcher(), PRODUCT_WORD_FIELDS)
    # "cordless" is in two listings: matched exactly; only the unknown word is fuzzy.
    assert set(terms) == {"kettel"}
    # No listing has both words: each listing that has one of them is found (the kettle
    # by its spelling), rather than an empty page.
    partial = search_products(query="cordless kettel", language="en")
    assert partial.fuzzy_used
    assert {hit.product.id for hit in partial.hits} == {d.id for d in drills}
    both = search_products(query="electric kettel", language="en")
    assert both.fuzzy_used and [hit.product.id for hit in both.hits] == [drills[2].id]


def test_a_run_together_word_matches_its_two_words(drills):
    drill, other, _kettle = drills
    # "cordlessdrill" is in no listing and too far from any word to be a misspelling.
    result = search_products(query="cordlessdrill", language="en")
    assert {hit.product.id for hit in result.hits} == {drill.id, other.id}
    assert result.respelled == ["cordlessdrill"]
    # Short words are never split, and a split needs both parts in the index.
    terms = fuzzy_terms(analyze_query("kettlezzqq"), search_index.searcher(), PRODUCT_WORD_FIELDS)
    assert terms["kettlezzqq"].parts == ()
