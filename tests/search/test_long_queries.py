"""How much of a query a listing must match (ranked retrieval, docs/adr/0008): every word
of one or two, about half of a longer one; more of the query ranks higher; a word nobody
wrote vetoes nothing; a query nothing matches falls back to any of its words."""

from __future__ import annotations

import itertools

import pytest

from tests.factories.catalog import make_product
from tests.factories.companies import make_company
from tests.factories.search import index
from tradepost.search.analysis import analyze_query
from tradepost.search.querying import (
    NARROW,
    RELAXED,
    WIDEN_BELOW,
    WIDER,
    minimum_units,
    query_units,
    widen,
)
from tradepost.search.selectors import ProductFilters, search_products

pytestmark = pytest.mark.django_db

WORDS = ["stainless", "steel", "vacuum", "flask", "lid"]


@pytest.fixture
def catalogue():
    products = []
    # Every combination of one to five of the words, in titles.
    for size in range(1, 6):
        for combination in itertools.combinations(WORDS, size):
            products.append(make_product(title=" ".join(combination) + " item"))
    index()
    return products


def _titles(query: str) -> list[str]:
    result = search_products(query=query, language="en", per_page=100)
    assert result.total == len(result.hits)
    return [hit.product.title for hit in result.hits]


def test_the_minimum_grows_with_the_query():
    assert [minimum_units(n) for n in range(1, 9)] == [1, 2, 2, 2, 3, 3, 4, 4]


def test_one_or_two_words_must_all_match(catalogue):
    titles = _titles("vacuum flask")
    assert titles and all("vacuum" in t and "flask" in t for t in titles)


def test_half_of_a_long_query_is_enough_and_more_of_it_ranks_higher(catalogue):
    titles = _titles("stainless steel vacuum flask")
    assert "stainless steel item" in titles  # two of four
    assert "stainless item" not in titles  # one of four
    assert titles[0] == "stainless steel vacuum flask item"
    rank = titles.index
    # Every word first, then three of four, then two of four.
    assert rank("stainless steel vacuum flask lid item") < rank("stainless steel vacuum item")
    assert rank("steel vacuum flask item") < rank("stainless steel item")
    assert rank("stainless vacuum flask item") < rank("vacuum flask item")


def test_an_unknown_word_vetoes_nothing(catalogue):
    # "thermos" is in no listing and has no spelling neighbour: the others still match.
    titles = _titles("thermos stainless steel vacuum flask")
    assert titles[0] == "stainless steel vacuum flask item"


def test_a_query_nothing_matches_whole_falls_back_to_any_of_its_words(catalogue):
    # Two words must both match; no listing has "lid" and "zzyzx"... but "lid" is found.
    titles = _titles("lid qwertyzzz")
    assert titles and all("lid" in t for t in titles)
    assert not _titles("qwertyzzz zzyzxq")


def test_single_chinese_characters_the_segmenter_left_alone_are_one_unit():
    # A name the segmenter does not know comes out as single characters: they are matched
    # together (by their bigrams), not as words of their own.
    assert query_units(["威", "驰", "室外", "天线"]) == ["威驰", "室外", "天线"]
    assert query_units(["按摩", "垫"]) == ["按摩", "垫"]


def test_a_search_widens_only_while_it_finds_few():
    chinese = analyze_query("挖掘机装石斗")
    latin = analyze_query("lid qwertyzzz")
    # Few candidates: titles holding most of the query's characters are added...
    assert widen(NARROW, 5, chinese) == WIDER
    # ...not when the words found plenty (that pass would walk much of the catalogue).
    assert widen(NARROW, WIDEN_BELOW, chinese) is None
    # Any word or gram only when nothing was found.
    assert widen(WIDER, 3, chinese) is None
    assert widen(WIDER, 0, chinese) == RELAXED
    assert widen(NARROW, 0, latin) == RELAXED
    assert widen(NARROW, 3, latin) is None
    assert widen(RELAXED, 0, latin) is None


def test_titles_sharing_the_query_characters_are_found_when_its_words_are_not():
    title = "拇指夹挖机抓木掘抓石装夹石料机卸夹铲斗"
    listing = make_product(title=title, original_language="zh-hans")
    # This one has the query's words, so the search does find something as typed (and is
    # never relaxed to "any word"): the first listing comes by its characters.
    whole = make_product(title="挖掘机 装石斗", original_language="zh-hans")
    index(listing, whole)
    ids = [hit.product.id for hit in search_products(query="挖掘机装石斗", language="zh-hans").hits]
    assert ids == [whole.id, listing.id]


def test_a_filter_does_not_change_which_listings_are_candidates():
    # The words alone find plenty: a filter that leaves few of them does not widen the
    # search to titles sharing only characters (the country facet's count would then not
    # be what clicking it shows).
    tw = make_company(country="TW")
    cn = make_company(country="CN")
    by_characters = make_product(
        company=tw, title="拇指夹挖机抓木掘抓石装夹石料机卸夹铲斗", original_language="zh-hans"
    )
    whole = make_product(company=tw, title="挖掘机 装石斗", original_language="zh-hans")
    others = [
        make_product(company=cn, title=f"挖掘机 装石斗 {n}", original_language="zh-hans")
        for n in range(WIDEN_BELOW)
    ]
    index(by_characters, whole, *others)
    unfiltered = search_products(query="挖掘机装石斗", language="zh-hans", per_page=100)
    assert unfiltered.total == WIDEN_BELOW + 1
    country = next(f for f in unfiltered.facets if f.name == "country")
    taiwan = next(o for o in country.options if o.value == "TW")
    filtered = search_products(
        query="挖掘机装石斗", language="zh-hans", filters=ProductFilters(countries=("TW",))
    )
    assert [hit.product.id for hit in filtered.hits] == [whole.id]
    assert taiwan.count == filtered.total == 1


def test_words_not_found_are_named_in_the_script_they_were_typed_in():
    listing = make_product(title="不锈钢保温杯 500ml", original_language="zh-hans")
    index(listing)
    # Found by 保溫杯 (folded to 保温杯); 茶壺 is in no listing and is shown as typed.
    result = search_products(query="保溫杯 茶壺", language="zh-hant")
    assert [hit.product.id for hit in result.hits] == [listing.id]
    assert result.unmatched == ["茶壺"]
