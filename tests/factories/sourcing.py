"""Buying requests and quotations, posted through the sourcing services as buyers and
suppliers post them (counters, quota, outbox rows and notifications included)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import factory
from django.utils import timezone

from tests.factories.catalog import leaf_category
from tests.factories.companies import make_trader
from tradepost.accounts.models import User
from tradepost.sourcing import services
from tradepost.sourcing.models import BuyingRequest, Quotation


class RequestFieldsFactory(factory.DictFactory):
    """What a buyer's request form sends, all valid."""

    title = "Stainless steel vacuum flasks, 500 ml"
    description = "<p>Double wall, <strong>food grade</strong> steel.</p>"
    category_id = factory.LazyFunction(lambda: leaf_category().pk)
    quantity = "5000"
    unit = "pieces"
    target_unit_price = "2.40"
    target_currency = "USD"
    destination_country = "NL"
    destination_port = "Rotterdam"
    preferred_incoterm = "FOB"
    required_certifications = factory.LazyFunction(lambda: ["LFGB", "FDA"])
    deadline = factory.LazyFunction(lambda: timezone.now() + timedelta(days=14))


class QuotationFieldsFactory(factory.DictFactory):
    """What a supplier's quotation form sends, all valid."""

    unit_price = "2.30"
    currency = "USD"
    price_tiers = factory.LazyFunction(lambda: [{"min_quantity": "10000", "unit_price": "2.10"}])
    moq = "1000"
    lead_time_days = 30
    incoterm = "FOB"
    named_place = "Ningbo"
    payment_terms = factory.LazyFunction(lambda: ["tt"])
    valid_until = factory.LazyFunction(lambda: timezone.localdate() + timedelta(days=30))
    sample_available = True
    sample_cost = "15"
    message = "We make these every day."


def request_fields(**overrides: Any) -> dict[str, Any]:
    return RequestFieldsFactory(**overrides)


def quotation_fields(**overrides: Any) -> dict[str, Any]:
    return QuotationFieldsFactory(**overrides)


def make_request(*, actor: User | None = None, **overrides: Any) -> BuyingRequest:
    """A request posted by `actor` (by default the owner of a fresh Dutch company)."""
    if actor is None:
        actor, _company = make_trader(country="NL")
    return services.request_create(actor=actor, **request_fields(**overrides))


def make_quotation(
    buying_request: BuyingRequest, *, actor: User | None = None, **overrides: Any
) -> Quotation:
    """A quotation submitted by `actor` (by default the owner of a fresh Chinese company)."""
    if actor is None:
        actor, _company = make_trader()
    return services.quotation_submit(
        actor=actor, buying_request=buying_request, **quotation_fields(**overrides)
    )


def make_quoted_request(*quotes: dict[str, Any]) -> tuple[User, BuyingRequest, list[Quotation]]:
    """A Dutch buyer's request with one quotation for each mapping of field overrides, each
    from the owner of a fresh Chinese company (`quotation.created_by`)."""
    buyer, _company = make_trader(country="NL")
    buying_request = make_request(actor=buyer)
    return buyer, buying_request, [make_quotation(buying_request, **fields) for fields in quotes]
