"""Counting product views and the search words that showed a company's listings: once a
page, after the response, never for robots or the company's own people, and the same for a
page answered from the public cache."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished
from django.db import close_old_connections
from django.http import HttpResponse
from django.test import Client
from django.utils import timezone

from tests.factories.catalog import make_product
from tests.factories.companies import add_member, make_trader
from tradepost.insights.counting import (
    MARKER,
    CountingMiddleware,
    is_robot,
    mark_product_view,
)
from tradepost.insights.models import ProductViewDay, SearchWordDay
from tradepost.insights.services import counters_prune, search_impressions_record
from tradepost.search.analysis import query_words

pytestmark = pytest.mark.django_db


@pytest.fixture
def connection_kept():
    """The signal a server sends when it closes a response also closes Django's database
    connection (`close_old_connections`), which would end the test's transaction; Django's
    own test client lifts that receiver the same way while it handles a request."""
    request_finished.disconnect(close_old_connections)
    yield
    request_finished.connect(close_old_connections)


BROWSER = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)
ROBOTS = [
    "",
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "HeadlessChrome/131.0.0.0 Safari/537.36",
    "facebookexternalhit/1.1",
    "curl/8.5.0",
    "python-requests/2.32.3",
]


def _views(product) -> int:
    return sum(ProductViewDay.objects.filter(product=product).values_list("count", flat=True))


def _words(company) -> dict[str, int]:
    return dict(SearchWordDay.objects.filter(company=company).values_list("word", "count"))


def _browser() -> Client:
    return Client(HTTP_USER_AGENT=BROWSER)


def test_a_product_page_is_counted_once_per_view_and_the_marker_never_leaves():
    _owner, company = make_trader()
    product = make_product(company=company)
    response = _browser().get(product.get_absolute_url())
    assert response.status_code == 200
    assert MARKER not in response.headers
    row = ProductViewDay.objects.get(product=product)
    assert (row.company_id, row.day, row.count) == (company.pk, timezone.localdate(), 1)
    _browser().get(product.get_absolute_url())
    assert _views(product) == 2
    assert ProductViewDay.objects.count() == 1  # one row a product and day


@pytest.mark.parametrize("agent", ROBOTS)
def test_robots_are_not_counted(agent):
    assert is_robot(agent)
    product = make_product()
    assert Client(HTTP_USER_AGENT=agent).get(product.get_absolute_url()).status_code == 200
    assert _views(product) == 0


def test_the_companys_own_people_are_not_counted_and_others_are():
    owner, company = make_trader()
    member = add_member(company)
    product = make_product(company=company)
    for user in (owner, member):
        client = _browser()
        client.force_login(user)
        assert client.get(product.get_absolute_url()).status_code == 200
    assert _views(product) == 0
    outsider, _other = make_trader()
    client = _browser()
    client.force_login(outsider)
    client.get(product.get_absolute_url())
    assert _views(product) == 1


def test_a_page_answered_from_the_cache_is_counted_too(settings):
    settings.TRADEPOST_PAGE_CACHE_SECONDS = 30
    product = make_product()
    first = _browser().get(product.get_absolute_url())
    second = _browser().get(product.get_absolute_url())
    assert (first["X-Cache"], second["X-Cache"]) == ("miss", "hit")
    assert MARKER not in second.headers
    assert _views(product) == 2


def test_nothing_is_counted_when_counting_is_off_or_the_page_is_not_shown(settings):
    product = make_product()
    draft = make_product(status="draft")
    assert _browser().get(draft.get_absolute_url()).status_code == 404
    assert _browser().head(product.get_absolute_url()).status_code == 200
    settings.TRADEPOST_INSIGHTS_COUNTING = False
    _browser().get(product.get_absolute_url())
    assert ProductViewDay.objects.count() == 0


def test_search_words_are_counted_for_the_companies_whose_listings_are_shown(search_catalogue):
    cat = search_catalogue
    response = _browser().get("/en/search/", {"q": "Stainless steel vacuum flasks"})
    assert response.status_code == 200
    assert MARKER not in response.headers
    shown = {hit.product.company_id for hit in response.context["result"].hits}
    assert cat.ohio.pk in shown
    for company_id in shown:
        words = dict(
            SearchWordDay.objects.filter(company_id=company_id).values_list("word", "count")
        )
        assert words == {"stainless": 1, "steel": 1, "vacuum": 1, "flasks": 1}
    # A company none of whose listings was on the page gets nothing.
    assert set(SearchWordDay.objects.values_list("company_id", flat=True)) == shown


def test_a_traditional_query_counts_its_simplified_words(search_catalogue):
    cat = search_catalogue
    _browser().get("/zh-hant/search/", {"q": "不鏽鋼保溫瓶"})
    assert set(_words(cat.taipei)) <= {"不锈钢", "保温瓶", "保温", "瓶"}
    assert _words(cat.taipei)


def test_search_words_are_not_counted_for_the_searchers_own_company_or_robots(search_catalogue):
    cat = search_catalogue
    Client(HTTP_USER_AGENT=ROBOTS[1]).get("/en/search/", {"q": "vacuum flask"})
    assert SearchWordDay.objects.count() == 0
    member = add_member(cat.ohio)
    client = _browser()
    client.force_login(member)
    response = client.get("/en/search/", {"q": "vacuum flask"})
    assert cat.ohio.pk in {hit.product.company_id for hit in response.context["result"].hits}
    assert _words(cat.ohio) == {}
    assert SearchWordDay.objects.exclude(company=cat.ohio).exists()


def test_an_empty_query_or_another_tab_counts_no_word(search_catalogue):
    _browser().get("/en/search/")
    _browser().get("/en/search/", {"q": "flask", "tab": "companies"})
    assert SearchWordDay.objects.count() == 0


def test_query_words_are_normalised_unstemmed_and_bounded():
    assert query_words("Vacuum Flasks, 500 ml and the 鋼筆") == [
        "vacuum",
        "flasks",
        "500ml",
        "钢笔",
    ]
    assert query_words("ＬＥＤ lamp's") == ["led", "lamp"]
    assert query_words("a " * 50 + " ".join(f"w{i}" for i in range(20))) == [
        f"w{i}" for i in range(8)
    ]
    assert query_words("x" * 41) == []
    assert query_words("\ud800\x00") == []


def test_concurrent_counts_add_up_in_one_row_and_old_rows_are_pruned():
    _owner, company = make_trader()
    for _ in range(3):
        search_impressions_record(company_ids=[company.pk, company.pk], words=["flask", "flask"])
    assert _words(company) == {"flask": 3}
    old = timezone.localdate().replace(year=timezone.localdate().year - 2)
    search_impressions_record(company_ids=[company.pk], words=["old"], day=old)
    assert counters_prune() == 1
    assert _words(company) == {"flask": 3}


def test_views_wait_in_the_process_tally_and_are_written_together(settings):
    from tradepost.insights.services import counters_flush

    settings.TRADEPOST_INSIGHTS_FLUSH_SECONDS = 3600  # nothing is due during the test
    counters_flush()
    _owner, company = make_trader()
    product = make_product(company=company)
    for _n in range(3):
        assert _browser().get(product.get_absolute_url()).status_code == 200
    _browser().get("/en/search/", {"q": product.title})
    # No statement a view: the counts are in this process's tally.
    assert _views(product) == 0
    assert counters_flush() >= 1
    assert _views(product) == 3
    assert ProductViewDay.objects.get(product=product).count == 3
    assert counters_flush() == 0  # the tally was emptied


def _counting_middleware(product):
    """The middleware around a view that answers a page marked as a view of `product`."""

    def view(request):
        response = HttpResponse("a product page")
        mark_product_view(response, product_id=product.pk, company_id=product.company_id)
        return response

    return CountingMiddleware(view)


def _request(rf):
    request = rf.get("/en/products/1-flask/", HTTP_USER_AGENT=BROWSER)
    request.user = AnonymousUser()
    return request


def test_a_view_is_counted_when_the_server_finishes_the_request_and_only_once(rf, connection_kept):
    product = make_product()
    middleware = _counting_middleware(product)
    response = middleware(_request(rf))
    assert MARKER not in response.headers
    assert _views(product) == 0  # not while the response is being sent
    # What a WSGI server's call to close() sends, through Django's public signal.
    request_finished.send(sender=WSGIHandler)
    assert _views(product) == 1
    response.close()  # sends the signal again: still one view
    request_finished.send(sender=WSGIHandler)
    assert _views(product) == 1


def test_a_response_never_closed_leaves_nothing_for_the_next_request(rf, connection_kept):
    product = make_product()
    _counting_middleware(product)(_request(rf))  # its response is never closed
    other = _counting_middleware(product)
    other.get_response = lambda request: HttpResponse("a page nobody counts")
    other(_request(rf)).close()
    assert _views(product) == 0
