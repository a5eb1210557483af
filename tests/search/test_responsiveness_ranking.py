"""Supplier responsiveness breaks ties between equal listings (ADR 0006), never hides one."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories.catalog import make_product
from tests.factories.messaging import answered_conversations, make_parties
from tests.factories.search import index
from tradepost.search import selectors
from tradepost.search.index import rank_boost
from tradepost.search.indexer import apply_outbox
from tradepost.search.models import IndexOutbox, OutboxKind
from tradepost.sourcing.responsiveness import materially_different, refresh_indexed_rates

pytestmark = pytest.mark.django_db


def _ids(result) -> list[int]:
    return [hit.product.pk for hit in result.hits]


@pytest.fixture
def two_suppliers():
    # The slow supplier's listing is created first (lower id), so id order would favour it.
    slow = make_parties()
    fast = make_parties()
    answered_conversations(slow, in_time=0, late=3)
    answered_conversations(fast, in_time=3, late=0)
    index(slow.product, fast.product)
    return slow, fast


def test_the_more_responsive_supplier_ranks_first_between_equal_listings(two_suppliers):
    slow, fast = two_suppliers
    result = selectors.search_products(query="vacuum flask", language="en")
    assert _ids(result) == [fast.product.pk, slow.product.pk]
    rates = {hit.product.pk: hit.response_rate_percent for hit in result.hits}
    assert rates == {fast.product.pk: 100, slow.product.pk: 0}
    # Read with the page's ids in every order (the newest order looks them up by key).
    for sort in ("newest", "price_asc"):
        result = selectors.search_products(query="vacuum flask", language="en", sort=sort)
        assert {hit.product.pk: hit.response_rate_percent for hit in result.hits} == rates
    # Without words, listings are ordered by the same boost.
    assert _ids(selectors.search_products(query="", language="en")) == [
        fast.product.pk,
        slow.product.pk,
    ]


def test_a_better_match_still_beats_a_more_responsive_supplier(two_suppliers):
    slow, fast = two_suppliers
    in_title = make_product(company=slow.supplier_company, title="Thermos bottle")
    in_description = make_product(
        company=fast.supplier_company, title="Water bottle", description="Keeps tea hot, a thermos."
    )
    index(in_title, in_description)
    ranked = _ids(selectors.search_products(query="thermos", language="en"))
    # (The suppliers' vacuum flasks are found too, through the lexicon's synonyms.)
    assert ranked[0] == in_title.pk
    assert ranked.index(in_title.pk) < ranked.index(in_description.pk)


def test_the_boost_is_bounded():
    # tantivy multiplies the score by log2(2 + boost).
    import math

    assert math.log2(2 + rank_boost(0.0, None)) == pytest.approx(1.0)
    assert math.log2(2 + rank_boost(1.0, 1.0)) == pytest.approx(1.13)
    assert math.log2(2 + rank_boost(0.0, 5.0)) == pytest.approx(1.03)


def test_search_cards_show_the_response_rate(client, two_suppliers):
    html = client.get("/en/search/", {"q": "vacuum flask"}).content.decode()
    assert "Response rate 100%" in html
    assert "Response rate 0%" in html


def test_a_material_change_of_the_rate_refreshes_the_documents(two_suppliers):
    slow, _fast = two_suppliers
    since = timezone.now() - timedelta(minutes=5)
    # Nothing moved since the index was built: nothing to record.
    assert refresh_indexed_rates(since=since) == 0
    # The slow supplier answers three new questions in time: 0% -> 50%.
    answered_conversations(slow, in_time=3, late=0)
    assert refresh_indexed_rates(since=timezone.now() - timedelta(days=30)) == 1
    assert IndexOutbox.objects.filter(
        kind=OutboxKind.COMPANY, object_id=slow.supplier_company.pk
    ).exists()
    apply_outbox()
    rates = {
        hit.product.pk: hit.response_rate_percent
        for hit in selectors.search_products(query="vacuum flask", language="en").hits
    }
    assert rates[slow.product.pk] == 50
    assert materially_different(0.50, 0.52) is False
    assert materially_different(None, 0.0) is True
