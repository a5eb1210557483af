"""Buying requests in the search index: outbox to index, filters, sorts, cross-lingual."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from tests.factories.search import record
from tests.factories.sourcing import make_quotation
from tradepost.search import selectors
from tradepost.search.check import check_index
from tradepost.search.indexer import apply_outbox
from tradepost.search.models import IndexOutbox, OutboxKind
from tradepost.sourcing import services
from tradepost.sourcing.models import BuyingRequest

pytestmark = pytest.mark.django_db


def search(query: str = "", **kwargs):
    kwargs.setdefault("language", "en")
    return selectors.search_requests(query=query, **kwargs)


def ids(result) -> list[int]:
    return [hit.request.pk for hit in result.hits]


def test_writes_add_request_rows_to_the_outbox(request_board):
    kinds = set(IndexOutbox.objects.values_list("kind", flat=True))
    assert OutboxKind.REQUEST in kinds
    rows = IndexOutbox.objects.filter(kind=OutboxKind.REQUEST, object_id=request_board["closed"].pk)
    assert rows.count() == 2  # created, then closed


def test_english_query_finds_a_chinese_request(request_board):
    result = search("stainless steel vacuum flask")
    assert ids(result) == [request_board["chinese"].pk]
    assert result.expansions


def test_chinese_query_finds_an_english_request(request_board):
    assert ids(search("圆珠笔")) == [request_board["pens"].pk]


def test_traditional_script_finds_simplified_request(request_board):
    assert request_board["chinese"].pk in ids(search("不鏽鋼保溫杯"))


def test_closed_requests_are_not_found(request_board):
    assert request_board["closed"].pk not in ids(search(""))
    assert request_board["closed"].pk not in ids(search("closed"))


def test_awarded_and_expired_requests_leave_the_index(request_board):
    quotation = make_quotation(request_board["pens"])
    services.quotation_award(actor=request_board["buyer"], quotation=quotation)
    BuyingRequest.objects.filter(pk=request_board["chinese"].pk).update(
        deadline=timezone.now() - timedelta(minutes=1)
    )
    # Past its deadline it is not searched even before the expiry job runs.
    assert ids(search("")) == []
    assert services.request_expire_due() == 1
    apply_outbox()
    report = check_index()
    assert report.indexed_requests == report.open_requests == 0
    assert not (report.missing_requests or report.stale_requests or report.extra_requests)


def test_filters_category_destination_quantity_and_posted(request_board):
    assert ids(
        search(filters=selectors.RequestFilters(category_id=request_board["drinkware"].pk))
    ) == [request_board["chinese"].pk]
    assert ids(search(filters=selectors.RequestFilters(destinations=("US",)))) == [
        request_board["pens"].pk
    ]
    assert ids(search(filters=selectors.RequestFilters(quantity_min=10000))) == [
        request_board["pens"].pk
    ]
    assert ids(search(filters=selectors.RequestFilters(quantity_max=3000))) == [
        request_board["chinese"].pk
    ]
    BuyingRequest.objects.filter(pk=request_board["pens"].pk).update(
        created_at=timezone.now() - timedelta(days=10)
    )
    services.request_update(
        actor=request_board["buyer"],
        buying_request=request_board["pens"],
        **{"description": "Blue ink"},
    )
    apply_outbox()
    assert ids(search(filters=selectors.RequestFilters(posted_within_days=7))) == [
        request_board["chinese"].pk
    ]
    facets = {facet.name: facet for facet in search().facets}
    assert {o.value: o.count for o in facets["destination"].options} == {"DE": 1, "US": 1}
    assert {o.value: o.count for o in facets["posted_within"].options} == {"1": 1, "7": 1, "30": 2}


def test_newest_sort_and_buyer_identity_hidden(request_board):
    result = search(sort="newest")
    assert ids(result) == [request_board["pens"].pk, request_board["chinese"].pk]
    hit = result.hits[0]
    assert hit.buyer_name == ""
    assert hit.buyer_country == "DE"


def test_reindex_and_check_cover_requests(request_board, capsys):
    call_command("reindex", "--workers", "1")
    report = check_index()
    assert not (report.missing_requests or report.stale_requests or report.extra_requests)
    assert report.indexed_requests == report.open_requests == 2
    call_command("reindex", "--check")
    assert "Buying requests: 2 in the index, 2 open" in capsys.readouterr().out


def test_a_renamed_category_is_searchable_in_its_requests(request_board):
    flasks = request_board["flasks"]
    flasks.name_en = "Thermoses"
    flasks.save()
    record(flasks)
    apply_outbox()
    assert ids(search("thermoses")) == [request_board["chinese"].pk]
