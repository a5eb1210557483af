"""The search page: results, facets that narrow them, sorts, pages, tabs, notes, hostile input."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape
from urllib.parse import parse_qs, urlparse

import pytest
from django.utils import timezone

from tests.factories.catalog import make_product
from tests.factories.companies import make_company
from tests.factories.search import index as index_now
from tradepost.catalog.models import Product
from tradepost.search import indexer

pytestmark = pytest.mark.django_db

URL = "/en/search/"


def hit_ids(response) -> list[int]:
    html = response.content.decode()
    section = html.split('class="search-results"', 1)[1]
    return [
        int(i)
        for i in re.findall(
            r'class="hit-title"[^>]*><a href="/\w+(?:-\w+)?/products/(\d+)-', section
        )
    ]


def facet_href(response, facet: str, label: str) -> str:
    """The link of one facet option (by its visible label)."""
    html = response.content.decode()
    block = html.split(f'class="facet facet-{facet}"', 1)[1].split("</ul>", 1)[0]
    for href, text in re.findall(r'<a class="facet-option" href="([^"]+)"[^>]*>(.*?)</a>', block):
        if label in unescape(re.sub(r"<[^>]+>", "", text)):
            return unescape(href)
    raise AssertionError(f"no option {label!r} in facet {facet!r}:\n{block}")


def follow(client, href: str, base: str = URL):
    return client.get(base + href if href.startswith("?") else href)


# --- results ------------------------------------------------------------------------------


def test_empty_query_shows_guidance_and_is_not_indexed_by_robots(client, search_catalogue):
    response = client.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    assert '<meta name="robots" content="noindex, follow">' in html
    assert response["X-Robots-Tag"] == "noindex"
    # With no words, everything published is listed (browsing by facets).
    assert len(hit_ids(response)) == 6


def test_a_plain_keyword_page_may_be_indexed_with_its_words_as_canonical(
    client, search_catalogue, settings
):
    response = client.get(URL, {"q": "vacuum flask"})
    html = response.content.decode()
    assert "noindex" not in html and "X-Robots-Tag" not in response
    canonical = f'<link rel="canonical" href="{settings.SITE_URL}{URL}?q=vacuum+flask">'
    assert canonical in html
    assert f'hreflang="zh-Hans" href="{settings.SITE_URL}/zh-hans/search/?q=vacuum+flask"' in html


@pytest.mark.parametrize(
    "params",
    [
        {"q": "vacuum flask", "page": "2"},  # a later page
        {"q": "vacuum flask", "sort": "newest"},  # a sort
        {"q": "vacuum flask", "country": "TW"},  # a filter
        {"q": "vacuum flask", "tab": "companies"},  # another tab
        {"q": "vacuum flask", "utm_source": "mail"},  # anything else
        {"q": "zzzzqqqq"},  # nothing found
        {"q": "flask " * 20},  # too long to be a keyword
    ],
    ids=["page", "sort", "filter", "tab", "other", "nothing-found", "too-long"],
)
def test_every_other_search_stays_out_of_search_engines(client, search_catalogue, params):
    response = client.get(URL, params)
    assert response.status_code == 200
    assert '<meta name="robots" content="noindex, follow">' in response.content.decode()
    assert response["X-Robots-Tag"] == "noindex"
    assert 'rel="canonical"' not in response.content.decode()


def test_empty_index_and_empty_query_shows_the_empty_state(client, db):
    response = client.get(URL)
    assert response.status_code == 200
    assert "search-empty-query" in response.content.decode()


def test_an_english_query_finds_the_traditional_chinese_listing(client, search_catalogue):
    response = client.get(URL, {"q": "stainless steel vacuum flask"})
    assert response.status_code == 200
    found = hit_ids(response)
    assert search_catalogue.flask_tw.id in found
    assert search_catalogue.flask_en.id in found
    assert search_catalogue.mug_vn.id not in found
    html = response.content.decode()
    assert 'data-total="3"' in html
    # Highlighted title, supplier name, country and terms on the card.
    assert "<mark>Stainless</mark>" in html
    assert "台北精品股份有限公司" in html
    assert "Taiwan" in html
    assert "Keelung" in html
    assert "FOB" in html
    # The glossary expansion that was used is shown.
    assert "Also searched:" in html
    assert re.search(r'class="expansion">[^<]*[\u4e00-\u9fff]', html)


def test_the_query_stays_in_the_header_box(client, search_catalogue):
    html = client.get(URL, {"q": "mug"}).content.decode()
    assert 'id="site-search-q" type="search" name="q" value="mug"' in html


def test_titles_are_escaped_before_highlighting(client, db):
    product = make_product(title='<script>alert("x")</script> flask', original_language="en")
    indexer.apply_outbox()
    html = client.get(URL, {"q": "flask"}).content.decode()
    assert product.id in hit_ids(client.get(URL, {"q": "flask"}))
    assert '<script>alert("x")</script>' not in html
    assert "&lt;script&gt;" in html


def test_zero_hits_say_so_and_offer_the_companies_tab(client, search_catalogue):
    response = client.get(URL, {"q": "qwxzv"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "search-zero" in html
    assert "Search companies instead" in html


def test_a_misspelling_is_matched_by_spelling_and_the_page_says_so(client, search_catalogue):
    response = client.get(URL, {"q": "ceramik"})
    assert hit_ids(response) == [search_catalogue.mug_vn.id]
    assert "Also searched similar spellings of: ceramik" in response.content.decode()


def test_a_partial_match_names_the_words_not_found(client, search_catalogue):
    # No listing has "zzqx": the flasks are still found, and the page says what is missing.
    response = client.get(URL, {"q": "flask zzqx"})
    html = response.content.decode()
    assert hit_ids(response)
    assert "The best results match only part of your search. Not found: zzqx" in html
    # A query the best result matches whole says nothing of the kind.
    assert "search-partial" not in client.get(URL, {"q": "flask"}).content.decode()
    chinese = client.get("/zh-hans/search/", {"q": "flask zzqx"}).content.decode()
    assert "以下最佳结果只匹配了您搜索的一部分。未找到：zzqx" in chinese


# --- facets -------------------------------------------------------------------------------


def test_country_facet_narrows_and_unselects(client, search_catalogue):
    response = client.get(URL, {"q": "flask"})
    assert set(hit_ids(response)) == {
        search_catalogue.flask_tw.id,
        search_catalogue.flask_en.id,
        search_catalogue.flask_cn.id,
    }
    href = facet_href(response, "country", "Taiwan")
    assert parse_qs(urlparse(href).query)["country"] == ["TW"]
    narrowed = follow(client, href)
    assert hit_ids(narrowed) == [search_catalogue.flask_tw.id]
    assert 'aria-checked="true"' in narrowed.content.decode()
    # Several countries mean any of them; the selected one unselects.
    both = client.get(URL, {"q": "flask", "country": ["TW", "US"]})
    assert set(hit_ids(both)) == {search_catalogue.flask_tw.id, search_catalogue.flask_en.id}
    assert parse_qs(urlparse(facet_href(both, "country", "Taiwan")).query)["country"] == ["US"]
    back = follow(client, facet_href(narrowed, "country", "Taiwan"))
    assert len(hit_ids(back)) == 3


def test_after_choosing_a_country_the_others_can_still_be_added(client, search_catalogue):
    narrowed = client.get(URL, {"q": "flask", "country": "TW"})
    assert hit_ids(narrowed) == [search_catalogue.flask_tw.id]
    # The country facet is counted without its own filter: the other countries stay, with
    # their counts, and their links add to the selection.
    block = narrowed.content.decode().split('class="facet facet-country"', 1)[1]
    block = block.split("</ul>", 1)[0]
    assert "United States" in block and "China" in block
    added = follow(client, facet_href(narrowed, "country", "United States"))
    assert parse_qs(urlparse(facet_href(narrowed, "country", "United States")).query)[
        "country"
    ] == ["TW", "US"]
    assert set(hit_ids(added)) == {search_catalogue.flask_tw.id, search_catalogue.flask_en.id}


def test_price_band_verified_moq_lead_time_and_language_facets(client, search_catalogue):
    response = client.get(URL)
    cheap = follow(client, facet_href(response, "price", "US$1–5"))
    assert search_catalogue.flask_cn.id in hit_ids(cheap)
    assert search_catalogue.flask_en.id not in hit_ids(cheap)
    verified = follow(client, facet_href(response, "verified", "Verified"))
    assert hit_ids(verified) == [search_catalogue.flask_cn.id]
    moq = follow(client, facet_href(response, "moq_max", "At most 100"))
    assert set(hit_ids(moq)) == {search_catalogue.flask_en.id, search_catalogue.pen_cn.id}
    lead = follow(client, facet_href(response, "lead_time_max", "Within 15 days"))
    assert set(hit_ids(lead)) == {search_catalogue.flask_en.id, search_catalogue.flask_cn.id}
    language = follow(client, facet_href(response, "language", "Traditional"))
    assert hit_ids(language) == [search_catalogue.flask_tw.id]
    incoterm = follow(client, facet_href(response, "incoterm", "CIF"))
    assert hit_ids(incoterm) == [search_catalogue.mug_vn.id]


def test_category_facet_narrows_to_the_subtree_and_shows_the_path(client, search_catalogue):
    response = client.get(URL)
    top = follow(client, facet_href(response, "category", "Drinkware"))
    assert len(hit_ids(top)) == 4
    flasks = follow(client, facet_href(top, "category", "Vacuum flasks"))
    assert search_catalogue.mug_vn.id not in hit_ids(flasks)
    html = flasks.content.decode()
    assert "facet-category-path" in html and "Drinkware" in html


def test_facets_combine_and_keep_the_query_and_sort(client, search_catalogue):
    response = client.get(URL, {"q": "flask", "sort": "price_desc", "country": "CN"})
    href = facet_href(response, "price", "US$1–5")
    params = parse_qs(urlparse(href).query)
    assert params["q"] == ["flask"]
    assert params["sort"] == ["price_desc"]
    assert params["country"] == ["CN"]
    assert params["price_min"] == ["1"] and params["price_max"] == ["5"]
    assert hit_ids(follow(client, href)) == [search_catalogue.flask_cn.id]


def test_custom_price_range_form(client, search_catalogue):
    response = client.get(URL, {"q": "flask", "price_min": "2", "price_max": "20"})
    # NT$300–450 (about US$10–14) and CN¥18–25 (about US$2.5–3.5); not the US$45 flask.
    assert set(hit_ids(response)) == {search_catalogue.flask_tw.id, search_catalogue.flask_cn.id}
    assert 'id="price-min"' in response.content.decode()


# --- sorts and pages ----------------------------------------------------------------------


def test_sort_orders(client, search_catalogue):
    for days, product in enumerate(
        [search_catalogue.flask_en, search_catalogue.mug_vn, search_catalogue.flask_cn]
    ):
        Product.objects.filter(pk=product.pk).update(
            published_at=timezone.now() - timedelta(days=days + 1)
        )
    index_now(search_catalogue.flask_en, search_catalogue.mug_vn, search_catalogue.flask_cn)
    cheapest_first = hit_ids(client.get(URL, {"sort": "price_asc"}))
    assert cheapest_first[0] == search_catalogue.mug_vn.id
    # The dearest priced listing, then the one without a price.
    assert cheapest_first[-2:] == [search_catalogue.flask_en.id, search_catalogue.pen_en.id]
    dearest_first = hit_ids(client.get(URL, {"sort": "price_desc"}))
    assert dearest_first[0] == search_catalogue.flask_en.id
    newest = hit_ids(client.get(URL, {"sort": "newest"}))
    assert search_catalogue.flask_tw.id in newest[:3]
    assert newest[3:] == [
        search_catalogue.flask_en.id,
        search_catalogue.mug_vn.id,
        search_catalogue.flask_cn.id,
    ]


def test_twenty_per_page_with_links(client, db):
    company = make_company(country="DE")
    for n in range(25):
        make_product(company=company, title=f"Garden hose reel model {n}", original_language="en")
    indexer.apply_outbox()
    first = client.get(URL, {"q": "garden hose"})
    assert len(hit_ids(first)) == 20
    html = first.content.decode()
    assert "Page 1 of 2" in html
    next_href = unescape(re.search(r'rel="next" href="([^"]+)"', html).group(1))
    assert parse_qs(urlparse(next_href).query) == {"q": ["garden hose"], "page": ["2"]}
    second = follow(client, next_href)
    assert len(hit_ids(second)) == 5
    assert set(hit_ids(second)).isdisjoint(hit_ids(first))
    assert 'rel="prev"' in second.content.decode()


def test_a_page_past_the_end_says_so_and_links_to_the_last_page(client, db):
    company = make_company(country="DE")
    for n in range(24):
        make_product(company=company, title=f"Vacuum flask model {n}", original_language="en")
    indexer.apply_outbox()
    response = client.get(URL, {"q": "vacuum flask", "page": "99999"})
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-total="24"' in html
    assert hit_ids(response) == []
    # Never "nothing matches" when there are results: the page is past their end.
    assert "search-zero" not in html
    assert "Nothing matches" not in html
    assert "This page is past the end of the 24 results." in html
    block = html.split('class="empty past-end"', 1)[1].split("</div>", 1)[0]
    last, first = (unescape(href) for href in re.findall(r'<a href="([^"]+)"', block))
    assert parse_qs(urlparse(last).query) == {"q": ["vacuum flask"], "page": ["2"]}
    assert parse_qs(urlparse(first).query) == {"q": ["vacuum flask"]}
    assert "Go to the last page (page 2)" in block
    assert len(hit_ids(follow(client, last))) == 4
    assert len(hit_ids(follow(client, first))) == 20
    chinese = client.get("/zh-hans/search/", {"q": "vacuum flask", "page": "99999"})
    assert "此页已超出全部 24 个结果的范围。" in chinese.content.decode()


def test_an_empty_companies_tab_does_not_claim_similar_spellings(client, search_catalogue):
    # "ceramik" is spelt like Hanoi Ceramics' name, but no American company matches it.
    found = client.get(URL, {"q": "ceramik", "tab": "companies"}).content.decode()
    assert "/companies/hanoi-ceramics/" in found
    assert "Also searched similar spellings of: ceramik" in found
    response = client.get(URL, {"q": "ceramik", "tab": "companies", "country": "US"})
    html = response.content.decode()
    assert "search-zero" in html
    assert "Nothing matches" in html
    assert "similar spellings" not in html


# --- tabs ---------------------------------------------------------------------------------


def test_companies_tab_lists_matching_companies(client, search_catalogue):
    response = client.get(URL, {"q": "drinkware", "tab": "companies"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "/companies/ohio-drinkware/" in html
    assert "<mark>Drinkware</mark>" in html
    assert "taipei-fine" not in html
    assert 'aria-current="page">Companies' in html


def test_companies_tab_country_facet(client, search_catalogue):
    response = client.get(URL, {"tab": "companies"})
    narrowed = follow(client, facet_href(response, "country", "Viet"))
    html = narrowed.content.decode()
    assert "/companies/hanoi-ceramics/" in html
    assert "/companies/ohio-drinkware/" not in html


def test_header_has_one_search_box_with_tabs_on_every_page(client, search_catalogue):
    for path in ("/en/", "/en/categories/", "/zh-hant/"):
        html = client.get(path).content.decode()
        assert html.count('role="search" method="get"') == 1
        assert 'name="tab"' in html and 'value="companies"' in html
        assert "/search/" in html


# --- languages ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prefix", "taiwan"), [("en", "Taiwan"), ("zh-hans", "台湾"), ("zh-hant", "台灣")]
)
def test_every_ui_language_renders(client, search_catalogue, prefix, taiwan):
    response = client.get(f"/{prefix}/search/", {"q": "保温瓶"})
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<html lang="{prefix}">' in html
    assert search_catalogue.flask_tw.id in hit_ids(response)
    assert taiwan in html


# --- hostile input and query counts -------------------------------------------------------

HOSTILE_QUERIES = [
    "x" * 10_000,
    "\x01\x1b[31m flask \x7f",
    "!!!???...,,,",
    '"',
    "*",
    ":",
    "(",
    "AND",
    "flask AND OR NOT",
    "' OR 1=1 --",
    "'; DROP TABLE catalog_product; --",
    "<script>alert(1)</script>",
    "",
    "   ",
]


@pytest.mark.parametrize("tab", ["products", "companies"])
@pytest.mark.parametrize("query", HOSTILE_QUERIES)
def test_hostile_queries_never_fail(client, search_catalogue, query, tab):
    response = client.get(URL, {"q": query, "tab": tab})
    assert response.status_code == 200
    assert "<script>alert(1)</script>" not in response.content.decode()


@pytest.mark.parametrize(
    "raw",
    [
        "q=%ED%A0%80",
        "q=%ED%A0%80flask%F0%9F",
        "q=%FF%FE",
        "price_min=abc&price_max=-5&page=-3",
        "page=abc&sort=nonsense&tab=nonsense",
        "page=999999999999999999999999",
        "page=%C2%B2&tab=companies",
        "country=%3Cscript%3E&language=xx&incoterm=%22&category=-1&moq_max=1e999",
        "lead_time_max=NaN&verified=maybe&category=99999999999999999999",
        "country=%ED%A0%80&tab=companies&business_type=%3Cb%3E",
    ],
)
def test_hostile_parameters_never_fail(client, search_catalogue, raw):
    response = client.get(f"{URL}?{raw}")
    assert response.status_code == 200


@pytest.mark.parametrize("raw", ["q=%00", "q=flask%00", "category=a%00b", "country=%00"])
def test_a_nul_in_a_parameter_is_a_clear_400_page(client, search_catalogue, raw):
    # PostgreSQL cannot compare NUL characters, SQLite can: refused alike, before any search.
    response = client.get(f"{URL}?{raw}")
    assert response.status_code == 400
    assert "It holds a character that is not allowed" in response.content.decode()
    assert "<script>" not in response.content.decode().split("</head>", 1)[1].replace(
        "&lt;script&gt;", ""
    )


def test_query_count_is_bounded(client, search_catalogue, django_assert_max_num_queries):
    client.get(URL, {"q": "flask"})  # warm the category tree cache
    with django_assert_max_num_queries(6):
        response = client.get(URL, {"q": "flask", "country": "TW"})
    assert response.status_code == 200
    with django_assert_max_num_queries(4):
        client.get(URL, {"q": "drinkware", "tab": "companies"})


def _expansions(html: str) -> list[str]:
    return re.findall(r'class="expansion"[^>]*>([^<]*)</span>', html)


def test_the_expansions_are_shown_in_the_pages_chinese_script(client, search_catalogue):
    """The glossary keeps its words in Simplified Chinese; a Traditional page shows them
    converted (OpenCC), a Simplified or English page as they are."""
    from tradepost.core.chinese_scripts import convert_script

    query = {"q": "stainless steel vacuum flask"}
    kept = _expansions(client.get(URL, query).content.decode())
    assert any(re.search(r"[\u4e00-\u9fff]", label) for label in kept)
    assert _expansions(client.get("/zh-hans/search/", query).content.decode()) == kept
    traditional = _expansions(client.get("/zh-hant/search/", query).content.decode())
    assert traditional == [
        convert_script(label, written_in="zh-hans", reader="zh-hant") for label in kept
    ]
    assert traditional != kept  # 保温瓶 is 保溫瓶 in Traditional script
