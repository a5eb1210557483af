"""One pagination for the web pages (`tradepost.web.pagination`), with the API's rule past the
end (docs/adr/0014-one-pagination-style.md): a malformed `?page=` is the first page, a page past
the last one is empty and still knows the true count, the links keep the other parameters."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qsl, urlparse

import pytest
from django.test import RequestFactory

from tests.factories.catalog import make_product, make_tree
from tests.factories.companies import make_company
from tests.factories.sourcing import make_request
from tests.pages import log_in, page_url
from tradepost.api import pagination as api_pagination
from tradepost.companies.models import Company
from tradepost.core.ids import MAX_ID
from tradepost.search import indexer
from tradepost.search.selectors import MAX_PAGE as SEARCH_MAX_PAGE
from tradepost.web import pagination
from tradepost.web.pagination import Page, page_number, paginate

#: Not a page number: the first page (where the API answers 422), never an error.
BAD_PAGES = ["", "abc", "0", "-1", "-0", "1.5", "1e3", "0x10", "NaN", "²", "page"]
BAD_PAGES += ["\x00", "2\x00", str(MAX_ID + 1), "99999999999999999999999999"]


def _get(query: str = ""):
    return RequestFactory().get("/list/" + (f"?{query}" if query else ""))


def _with_page(raw: str):
    request = RequestFactory().get("/list/")
    request.GET = request.GET.copy()
    request.GET["page"] = raw
    return request


# --- the helper -----------------------------------------------------------------------------


@pytest.mark.parametrize("raw", BAD_PAGES)
def test_a_malformed_page_is_the_first_page(raw):
    assert page_number(_with_page(raw)) == 1
    page = paginate(_with_page(raw), list(range(25)), 10)
    assert page.number == 1 and page.object_list == list(range(10)) and not page.past_end


def test_no_page_is_the_first_page():
    assert page_number(_get()) == 1
    assert page_number(_get("q=flask")) == 1


@pytest.mark.parametrize(
    "raw, number", [("1", 1), ("2", 2), ("99999", 99999), (str(MAX_ID), MAX_ID)]
)
def test_a_whole_number_is_that_page(raw, number):
    assert page_number(_with_page(raw)) == number


def test_the_pages_of_a_list():
    first = paginate(_get(), list(range(25)), 10)
    assert (first.number, first.count, first.num_pages) == (1, 25, 3)
    assert first.has_next and not first.has_previous and first.has_other_pages
    assert (first.next_page_number, first.previous_page_number) == (2, None)
    assert list(first) == list(range(10)) and len(first) == 10 and first[0] == 0
    last = paginate(_get("page=3"), list(range(25)), 10)
    assert last.object_list == [20, 21, 22, 23, 24]
    assert last.has_previous and not last.has_next and not last.past_end
    assert (last.previous_url, last.next_url) == ("?page=2", None)


@pytest.mark.parametrize("raw", ["4", "99999", str(MAX_ID)])
def test_past_the_last_page_an_empty_page_with_the_true_count(raw):
    page = paginate(_with_page(raw), list(range(25)), 10)
    assert page.object_list == [] and len(page) == 0
    assert page.past_end and page.number == int(raw)
    assert (page.count, page.num_pages) == (25, 3)
    assert not page.has_next and not page.has_previous
    assert (page.first_url, page.last_url) == ("?", "?page=3")


def test_an_empty_list_has_one_page_and_no_page_past_its_end():
    for query in ("", "page=2"):
        page = paginate(_get(query), [], 10)
        assert page.num_pages == 1 and page.count == 0 and not page.past_end
        assert not page.has_other_pages


def test_the_last_page_is_at_most_max_page():
    page = paginate(_get("page=3"), list(range(100)), 10, max_page=2)
    assert page.num_pages == 2 and page.past_end and page.object_list == []
    # The same bound as the API's for a database list.
    assert pagination.MAX_PAGE == api_pagination.MAX_PAGE


def test_one_count_and_one_page_of_rows(django_assert_num_queries, db):
    for n in range(5):
        make_company(legal_name=f"Company {n}")
    rows = Company.objects.order_by("pk")
    with django_assert_num_queries(2):  # the count, the page's rows
        page = paginate(_get("page=2"), rows, 2)
        assert len(page.object_list) == 2
    with django_assert_num_queries(1):  # past the end: the count alone
        past = paginate(_get("page=4"), rows, 2)
        assert past.past_end and past.count == 5
    with django_assert_num_queries(1):  # above the deepest page: no OFFSET query either
        deep = paginate(_get("page=3"), rows, 1, max_page=2)
        assert deep.past_end and deep.object_list == []


def test_links_keep_the_other_parameters_in_their_order():
    request = _get("destination=NL&destination=DE&page=2&q=vacuum+flask&sort=new")
    page = paginate(request, list(range(50)), 10)
    assert page.previous_url == "?destination=NL&destination=DE&q=vacuum+flask&sort=new"
    assert page.next_url == "?destination=NL&destination=DE&q=vacuum+flask&sort=new&page=3"
    assert page.last_url.endswith("&page=5") and page.first_url == page.previous_url
    assert page.url_for(4) == "?destination=NL&destination=DE&q=vacuum+flask&sort=new&page=4"


def test_a_page_cut_elsewhere():
    page = pagination.cut_page(
        ["a", "b"], number=2, count=12, per_page=5, max_page=100, params=[("q", "x"), ("page", "2")]
    )
    assert page.params == (("q", "x"),)
    assert (page.num_pages, page.next_url, page.previous_url) == (3, "?q=x&page=3", "?q=x")
    assert isinstance(page, Page) and list(page) == ["a", "b"]


# --- the pages --------------------------------------------------------------------------------


def _past_end_block(html: str) -> str:
    assert html.count('class="empty past-end"') == 1, "no past-the-end block"
    return html.split('class="empty past-end"', 1)[1].split("</div>", 1)[0]


def _links(block: str) -> list[dict[str, str]]:
    return [
        dict(parse_qsl(urlparse(unescape(href)).query))
        for href in re.findall(r'href="([^"]+)"', block)
    ]


def _nav_links(html: str) -> dict[str, dict[str, str]]:
    nav = html.split('<nav class="pagination"', 1)[1].split("</nav>", 1)[0]
    return {
        rel: dict(parse_qsl(urlparse(unescape(href)).query))
        for rel, href in re.findall(r'rel="(prev|next)" href="([^"]+)"', nav)
    }


def test_search_past_the_end_and_above_the_deepest_page(client, db):
    company = make_company(country="DE")
    for n in range(24):
        make_product(company=company, title=f"Vacuum flask model {n}", original_language="en")
    indexer.apply_outbox()
    for page in ("3", str(SEARCH_MAX_PAGE + 1), "99999"):
        response = client.get("/en/search/", {"q": "vacuum flask", "sort": "newest", "page": page})
        assert response.status_code == 200
        html = response.content.decode()
        assert 'class="hit-title"' not in html
        assert "This page is past the end of the 24 results." in html
        last, first = _links(_past_end_block(html))
        assert last == {"q": "vacuum flask", "sort": "newest", "page": "2"}
        assert first == {"q": "vacuum flask", "sort": "newest"}
    # A malformed page is the first one, with its link to the next keeping the search.
    for raw in ("abc", "0", "-1", "1.5"):
        html = client.get("/en/search/", {"q": "vacuum flask", "sort": "newest", "page": raw})
        html = html.content.decode()
        assert html.count('class="hit-title"') == 20 and "past-end" not in html
        assert _nav_links(html) == {"next": {"q": "vacuum flask", "sort": "newest", "page": "2"}}


def test_request_board_past_the_end(client, db, monkeypatch):
    monkeypatch.setattr("tradepost.web.views.sourcing.PER_PAGE", 2)
    for n in range(3):
        make_request(title=f"Bamboo boards lot {n}", destination_country="NL")
    url = page_url("sourcing:board")
    past = client.get(url, {"destination": "NL", "page": "7"}).content.decode()
    assert "Bamboo boards lot" not in past
    assert "No open buying requests match these filters." not in past
    assert "This page is past the end of the 3 results." in past
    last, first = _links(_past_end_block(past))
    assert last == {"destination": "NL", "page": "2"} and first == {"destination": "NL"}
    # The pages themselves, with links that keep the filter.
    first_page = client.get(url, {"destination": "NL"}).content.decode()
    assert first_page.count("Bamboo boards lot") == 2
    assert _nav_links(first_page) == {"next": {"destination": "NL", "page": "2"}}
    second = client.get(url, {"destination": "NL", "page": "2"}).content.decode()
    assert second.count("Bamboo boards lot") == 1
    assert _nav_links(second) == {"prev": {"destination": "NL"}}
    chinese = client.get(page_url("sourcing:board", "zh-hans"), {"page": "7"}).content.decode()
    assert "此页已超出全部 3 个结果的范围。" in chinese


def test_product_dashboard_past_the_end(client, cast, monkeypatch):
    monkeypatch.setattr("tradepost.web.views.products.PRODUCTS_PER_PAGE", 2)
    for n in range(3):
        make_product(company=cast.company, title=f"Desk lamp {n}")
    log_in(client, cast.owner)
    url = page_url("products:list")
    past = client.get(url, {"status": "published", "page": "3"}).content.decode()
    assert "Desk lamp" not in past and "No products have this status." not in past
    assert "This page is past the end of the 3 results." in past
    last, first = _links(_past_end_block(past))
    assert last == {"status": "published", "page": "2"} and first == {"status": "published"}
    page = client.get(url, {"status": "published"}).content.decode()
    assert _nav_links(page) == {"next": {"status": "published", "page": "2"}}
    assert client.get(url, {"page": "abc"}).content.decode().count("Desk lamp") == 2


def test_invoices_and_notification_dashboards_past_the_end(client, cast):
    log_in(client, cast.owner)
    for name in ("membership:overview", "messaging:inbox", "messaging:notifications"):
        response = client.get(page_url(name), {"page": "5"})
        assert response.status_code == 200
        # Nothing listed at all: the page says so, not "past the end of 0 results".
        assert "past-end" not in response.content.decode()


def test_supplier_directory_and_category_page_past_the_end(client, db):
    _root, _branch, leaf, _other = make_tree()
    make_product(category=leaf, title="Garden hose reel")
    directory = client.get(page_url("catalog:company_directory"), {"page": "4"})
    html = directory.content.decode()
    assert "No companies match these filters." not in html
    assert "This page is past the end of the 1 result." in html
    (first,) = _links(_past_end_block(html))  # one page: no "last page" link
    assert first == {}
    category = client.get(f"/en/categories/{leaf.slug}/", {"page": "2", "sort": "price_asc"})
    html = category.content.decode()
    assert "Garden hose reel" not in html
    assert "No products are listed in this category yet." not in html
    assert "1 product" in html and "This page is past the end of the 1 result." in html
    assert _links(_past_end_block(html)) == [{"sort": "price_asc"}]
    for raw in ("abc", "0", "-1", "1.5", "²"):
        page = client.get(f"/en/categories/{leaf.slug}/", {"page": raw})
        assert page.status_code == 200 and "Garden hose reel" in page.content.decode()
        assert f'/en/categories/{leaf.slug}/"' in page.content.decode()  # canonical: page 1


def test_category_page_of_several_pages_past_the_end(client, db, monkeypatch):
    monkeypatch.setattr("tradepost.catalog.selectors.PRODUCTS_PER_PAGE", 2)
    _root, _branch, leaf, _other = make_tree()
    for n in range(5):
        make_product(category=leaf, title=f"Garden hose reel {n}")
    url = f"/en/categories/{leaf.slug}/"
    # Not the last page under a larger number: an empty page with the true count.
    for raw in ("4", "99999"):
        html = client.get(url, {"sort": "newest", "page": raw}).content.decode()
        assert "Garden hose reel" not in html
        assert "No products are listed in this category yet." not in html
        assert "5 products" in html and "This page is past the end of the 5 results." in html
        last, first = _links(_past_end_block(html))
        assert last == {"sort": "newest", "page": "3"} and first == {"sort": "newest"}
    last_page = client.get(url, {"sort": "newest", "page": "3"}).content.decode()
    assert last_page.count("Garden hose reel") == 1 and "past-end" not in last_page
    assert _nav_links(last_page) == {"prev": {"sort": "newest", "page": "2"}}


def test_company_page_past_the_end(client, db, monkeypatch):
    monkeypatch.setattr("tradepost.catalog.selectors.PRODUCTS_PER_PAGE", 2)
    company = make_company(legal_name="Ningbo Hose Works")
    for n in range(3):
        make_product(company=company, title=f"Garden hose reel {n}")
    url = page_url("catalog:company_detail", slug=company.slug)
    past = client.get(url, {"page": "5"})
    assert past.status_code == 200
    html = past.content.decode()
    assert "Garden hose reel" not in html
    assert "This company has not listed any products yet." not in html
    assert "This page is past the end of the 3 results." in html
    last, first = _links(_past_end_block(html))
    assert last == {"page": "2"} and first == {}
    first_page = client.get(url).content.decode()
    assert first_page.count("Garden hose reel") == 2
    assert _nav_links(first_page) == {"next": {"page": "2"}}
    second = client.get(url, {"page": "2"}).content.decode()
    assert second.count("Garden hose reel") == 1 and "past-end" not in second
    for raw in ("abc", "0", "-1", "1.5"):
        assert client.get(url, {"page": raw}).content.decode().count("Garden hose reel") == 2


def test_no_module_pages_with_djangos_paginator():
    from pathlib import Path

    import tradepost

    root = Path(tradepost.__file__).parent
    users = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if "django.core.paginator" in path.read_text(encoding="utf-8")
    ]
    assert users == []
