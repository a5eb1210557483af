"""What the sourcing write services share: the actor's company checked to trade (and to be the
buyer), the request's row locked, the field errors raised, the webhook event of a quotation.

One lock order for a request and its quotations: the request's row first (`_lock_request`),
always, then its quotations. A revision that locked its quotation and then the request, beside
an award that locks the request and then writes every quotation of it, deadlocked on
PostgreSQL (four 500s in 32 racing requests)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _

from tradepost.accounts.selectors import user_can_publish
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company
from tradepost.companies.selectors import company_described, standing_refusal
from tradepost.core.cleaning import FieldErrors
from tradepost.core.events import EventType, emit
from tradepost.sourcing.errors import SourcingError, SourcingErrorCode
from tradepost.sourcing.models import BuyingRequest, Quotation

PORT_MAX_LENGTH = 100
MAX_AMOUNT = Decimal("9999999999")

#: Amounts of money (four decimal places) and quantities (three).
_AMOUNT: dict[str, Any] = {"maximum": MAX_AMOUNT, "places": 4}
_QUANTITY: dict[str, Any] = {"maximum": MAX_AMOUNT, "places": 3}


def _raise_if_invalid(errors: FieldErrors) -> None:
    errors.raise_if_any(SourcingError, SourcingErrorCode.INVALID)


def _trading_company(actor: Any) -> Company:
    """The company the actor acts for, once their email address is verified."""
    if not user_can_publish(actor):
        raise SourcingError(
            SourcingErrorCode.EMAIL_NOT_VERIFIED, _("Verify your email address first.")
        )
    company = actor_for(actor).company
    if company is None:
        raise SourcingError(SourcingErrorCode.NO_COMPANY, _("Create or join a company first."))
    suspended = standing_refusal(company)
    if suspended:
        raise SourcingError(SourcingErrorCode.COMPANY_SUSPENDED, suspended)
    return company


def _buyer_company(actor: Any, buyer: Company | None = None) -> Company:
    """The actor's company, checked to be able to act as a buyer (and to be `buyer`)."""
    company = _trading_company(actor)
    if buyer is not None and company.pk != buyer.pk:
        raise SourcingError(SourcingErrorCode.NOT_ALLOWED, _("You cannot change this request."))
    return company


def _lock_request(request_id: int) -> BuyingRequest:
    """The request's row, locked until the transaction ends: taken before any of its
    quotations' rows (the lock order of these services, above)."""
    return BuyingRequest.objects.select_for_update().get(pk=request_id)


def _buyer_quotation(actor: Any, quotation: Quotation) -> BuyingRequest:
    """Lock and return the quotation's request after checking the actor acts for the buyer."""
    request = _lock_request(quotation.request_id)
    _buyer_company(actor, request.buyer)
    return request


def _emit_quotation_event(
    event_type: str, quotation: Quotation, request: BuyingRequest, other: Company
) -> None:
    """Tell the buyer's webhooks of a quotation (first or revised), or the supplier's of an
    award (docs/webhooks.md), in the transaction that writes it; `other` is the other side."""
    received = event_type == EventType.QUOTATION_RECEIVED
    emit(
        event_type,
        company_id=request.buyer_id if received else quotation.supplier_id,
        payload={
            "request": {"id": request.pk, "title": request.title},
            "quotation": {
                "id": quotation.pk,
                "revision": quotation.revision,
                "unit_price": quotation.unit_price,
                "currency": quotation.currency,
                "moq": quotation.moq,
                "incoterm": quotation.incoterm,
                "lead_time_days": quotation.lead_time_days,
                "valid_until": quotation.valid_until,
            },
            # A buyer that keeps its name to itself is described to the supplier, not named.
            ("from_company" if received else "buyer"): (
                {"id": other.pk, "slug": other.slug, "name": other.legal_name}
                if received or request.reveal_identity
                else {"id": None, "slug": None, "name": company_described(other, "en")}
            ),
        },
    )
