"""The search API: products and companies with facets, suggestions, and 422 for bad input."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

PRODUCTS = "/api/v1/search/products"
COMPANIES = "/api/v1/search/companies"
SUGGEST = "/api/v1/search/suggest"


def hit_ids(response) -> list[int]:
    return [hit["id"] for hit in response.json()["items"]]


def test_product_search_answers_with_hits_facets_and_expansions(client, search_catalogue):
    response = client.get(PRODUCTS, {"q": "stainless steel vacuum flask"})
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 3
    assert body["page"] == 1 and body["next_page"] is None and body["page_size"] == 20
    assert body["expansions"]
    assert body["fuzzy_used"] is False
    hit = next(h for h in body["items"] if h["id"] == search_catalogue.flask_tw.id)
    assert hit["title"] == "不鏽鋼保溫瓶 1000ml"
    assert "<mark>" in hit["title_html"]
    assert (
        hit["url"].startswith("http") and f"/products/{search_catalogue.flask_tw.id}-" in hit["url"]
    )
    assert hit["supplier"]["name"] == "台北精品股份有限公司"
    assert hit["supplier"]["country"] == "TW"
    assert hit["supplier"]["verified"] is False
    assert hit["price_min"] == "300.00" and hit["price_max"] == "450.00"
    assert hit["currency"] == "TWD" and hit["incoterms"] == ["FOB"]
    assert hit["moq"] == "1000" and hit["lead_time_days"] == 30
    facets = {facet["name"]: facet for facet in body["facets"]}
    countries = {option["value"]: option for option in facets["country"]["options"]}
    assert countries["TW"]["count"] == 1 and countries["TW"]["label"] == "Taiwan"
    assert countries["TW"]["params"] == {"country": "TW"}


def test_filters_sort_and_paging(client, search_catalogue):
    assert hit_ids(client.get(PRODUCTS, {"q": "flask", "country": "TW"})) == [
        search_catalogue.flask_tw.id
    ]
    cheap = {"q": "flask", "country": "cn,us", "price_max": "5"}
    assert hit_ids(client.get(PRODUCTS, cheap)) == [search_catalogue.flask_cn.id]
    assert hit_ids(client.get(PRODUCTS, {"verified": "true"})) == [search_catalogue.flask_cn.id]
    assert hit_ids(client.get(PRODUCTS, {"language": "zh-hant"})) == [search_catalogue.flask_tw.id]
    assert hit_ids(client.get(PRODUCTS, {"incoterm": "DDP"})) == [search_catalogue.flask_en.id]
    assert set(hit_ids(client.get(PRODUCTS, {"moq_max": "100"}))) == {
        search_catalogue.flask_en.id,
        search_catalogue.pen_cn.id,
    }
    assert hit_ids(client.get(PRODUCTS, {"lead_time_max": "10"})) == [search_catalogue.flask_en.id]
    flasks = [
        search_catalogue.flask_cn.id,
        search_catalogue.flask_tw.id,
        search_catalogue.flask_en.id,
    ]
    assert hit_ids(client.get(PRODUCTS, {"q": "flask", "sort": "price_asc"})) == flasks
    assert hit_ids(client.get(PRODUCTS, {"q": "flask", "sort": "price_desc"})) == flasks[::-1]
    cheapest = {"q": "flask", "sort": "price_asc", "page_size": 1}
    first = client.get(PRODUCTS, cheapest).json()
    second = client.get(PRODUCTS, {**cheapest, "page": 2}).json()
    assert first["next_page"] == 2 and first["count"] == 3
    assert [h["id"] for h in first["items"] + second["items"]] == flasks[:2]


def test_labels_follow_the_requested_language(client, search_catalogue):
    body = client.get(PRODUCTS, {"q": "flask", "lang": "zh-hant"}).json()
    facets = {facet["name"]: facet for facet in body["facets"]}
    labels = {option["value"]: option["label"] for option in facets["country"]["options"]}
    assert labels["TW"] == "台灣"


def test_company_search(client, search_catalogue):
    response = client.get(COMPANIES, {"q": "drinkware"})
    assert response.status_code == 200
    body = response.json()
    assert [hit["slug"] for hit in body["items"]] == ["ohio-drinkware"]
    assert body["items"][0]["verified"] is False
    assert "<mark>" in body["items"][0]["name_html"]
    assert {facet["name"] for facet in body["facets"]} >= {"country", "verified"}
    by_country = client.get(COMPANIES, {"country": "TW"}).json()
    assert [hit["slug"] for hit in by_country["items"]] == ["taipei-fine"]
    verified = client.get(COMPANIES, {"verified": "true"}).json()
    assert [(hit["slug"], hit["verified"]) for hit in verified["items"]] == [
        ("ningbo-hengda", True)
    ]


def test_suggest(client, search_catalogue):
    response = client.get(SUGGEST, {"q": "stain", "language": "en"})
    assert response.status_code == 200
    suggestions = response.json()["suggestions"]
    assert suggestions and all(s.startswith("stain") for s in suggestions)
    assert client.get(SUGGEST, {"q": ""}).json() == {"suggestions": []}
    traditional = client.get(SUGGEST, {"q": "不锈", "language": "zh-hant"}).json()
    assert any(s.startswith("不鏽") for s in traditional["suggestions"])


@pytest.mark.parametrize(
    "params",
    [
        {"price_min": "abc"},
        {"price_min": "-1"},
        {"price_min": "9", "price_max": "2"},
        {"page": "-3"},
        {"page": "0"},
        {"page": "abc"},
        {"page": "101"},
        {"page_size": "51"},
        {"page_size": "0"},
        {"sort": "random"},
        {"country": "<script>"},
        {"country": "XX"},
        {"language": "klingon"},
        {"incoterm": "FOO"},
        {"category": "-1"},
        {"category": "99999999999999999999999"},
        {"moq_max": "1e999"},
        {"lead_time_max": "NaN"},
        {"lang": "fr"},
    ],
)
def test_bad_product_parameters_are_422_problems(client, search_catalogue, params):
    response = client.get(PRODUCTS, params)
    assert response.status_code == 422, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == 422
    assert body["errors"]


@pytest.mark.parametrize(
    ("path", "params"),
    [
        (COMPANIES, {"country": "<script>"}),
        (COMPANIES, {"business_type": "<b>"}),
        (COMPANIES, {"page_size": "500"}),
        (SUGGEST, {"limit": "0"}),
        (SUGGEST, {"language": "xx"}),
    ],
)
def test_bad_company_and_suggest_parameters_are_422_problems(
    client, search_catalogue, path, params
):
    response = client.get(path, params)
    assert response.status_code == 422
    assert response.json()["status"] == 422


HOSTILE = [
    "x" * 10_000,
    "\x01\x1b[31m flask \x7f",
    "!!!???...",
    '"',
    "*",
    ":",
    "(",
    "AND",
    "' OR 1=1 --",
    "<script>alert(1)</script>",
    "",
]


@pytest.mark.parametrize("path", [PRODUCTS, COMPANIES, SUGGEST])
@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_fail(client, search_catalogue, path, query):
    response = client.get(path, {"q": query})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")


@pytest.mark.parametrize("path", [PRODUCTS, COMPANIES, SUGGEST])
@pytest.mark.parametrize("raw", ["q=%ED%A0%80", "q=%ED%A0%80flask%F0%9F", "q=%FF"])
def test_broken_encodings_never_fail(client, search_catalogue, path, raw):
    response = client.get(f"{path}?{raw}")
    assert response.status_code == 200


@pytest.mark.parametrize("path", [PRODUCTS, COMPANIES, SUGGEST])
@pytest.mark.parametrize("raw", ["q=%00", "q=fl%00ask%01", "sort=%00"])
def test_a_nul_in_a_parameter_is_refused_on_every_database(client, search_catalogue, path, raw):
    # PostgreSQL cannot store or compare NUL characters, SQLite can: refused alike, up front.
    response = client.get(f"{path}?{raw}")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"


def test_query_count_is_bounded(client, search_catalogue, django_assert_max_num_queries):
    client.get(PRODUCTS, {"q": "flask"})
    with django_assert_max_num_queries(5):
        assert client.get(PRODUCTS, {"q": "flask"}).status_code == 200
    with django_assert_max_num_queries(3):
        assert client.get(COMPANIES, {"q": "drinkware"}).status_code == 200


def test_a_selected_country_still_lists_the_other_countries(client, search_catalogue):
    body = client.get(PRODUCTS, {"q": "vacuum flask", "country": "TW"}).json()
    assert hit_ids_of(body) == [search_catalogue.flask_tw.id]
    countries = {o["value"]: (o["count"], o["selected"]) for o in _facet_of(body, "country")}
    assert countries == {"CN": (1, False), "TW": (1, True), "US": (1, False)}
    both = client.get(PRODUCTS, {"q": "vacuum flask", "country": "TW,US"}).json()
    assert both["count"] == 2


def test_hit_links_are_the_pages_reverse_gives(client, search_catalogue):
    from django.urls import reverse
    from django.utils import translation

    body = client.get(PRODUCTS, {"q": "vacuum flask", "lang": "en"}).json()
    hit = next(h for h in body["items"] if h["id"] == search_catalogue.flask_en.id)
    with translation.override("en"):
        product_path = reverse(
            "catalog:product_detail",
            args=[search_catalogue.flask_en.id, search_catalogue.flask_en.slug],
        )
        company_path = reverse("catalog:company_detail", args=["ohio-drinkware"])
    assert hit["url"] == f"http://testserver{product_path}"
    assert hit["supplier"]["url"] == f"http://testserver{company_path}"
    companies = client.get(COMPANIES, {"q": "ohio"}).json()
    assert companies["items"][0]["url"] == f"http://testserver{company_path}"


def test_newest_and_fuzzy_through_the_api(client, search_catalogue):
    newest = client.get(PRODUCTS, {"sort": "newest"}).json()
    assert hit_ids_of(newest) == [product.id for product in reversed(search_catalogue.products)]
    fuzzy = client.get(PRODUCTS, {"q": "stainles flsk"}).json()
    assert fuzzy["fuzzy_used"] is True
    assert set(fuzzy["respelled"]) == {"stainles", "flsk"}
    assert search_catalogue.flask_en.id in hit_ids_of(fuzzy)


def test_partial_matches_say_which_words_were_not_found(client, search_catalogue):
    # "qzzxw" is in no listing and has no spelling neighbour: the flask is still found, and
    # the answer names the word the best result lacks (as typed, not as a stem).
    body = client.get(PRODUCTS, {"q": "vacuum flask with qzzxw"}).json()
    assert set(hit_ids_of(body)) == {
        search_catalogue.flask_cn.id,
        search_catalogue.flask_en.id,
        search_catalogue.flask_tw.id,
    }
    assert body["unmatched"] == ["qzzxw"]
    whole = client.get(PRODUCTS, {"q": "vacuum flasks"}).json()
    assert whole["unmatched"] == [] and whole["respelled"] == []
    companies = client.get(COMPANIES, {"q": "ohio qzzxw"}).json()
    assert companies["items"] and companies["unmatched"] == ["qzzxw"]


def hit_ids_of(body) -> list[int]:
    return [hit["id"] for hit in body["items"]]


def _facet_of(body, name):
    return next(f for f in body["facets"] if f["name"] == name)["options"]


def test_a_word_nothing_is_spelt_like_is_not_said_to_be_respelled(client, search_catalogue):
    body = client.get(PRODUCTS, {"q": "vacuum flask zorblexian"}).json()
    assert body["fuzzy_used"] is True  # looked for...
    assert body["respelled"] == []  # ...and not found
    assert body["unmatched"] == ["zorblexian"]


@pytest.mark.parametrize("sort", ["relevance", "newest", "price_asc", "price_desc"])
@pytest.mark.parametrize("query", ["", "flask", "zzqxnothing"])
def test_pages_past_the_end_are_empty_not_errors(client, search_catalogue, sort, query):
    for page in (2, 50, 100):
        response = client.get(PRODUCTS, {"q": query, "sort": sort, "page": page})
        assert response.status_code == 200, (query, sort, page)
        assert response.json()["items"] == []
    # Beyond the last page served: a clear 422, not a 500.
    response = client.get(PRODUCTS, {"q": query, "sort": sort, "page": 1000})
    assert response.status_code == 422
    assert response["Content-Type"] == "application/problem+json"


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/search/requests?page=50",
        "/api/v1/search/requests?q=zzqx&page=3&sort=newest",
        "/api/v1/search/companies?q=zzqx&page=7",
        "/en/search/?tab=requests&page=1000",
        "/en/search/?q=zzqxnothing&page=2&sort=newest",
        "/en/search/?tab=companies&page=999",
    ],
)
def test_other_searches_past_the_end_are_not_errors(client, search_catalogue, url):
    assert client.get(url).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["business_type=", "country=", "country=CN,"])
def test_an_empty_filter_code_is_refused_as_the_schema_says(client, query):
    response = client.get(f"/api/v1/search/companies?{query}")
    assert response.status_code == 422
    assert response["Content-Type"] == "application/problem+json"
