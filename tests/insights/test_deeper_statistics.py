"""Gold's "deeper statistics" on the supplier desk: listing by listing views and inquiries,
and where the inquiries come from, for a plan that gives them (web and API); a Free company
gets the plans page offered instead, and null in the API. Only the company's own numbers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from tests.api_client import ApiClient
from tests.factories.catalog import make_product
from tests.factories.membership import gold, subscribe
from tests.factories.messaging import make_conversation, make_parties
from tests.pages import page_url
from tradepost.insights.models import ProductViewDay
from tradepost.insights.selectors import deeper_statistics, desk_weeks

pytestmark = pytest.mark.django_db


@pytest.fixture
def supplier():
    """A supplier with two listings: the first viewed 40 times and asked about twice (by a
    Dutch buyer), the second viewed 5 times; another company's listing viewed 1,000 times."""
    parties = make_parties()
    company = parties.supplier_company
    second = make_product(company=company, title="Lunch box 1 l")
    today = timezone.localdate()
    ProductViewDay.objects.create(product=parties.product, company=company, day=today, count=40)
    ProductViewDay.objects.create(product=second, company=company, day=today, count=5)
    # Before the desk's weeks: not counted.
    ProductViewDay.objects.create(
        product=second, company=company, day=today - timedelta(weeks=20), count=500
    )
    for _ in range(2):
        make_conversation(parties)
    other = make_parties()
    ProductViewDay.objects.create(
        product=other.product, company=other.supplier_company, day=today, count=1000
    )
    return parties, second


def _since():
    return desk_weeks()[0]


def test_gold_sees_each_listing_and_the_buyers_countries(supplier):
    parties, second = supplier
    company = parties.supplier_company
    assert deeper_statistics(company=company, since=_since()) is None  # Free
    subscribe(company, gold(), actor=parties.supplier_owner)
    deeper = deeper_statistics(company=company, since=_since())
    assert [(row.product.pk, row.views, row.inquiries) for row in deeper.listings] == [
        (parties.product.pk, 40, 2),
        (second.pk, 5, 0),
    ]
    assert deeper.listings[0].inquiries_per_hundred_views == 5.0
    buyer_country = parties.buyer_company.country
    assert [(row.country, row.inquiries) for row in deeper.inquiry_countries] == [
        (buyer_country, 2)
    ]


def test_the_desk_page_shows_them_to_gold_and_offers_them_to_free(
    supplier, django_assert_max_num_queries
):
    parties, _second = supplier
    client = Client()
    client.force_login(parties.supplier_member)
    free_page = client.get(page_url("insights:supplier_desk", "zh-hans")).content.decode()
    assert "desk-deeper-offer" in free_page and "desk-listings" not in free_page
    subscribe(parties.supplier_company, gold(), actor=parties.supplier_owner)
    gold_page = client.get(page_url("insights:supplier_desk", "zh-hans")).content.decode()
    assert "desk-listings" in gold_page and "desk-countries" in gold_page
    assert parties.product.title in gold_page and "desk-deeper-offer" not in gold_page
    assert "Your listings, one by one" not in gold_page  # in Chinese
    english = client.get(page_url("insights:supplier_desk")).content.decode()
    assert "Your listings, one by one" in english and "Where your inquiries come from" in english


def test_the_api_answers_them_for_gold_and_null_for_free(supplier):
    parties, _second = supplier
    api = ApiClient(parties.supplier_member, base="/api/v1")
    free = api.get("/me/insights").json()
    assert (free["deeper_statistics"], free["listings"], free["inquiry_countries"]) == (
        False,
        None,
        None,
    )
    subscribe(parties.supplier_company, gold(), actor=parties.supplier_owner)
    paid = api.get("/me/insights").json()
    assert paid["deeper_statistics"] is True
    assert [(row["title"], row["views"], row["inquiries"]) for row in paid["listings"]] == [
        (parties.product.title, 40, 2),
        ("Lunch box 1 l", 5, 0),
    ]
    assert paid["inquiry_countries"] == [{"country": parties.buyer_company.country, "inquiries": 2}]
