"""The "Buying requests" tab of the search page and GET /api/v1/search/requests."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.urls import reverse
from django.utils import translation

pytestmark = pytest.mark.django_db

API = "/api/v1/search/requests"


@pytest.mark.parametrize("prefix", ["en", "zh-hans", "zh-hant"])
def test_requests_tab_finds_a_chinese_request_in_english_in_every_ui_language(
    client, request_board, prefix
):
    response = client.get(
        f"/{prefix}/search/", {"q": "stainless steel vacuum flask", "tab": "requests"}
    )
    assert response.status_code == 200
    html = response.content.decode()
    with translation.override(prefix):
        assert reverse("sourcing:request_detail", args=[request_board["chinese"].pk]) in html
    assert 'aria-current="page"' in html
    assert "closed" not in html.split('class="search-results"')[1]
    assert request_board["chinese"].buyer.legal_name not in html


def test_requests_tab_lists_open_requests_with_facets_and_links(client, request_board):
    response = client.get("/en/search/", {"tab": "requests", "sort": "newest"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "2 open buying requests" in html
    assert reverse("sourcing:request_detail", args=[request_board["pens"].pk]) in html
    assert reverse("sourcing:request_detail", args=[request_board["closed"].pk]) not in html
    assert "facet-destination" in html
    assert "Germany" in html
    response = client.get("/en/search/", {"tab": "requests", "destination": "US"})
    html = response.content.decode()
    assert reverse("sourcing:request_detail", args=[request_board["pens"].pk]) in html
    assert reverse("sourcing:request_detail", args=[request_board["chinese"].pk]) not in html


def test_requests_tab_query_count_is_bounded(client, request_board, django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        assert client.get("/en/search/", {"tab": "requests"}).status_code == 200


HOSTILE = [
    "x" * 10_000,
    "\x01\x1b",
    "\ud800",
    "!!!???",
    '"unclosed',
    "title:* AND (",
    "'; DROP TABLE sourcing_buyingrequest; --",
    "<script>alert(1)</script>",
    "",
]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_fail_on_the_page_or_the_api(client, request_board, query):
    # Bytes as a client may send them (a lone surrogate is not valid UTF-8).
    raw = query.encode("utf-8", "surrogatepass")
    page = client.get("/en/search/?" + urlencode({"q": raw, "tab": "requests"}))
    assert page.status_code == 200
    assert b"<script>alert(1)</script>" not in page.content
    assert client.get(API + "?" + urlencode({"q": raw})).status_code == 200


def test_a_nul_in_the_query_is_refused_on_the_page_and_the_api(client, request_board):
    page = client.get("/zh-hans/search/?tab=requests&q=a%00b")
    assert page.status_code == 400
    assert "地址中含有不允许的字符" in page.content.decode()
    assert client.get(API + "?q=a%00b").status_code == 400


@pytest.mark.parametrize(
    "params",
    [
        {"quantity_min": "-1", "tab": "requests"},
        {"quantity_max": "nan", "tab": "requests"},
        {"posted_within": "abc", "tab": "requests"},
        {"destination": "ZZ,<b>", "tab": "requests"},
        {"category": "99999999999999999999999", "tab": "requests"},
        {"page": "-5", "tab": "requests"},
        {"sort": "price_asc", "tab": "requests"},
    ],
)
def test_malformed_filters_on_the_page_are_ignored(client, request_board, params):
    assert client.get("/en/search/", params).status_code == 200


def test_api_finds_requests_across_languages_and_hides_the_buyer(client, request_board):
    body = client.get(API, {"q": "stainless steel vacuum flask"}).json()
    assert [hit["id"] for hit in body["items"]] == [request_board["chinese"].pk]
    hit = body["items"][0]
    assert hit["buyer"] == {"name": None, "country": "DE", "business_types": ["wholesaler"]}
    assert hit["url"].endswith(
        reverse("sourcing:request_detail", args=[request_board["chinese"].pk])
    )
    assert hit["destination_country"] == "DE"
    assert body["expansions"]
    body = client.get(API, {"q": "圆珠笔"}).json()
    assert [hit["id"] for hit in body["items"]] == [request_board["pens"].pk]


def test_api_filters_sort_and_closed_requests(client, request_board):
    body = client.get(API, {"sort": "newest"}).json()
    assert [hit["id"] for hit in body["items"]] == [
        request_board["pens"].pk,
        request_board["chinese"].pk,
    ]
    assert request_board["closed"].pk not in [hit["id"] for hit in body["items"]]
    body = client.get(API, {"quantity_min": "10000"}).json()
    assert [hit["id"] for hit in body["items"]] == [request_board["pens"].pk]
    body = client.get(API, {"destination": "de", "posted_within": "7"}).json()
    assert [hit["id"] for hit in body["items"]] == [request_board["chinese"].pk]
    names = {facet["name"] for facet in body["facets"]}
    assert {"destination", "posted_within"} <= names


def test_revealed_buyers_are_named(client, request_board):
    request = request_board["pens"]
    type(request).objects.filter(pk=request.pk).update(reveal_identity=True)
    body = client.get(API, {"q": "ballpoint"}).json()
    assert body["items"][0]["buyer"]["name"] == request.buyer.legal_name


@pytest.mark.parametrize(
    "params",
    [
        {"destination": "ZZ"},
        {"quantity_min": "-1"},
        {"posted_within": "0"},
        {"sort": "price_asc"},
        {"category": "0"},
        {"page": "0"},
    ],
)
def test_bad_api_parameters_are_422(client, request_board, params):
    response = client.get(API, params)
    assert response.status_code == 422
