"""Facet keys: the whole numbers product facets are counted by agree with the filters."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.factories.catalog import make_product
from tests.factories.companies import make_company
from tests.factories.search import index
from tradepost.search.facetkeys import (
    INCOTERM_CODES,
    LEAD_TIME_LIMITS,
    MOQ_LIMITS,
    decode,
    incoterm_mask,
    lead_band,
    moq_band,
    price_band,
)
from tradepost.search.selectors import ProductFilters, search_products


@pytest.mark.parametrize(
    ("moq", "band"),
    [(0, 0), (1, 0), (1.0000001, 0), (1.01, 1), (10, 1), (500, 3), (5000, 5), (5000.5, 6)],
)
def test_moq_bands_follow_the_at_most_choices(moq, band):
    assert moq_band(moq) == band


@pytest.mark.parametrize(("days", "band"), [(0, 0), (7, 0), (8, 1), (30, 2), (60, 3), (61, 4)])
def test_lead_time_bands_follow_the_at_most_choices(days, band):
    assert lead_band(days) == band


@pytest.mark.parametrize(
    ("price", "band"), [(0.5, 0), (0.999, 0), (1, 1), (4.99, 1), (5, 2), (499.9, 4), (500, 5)]
)
def test_price_bands_include_their_lower_edge(price, band):
    assert price_band(price) == band


def test_values_that_are_absent_have_no_key():
    assert moq_band(None) is None
    assert lead_band(None) is None
    assert price_band(None) is None
    assert incoterm_mask([]) is None
    assert incoterm_mask(["XYZ"]) is None


def test_incoterm_masks_decode_to_counts_per_code():
    fob_cif = incoterm_mask(["FOB", "CIF"])
    fob = incoterm_mask(["FOB", "FOB"])
    exw_ddp = incoterm_mask(["EXW", "DDP", "unknown"])
    assert fob_cif != fob != exw_ddp
    decoded = decode(
        {
            "incoterms": {
                "buckets": [
                    {"key": fob_cif, "doc_count": 3},
                    {"key": fob, "doc_count": 2},
                    {"key": exw_ddp, "doc_count": 4},
                ]
            },
            "country": {"buckets": [{"key": "CN", "doc_count": 9}]},
        }
    )
    assert decoded["incoterms"]["buckets"] == [
        {"key": "FOB", "doc_count": 5},
        {"key": "EXW", "doc_count": 4},
        {"key": "DDP", "doc_count": 4},
        {"key": "CIF", "doc_count": 3},
    ]
    assert decoded["country"] == {"buckets": [{"key": "CN", "doc_count": 9}]}
    assert incoterm_mask(INCOTERM_CODES) == (1 << len(INCOTERM_CODES)) - 1


def test_bands_decode_in_band_order_with_the_empty_ones():
    decoded = decode(
        {"lead_time": {"buckets": [{"key": 3, "doc_count": 2}, {"key": 0, "doc_count": 5}]}}
    )
    assert [b["doc_count"] for b in decoded["lead_time"]["buckets"]] == [5, 0, 0, 2, 0]


@pytest.mark.django_db
def test_each_at_most_option_counts_what_its_filter_finds():
    company = make_company(country="CN")
    edges = [Decimal("1"), Decimal("1.5"), Decimal("10"), Decimal("499.99"), Decimal("500")]
    edges += [Decimal("5000"), Decimal("5001")]
    leads = [None, 0, 7, 8, 15, 30, 31, 60, 61]
    products = [
        make_product(
            company=company,
            moq=moq,
            lead_time_days=leads[position % len(leads)],
            incoterms=[["FOB"], ["FOB", "CIF"], ["EXW"], []][position % 4],
        )
        for position, moq in enumerate(edges * 2)
    ]
    index(*products)
    everything = search_products(query="", language="en")
    options = {f.name: {o.value: o.count for o in f.options} for f in everything.facets}
    for limit in MOQ_LIMITS:
        found = search_products(query="", language="en", filters=ProductFilters(moq_max=limit))
        assert options["moq_max"].get(str(limit), 0) == found.total, limit
    for days in LEAD_TIME_LIMITS:
        found = search_products(query="", language="en", filters=ProductFilters(lead_time_max=days))
        assert options["lead_time_max"].get(str(days), 0) == found.total, days
    for code in ("FOB", "CIF", "EXW"):
        found = search_products(query="", language="en", filters=ProductFilters(incoterms=(code,)))
        assert options["incoterm"][code] == found.total > 0, code
    assert "DDP" not in options["incoterm"]
