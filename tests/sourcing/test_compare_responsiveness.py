"""Responsiveness where buyers decide: comparison column and sort, company and product pages."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from tests.api_client import ApiClient
from tests.factories.accounts import PASSWORD
from tests.factories.catalog import make_product
from tests.factories.companies import make_trader
from tests.factories.messaging import answered_conversations, make_parties
from tests.factories.sourcing import make_quotation, make_request
from tradepost.sourcing import selectors
from tradepost.sourcing.models import BuyingRequest, Quotation

pytestmark = pytest.mark.django_db

LANGUAGES = ["en", "zh-hans", "zh-hant"]


@pytest.fixture
def three_quotes():
    """A request with quotations from a fast, a slow and a never-asked supplier."""
    buyer, _buyer_company = make_trader(country="NL")
    request = make_request(actor=buyer)
    fast = make_parties()
    answered_conversations(fast, in_time=3, late=1)  # 75 %
    slow = make_parties()
    answered_conversations(slow, in_time=1, late=3)  # 25 %
    _new_user, _new_company = make_trader()
    # The quotations themselves count too: make them all late so the order is clear.
    quotes = {
        "new": make_quotation(request, actor=_new_user, unit_price="1.00"),
        "slow": make_quotation(request, actor=slow.supplier_owner, unit_price="2.00"),
        "fast": make_quotation(request, actor=fast.supplier_owner, unit_price="3.00"),
    }
    posted = timezone.now() - timedelta(days=3)
    BuyingRequest.objects.filter(pk=request.pk).update(created_at=posted)
    Quotation.objects.filter(request=request).update(created_at=posted + timedelta(hours=30))
    return buyer, request, quotes


def test_comparison_sorts_by_response_rate(three_quotes):
    _buyer, request, quotes = three_quotes
    comparison = selectors.compare_quotations(buying_request=request, sort="response_rate")
    assert [row.quotation.pk for row in comparison.rows] == [
        quotes["fast"].pk,
        quotes["slow"].pk,
        quotes["new"].pk,
    ]
    fast = comparison.rows[0].responsiveness
    assert fast is not None and fast.conversations == 4 and fast.quotations == 1
    assert fast.response_rate_percent == 60  # 3 of 5 asks within 24 h
    new = comparison.rows[2].responsiveness
    assert new is not None and new.quotations == 1 and new.response_rate_percent == 0
    by_price = selectors.compare_quotations(buying_request=request)
    assert by_price.rows[0].quotation.pk == quotes["new"].pk


@pytest.mark.parametrize("language", LANGUAGES)
def test_compare_page_shows_the_column_and_sorts(client, three_quotes, language):
    buyer, request, _quotes = three_quotes
    assert client.login(email=buyer.email, password=PASSWORD)
    with translation.override(language):
        url = reverse("sourcing:compare", kwargs={"pk": request.pk})
    response = client.get(url, {"sort": "response_rate"})
    assert response.status_code == 200
    assert 'value="response_rate" selected' in response.text
    assert "60%" in response.text and "20%" in response.text
    assert response.text.index("60%") < response.text.index("20%")


def test_compare_page_query_count(client, three_quotes, django_assert_max_num_queries):
    buyer, request, _quotes = three_quotes
    assert client.login(email=buyer.email, password=PASSWORD)
    url = reverse("sourcing:compare", kwargs={"pk": request.pk})
    # Session, user, membership, request, quotations, responsiveness of all suppliers (one
    # query), rates, attachments, header counts: none of them grows with the quotations.
    with django_assert_max_num_queries(13):
        assert client.get(url, {"sort": "response_rate"}).status_code == 200


def test_api_comparison_has_response_rate_and_sort(three_quotes):
    buyer, request, quotes = three_quotes
    client = ApiClient(buyer)
    response = client.get(f"/api/v1/requests/{request.pk}/quotations", sort="response_rate")
    assert response.status_code == 200
    items = response.json()["items"]
    assert [item["id"] for item in items] == [
        quotes["fast"].pk,
        quotes["slow"].pk,
        quotes["new"].pk,
    ]
    assert items[0]["supplier_response_rate"] == pytest.approx(0.6)
    assert items[0]["supplier_median_response_hours"] == 2  # 2, 2, 2, 30, 40 h
    bad = client.get(f"/api/v1/requests/{request.pk}/quotations", sort="bogus")
    assert bad.status_code == 422
    assert json.loads(bad.content)["status"] == 422


@pytest.mark.parametrize("language", LANGUAGES)
def test_company_and_product_pages_show_responsiveness(client, language):
    parties = make_parties()
    answered_conversations(parties, in_time=1, late=1)
    with translation.override(language):
        company_url = reverse("catalog:company_detail", args=[parties.supplier_company.slug])
        product_url = parties.product.get_absolute_url()
    for url in (company_url, product_url):
        response = client.get(url)
        assert response.status_code == 200
        assert 'class="responsiveness"' in response.text
        assert "50%" in response.text


def test_company_page_without_asks_says_so(client):
    _user, company = make_trader()
    make_product(company=company)
    response = client.get(reverse("catalog:company_detail", args=[company.slug]))
    assert "No inquiries or quoted requests in the last 90 days" in response.text


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_unknown_currency_is_said_not_silently_replaced(client, three_quotes, language):
    buyer, request, _quotes = three_quotes
    assert selectors.compare_quotations(buying_request=request, currency="xxx").unknown_currency
    assert client.login(email=buyer.email, password=PASSWORD)
    with translation.override(language):
        url = reverse("sourcing:compare", kwargs={"pk": request.pk})
    response = client.get(url, {"currency": "XXX"})
    assert response.status_code == 200
    assert "unknown-currency" in response.text and "XXX" in response.text
    known = client.get(url, {"currency": "EUR"})
    assert "unknown-currency" not in known.text


def test_the_api_refuses_an_unknown_currency(three_quotes):
    buyer, request, _quotes = three_quotes
    client = ApiClient(buyer)
    bad = client.get(f"/api/v1/requests/{request.pk}/quotations", currency="XXX")
    assert bad.status_code == 422
    assert [e["field"] for e in bad.json()["errors"]] == ["currency"]
    ok = client.get(f"/api/v1/requests/{request.pk}/quotations", currency="eur")
    assert ok.status_code == 200 and ok.json()["currency"] == "EUR"
