"""Awarded quotations and reviews, made through the sourcing and reviews services as buyers and
suppliers make them (totals, notifications and all)."""

from __future__ import annotations

from typing import Any

import factory

from tests.factories.companies import make_trader
from tests.factories.sourcing import make_quotation, make_request
from tradepost.accounts.models import User
from tradepost.reviews import services
from tradepost.reviews.models import Review
from tradepost.sourcing import services as sourcing_services
from tradepost.sourcing.models import Quotation


class ReviewFieldsFactory(factory.DictFactory):
    """What a buyer's review form sends, all valid."""

    rating = 4
    text = "Good flasks, shipped two days late. Answered every question within a day."


def review_fields(**overrides: Any) -> dict[str, Any]:
    return ReviewFieldsFactory(**overrides)


def make_award(
    *, buyer: User | None = None, supplier: User | None = None
) -> tuple[User, User, Quotation]:
    """A request posted by `buyer` (by default the owner of a fresh Dutch company), quoted by
    `supplier` (by default the owner of a fresh Chinese company) and awarded to it: (buyer,
    supplier, the awarded quotation)."""
    if buyer is None:
        buyer, _company = make_trader(country="NL")
    if supplier is None:
        supplier, _company = make_trader()
    quotation = make_quotation(make_request(actor=buyer), actor=supplier)
    awarded = sourcing_services.quotation_award(actor=buyer, quotation=quotation)
    return buyer, supplier, awarded


def make_review(
    *, buyer: User | None = None, supplier: User | None = None, **overrides: Any
) -> Review:
    """An award and the buyer's review of it (`review_fields`, with `overrides`)."""
    buyer, _supplier, quotation = make_award(buyer=buyer, supplier=supplier)
    return services.review_create(actor=buyer, quotation=quotation, **review_fields(**overrides))
