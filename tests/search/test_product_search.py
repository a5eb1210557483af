"""Product search: matching across scripts and languages, filters, facets, sorts, relevance."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.factories.catalog import make_product
from tests.factories.search import index
from tradepost.catalog.models import Product, ProductImage, ProductStatus
from tradepost.search.selectors import (
    MAX_PAGE,
    ProductFilters,
    parse_product_filters,
    search_products,
)

pytestmark = pytest.mark.django_db


def ids(result) -> list[int]:
    return [hit.product.id for hit in result.hits]


def search(query: str = "", **kwargs):
    kwargs.setdefault("language", "en")
    return search_products(query=query, **kwargs)


# --- matching -------------------------------------------------------------------------------


def test_an_empty_query_lists_every_published_product(search_catalogue):
    result = search("")
    assert result.total == 6
    assert len(result.hits) == 6


def test_english_words_match_with_stemming_and_case(search_catalogue):
    assert ids(search("VACUUM FLASKS"))[0] == search_catalogue.flask_en.id
    assert search_catalogue.mug_vn.id in ids(search("mugs"))


def test_traditional_query_finds_simplified_title_and_back(search_catalogue):
    assert search_catalogue.flask_cn.id in ids(search("不鏽鋼保溫杯"))
    assert search_catalogue.flask_tw.id in ids(search("不锈钢保温瓶"))
    assert search_catalogue.pen_cn.id in ids(search("鋼筆"))


def test_a_query_cut_differently_by_the_segmenter_still_matches(search_catalogue):
    # "钢保温" is not a word; its bigrams are all in the title.
    assert search_catalogue.flask_cn.id in ids(search("钢保温"))


def test_full_width_and_units_are_searchable(search_catalogue):
    assert search_catalogue.flask_cn.id in ids(search("５００ＭＬ"))
    assert search_catalogue.flask_tw.id in ids(search("1000ml"))


def test_english_query_finds_chinese_listings_through_the_glossary(search_catalogue):
    result = search("stainless steel vacuum flask")
    found = ids(result)
    assert found[0] == search_catalogue.flask_en.id  # the exact match in the query's language first
    assert search_catalogue.flask_cn.id in found
    assert search_catalogue.flask_tw.id in found
    assert search_catalogue.mug_vn.id not in found
    assert result.expansions  # shown as "also searched: ..."


def test_direct_matches_rank_above_glossary_matches(search_catalogue):
    found = ids(search("保温杯"))
    assert found.index(search_catalogue.flask_cn.id) < found.index(search_catalogue.flask_en.id)
    found = ids(search("vacuum flask"))
    assert found.index(search_catalogue.flask_en.id) < found.index(search_catalogue.flask_cn.id)


def test_chinese_query_finds_english_listing_through_the_glossary(search_catalogue):
    result = search("圆珠笔")
    assert search_catalogue.pen_en.id in ids(result)
    assert any("ballpoint" in label for label in result.expansions)


def test_a_misspelt_word_gets_a_fuzzy_retry(search_catalogue):
    exact = search("ceramic")
    assert not exact.fuzzy_used
    result = search("ceramik")
    assert result.fuzzy_used
    assert ids(result) == [search_catalogue.mug_vn.id]


def test_an_unmatched_query_says_nothing_was_found(search_catalogue):
    result = search("xylophone")
    assert result.total == 0
    assert result.hits == []


def test_drafts_are_never_found(search_catalogue):
    assert all(hit.product.status == ProductStatus.PUBLISHED for hit in search("flask").hits)


def test_a_product_unpublished_but_not_yet_reindexed_is_not_shown(search_catalogue):
    Product.objects.filter(id=search_catalogue.mug_vn.id).update(status=ProductStatus.HIDDEN)
    assert search_catalogue.mug_vn.id not in ids(search("mug"))


# --- relevance ------------------------------------------------------------------------------


def test_title_matches_rank_above_description_matches():
    title = make_product(title="Bamboo toothbrush", description="Eco friendly.")
    described = make_product(title="Travel kit", description="Includes a bamboo toothbrush.")
    index(title, described)
    assert ids(search("bamboo toothbrush")) == [title.id, described.id]


def test_an_exact_phrase_ranks_above_scattered_words():
    in_order = make_product(title="Red wine glass and cotton bag")
    apart = make_product(title="Cotton bag with red wine print glass")
    shuffled = make_product(title="Wine glass red")
    index(in_order, apart, shuffled)
    found = ids(search("red wine glass"))
    assert found[0] == in_order.id
    assert set(found) == {in_order.id, apart.id, shuffled.id}


def test_listing_quality_breaks_ties_without_hiding_anyone():
    plain = make_product(title="Yoga mat")
    complete = make_product(
        title="Yoga mat",
        description="Non-slip TPE yoga mat, 6 mm thick, with carrying strap. " * 5,
        attributes=[{"name": "Material", "value": "TPE"}, {"name": "Thickness", "value": "6mm"}],
        lead_time_days=10,
    )
    ProductImage.objects.bulk_create(
        [ProductImage(product=complete, image="a.jpg", thumbnail="t.jpg", width=1, height=1)]
    )
    index(plain, complete)
    assert ids(search("yoga mat")) == [complete.id, plain.id]


# --- filters and facets ----------------------------------------------------------------------


def facet(result, name: str) -> dict[str, int]:
    return {o.value: o.count for f in result.facets if f.name == name for o in f.options}


def test_facets_count_the_matching_products(search_catalogue):
    result = search("")
    assert facet(result, "category") == {
        str(search_catalogue.drinkware.id): 4,
        str(search_catalogue.stationery.id): 2,
    }
    assert facet(result, "country") == {"CN": 3, "TW": 1, "US": 1, "VN": 1}
    assert facet(result, "verified") == {"1": 1}
    assert facet(result, "language") == {"en": 3, "zh-hans": 2, "zh-hant": 1}
    assert facet(result, "incoterm") == {"FOB": 3, "EXW": 1, "CIF": 1, "DDP": 1}
    assert facet(result, "moq_max") == {"100": 2, "500": 3, "1000": 4, "5000": 5}
    # USD: mug 0.8, flask_cn ~2.5, pen_cn 5, flask_tw ~10, flask_en 45; the pen has no price.
    assert facet(result, "price") == {"-1": 1, "1-5": 1, "5-20": 2, "20-100": 1}
    assert facet(result, "lead_time_max") == {"7": 1, "15": 2, "30": 3, "60": 4}


def test_the_category_facet_lists_the_children_of_the_chosen_category(search_catalogue):
    result = search("", filters=ProductFilters(category_id=search_catalogue.drinkware.id))
    assert result.total == 4
    assert facet(result, "category") == {
        str(search_catalogue.flasks.id): 3,
        str(search_catalogue.mugs.id): 1,
    }
    labels = {o.label for f in result.facets if f.name == "category" for o in f.options}
    assert labels == {"Vacuum flasks", "Mugs"}


def test_facet_labels_are_in_the_viewers_language(search_catalogue):
    result = search("", language="zh-hans")
    categories = {o.label for f in result.facets if f.name == "category" for o in f.options}
    assert categories == {"饮具", "文具"}
    countries = {o.value: o.label for f in result.facets if f.name == "country" for o in f.options}
    assert countries["CN"] == "中国"


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"countries": ("CN",)}, {"flask_cn", "pen_en", "pen_cn"}),
        ({"countries": ("TW", "US")}, {"flask_tw", "flask_en"}),
        ({"verified_only": True}, {"flask_cn"}),
        ({"languages": ("zh-hant",)}, {"flask_tw"}),
        ({"incoterms": ("CIF", "DDP")}, {"mug_vn", "flask_en"}),
        ({"moq_max": 500}, {"flask_cn", "flask_en", "pen_cn"}),
        ({"price_min_usd": 5, "price_max_usd": 20}, {"pen_cn", "flask_tw"}),
        ({"price_max_usd": 1}, {"mug_vn"}),
        ({"lead_time_max": 15}, {"flask_cn", "flask_en"}),
    ],
)
def test_filters(search_catalogue, filters, expected):
    result = search("", filters=ProductFilters(**filters))
    assert {name for name in expected} == {
        name
        for name in vars(search_catalogue)
        if isinstance(getattr(search_catalogue, name), Product)
        and getattr(search_catalogue, name).id in ids(result)
    }
    assert result.total == len(expected)


def test_category_filter_covers_the_subtree_and_combines_with_text(search_catalogue):
    result = search("stainless", filters=ProductFilters(category_id=search_catalogue.drinkware.id))
    assert set(ids(result)) == {
        search_catalogue.flask_cn.id,
        search_catalogue.flask_tw.id,
        search_catalogue.flask_en.id,
    }
    assert search("", filters=ProductFilters(category_id=search_catalogue.pens.id)).total == 2
    assert search("", filters=ProductFilters(category_id=999_999)).total == 0


def test_parse_product_filters_drops_bad_values():
    filters = parse_product_filters(
        {
            "category": "12",
            "country": ["cn", "ZZ", "<script>", "tw"],
            "verified": "1",
            "language": "zh-hant,xx",
            "incoterm": "fob,ABC",
            "moq_max": "-5",
            "price_min": "nan",
            "price_max": "1e400",
            "lead_time_max": "30",
            "company": "'; DROP TABLE",
        }
    )
    assert filters == ProductFilters(
        category_id=12,
        countries=("CN", "TW"),
        verified_only=True,
        languages=("zh-hant",),
        incoterms=("FOB",),
        lead_time_max=30,
    )


# --- sorts and pages -------------------------------------------------------------------------


def test_sort_by_price_puts_unpriced_listings_last_both_ways(search_catalogue):
    ascending = ids(search("", sort="price_asc"))
    assert ascending == [
        search_catalogue.mug_vn.id,
        search_catalogue.flask_cn.id,
        search_catalogue.pen_cn.id,
        search_catalogue.flask_tw.id,
        search_catalogue.flask_en.id,
        search_catalogue.pen_en.id,
    ]
    descending = ids(search("", sort="price_desc"))
    assert descending[:5] == list(reversed(ascending[:5]))
    assert descending[-1] == search_catalogue.pen_en.id


def test_sort_by_newest(search_catalogue):
    Product.objects.filter(id=search_catalogue.mug_vn.id).update(
        published_at=timezone.now() + timezone.timedelta(days=1)
    )
    index(search_catalogue.mug_vn)
    assert ids(search("", sort="newest"))[0] == search_catalogue.mug_vn.id


def test_pages_and_unknown_sort(search_catalogue):
    first = search("", per_page=4, sort="bogus")
    second = search("", per_page=4, page=2)
    assert first.sort == "relevance"
    assert len(first.hits) == 4 and len(second.hits) == 2
    assert not set(ids(first)) & set(ids(second))
    assert first.num_pages == 2
    assert search("", page=10**9).page == MAX_PAGE
    assert search("", page="x", per_page="y").page == 1


def test_hits_are_hydrated_in_a_few_queries(search_catalogue):
    more = [make_product(title=f"Glass water bottle {n}") for n in range(25)]
    index(*more)
    search("bottle")  # warm the category cache
    with CaptureQueriesContext(connection) as queries:
        result = search("bottle", language="zh-hant")
    assert len(result.hits) == 20
    assert len(queries) <= 3  # products with company and category, images, translations


# --- highlighting ----------------------------------------------------------------------------


def test_titles_are_highlighted_in_the_script_they_are_written_in(search_catalogue):
    result = search("不锈钢保温瓶")
    by_id = {hit.product.id: str(hit.title_html) for hit in result.hits}
    assert "<mark>不鏽鋼保溫瓶</mark>" in by_id[search_catalogue.flask_tw.id]
    result = search("vacuum flasks")
    assert str(result.hits[0].title_html) == (
        "Stainless steel <mark>vacuum</mark> <mark>flask</mark> with handle"
    )


def test_highlighted_titles_are_escaped():
    product = make_product(title="<b>Glass</b> & jar")
    index(product)
    assert (
        str(search("glass").hits[0].title_html) == "&lt;b&gt;<mark>Glass</mark>&lt;/b&gt; &amp; jar"
    )
