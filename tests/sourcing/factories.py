"""Factories of the sourcing tests: buyer and supplier companies, requests, quotations."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from tests.factories import leaf_category, make_company, make_user
from tradepost.accounts.models import User
from tradepost.companies.models import Company
from tradepost.sourcing import services
from tradepost.sourcing.models import BuyingRequest, Quotation


def make_trader(*, country: str = "CN", **company_fields: Any) -> tuple[User, Company]:
    """A verified user who owns a fresh company."""
    user = make_user()
    company = make_company(owner=user, country=country, **company_fields)
    return user, company


def request_fields(**overrides: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "title": "Stainless steel vacuum flasks, 500 ml",
        "description": "<p>Double wall, <strong>food grade</strong> steel.</p>",
        "category_id": leaf_category().pk,
        "quantity": "5000",
        "unit": "pieces",
        "target_unit_price": "2.40",
        "target_currency": "USD",
        "destination_country": "NL",
        "destination_port": "Rotterdam",
        "preferred_incoterm": "FOB",
        "required_certifications": ["LFGB", "FDA"],
        "deadline": timezone.now() + timedelta(days=14),
    }
    fields.update(overrides)
    return fields


def make_request(*, actor: User | None = None, **overrides: Any) -> BuyingRequest:
    if actor is None:
        actor, _company = make_trader(country="NL")
    return services.request_create(actor=actor, fields=request_fields(**overrides))


def quotation_fields(**overrides: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "unit_price": "2.30",
        "currency": "USD",
        "price_tiers": [{"min_quantity": "10000", "unit_price": "2.10"}],
        "moq": "1000",
        "lead_time_days": 30,
        "incoterm": "FOB",
        "named_place": "Ningbo",
        "payment_terms": ["tt"],
        "valid_until": timezone.localdate() + timedelta(days=30),
        "sample_available": True,
        "sample_cost": "15",
        "message": "We make these every day.",
    }
    fields.update(overrides)
    return fields


def make_quotation(
    buying_request: BuyingRequest, *, actor: User | None = None, **overrides: Any
) -> Quotation:
    if actor is None:
        actor, _company = make_trader()
    return services.quotation_submit(
        actor=actor, buying_request=buying_request, fields=quotation_fields(**overrides)
    )
