"""Quotations: a supplier's first quotation on a request (one slot of the request, one unit of
the company's monthly quota) and its revisions; the buyer is told of a new one."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal
from typing import Any, TypedDict, Unpack

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.dateparse import parse_date
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tradepost.catalog.models import PaymentTerm
from tradepost.companies.models import Company
from tradepost.core.cleaning import (
    FieldErrors,
    FieldInvalid,
    clean_choice,
    clean_choices,
    clean_currency,
    clean_flag,
    clean_lead_time_days,
    clean_number,
    clean_text,
)
from tradepost.core.events import EventType
from tradepost.core.incoterms import Incoterm
from tradepost.core.queueing import enqueue_on_commit
from tradepost.membership.selectors import monthly_quotation_quota
from tradepost.notify.models import NotificationKind
from tradepost.sourcing.errors import SourcingError, SourcingErrorCode
from tradepost.sourcing.models import BuyingRequest, Quotation, QuoteUsage, RequestStatus
from tradepost.sourcing.notices import email_request_poster, notify_company
from tradepost.sourcing.services._common import (
    _AMOUNT,
    _QUANTITY,
    PORT_MAX_LENGTH,
    _emit_quotation_event,
    _lock_request,
    _raise_if_invalid,
    _trading_company,
)
from tradepost.sourcing.tasks import translate_quotations

MESSAGE_MAX_LENGTH = 5_000
TIERS_MAX = 10


class QuotationFields(TypedDict, total=False):
    """What a supplier writes in a quotation: the input of `quotation_submit` (a revision
    sends the whole quotation again). The web form and the API body send these names."""

    unit_price: Decimal | int | str | None
    currency: str
    price_tiers: list[dict[str, Any]]
    moq: Decimal | int | str | None
    lead_time_days: int | str | None
    incoterm: str
    named_place: str
    payment_terms: list[str]
    valid_until: date | str | None
    sample_available: bool | str | None
    sample_cost: Decimal | int | str | None
    message: str


QUOTATION_FIELDS = frozenset(QuotationFields.__annotations__)


def monthly_quote_quota(company: Company) -> int:
    """Quotations `company` may start this month: its membership plan's quota."""
    return monthly_quotation_quota(company)


def _clean_price_tiers(value: Any) -> list[dict[str, str]]:
    """Volume prices: rows of a minimum quantity and a unit price, by quantity."""
    if value in (None, ""):
        return []
    if not isinstance(value, list | tuple) or len(value) > TIERS_MAX:
        raise FieldInvalid(_("Give at most %(count)d price tiers.") % {"count": TIERS_MAX})
    tiers: list[dict[str, str]] = []
    for tier in value:
        quantity = price = None
        if isinstance(tier, dict):
            try:
                quantity = clean_number(tier.get("min_quantity"), **_QUANTITY, required=True)
                price = clean_number(tier.get("unit_price"), **_AMOUNT, required=True)
            except FieldInvalid:
                pass
        if quantity is None or price is None:
            raise FieldInvalid(_("Each tier needs a minimum quantity and a unit price."))
        tiers.append({"min_quantity": str(quantity), "unit_price": str(price)})
    tiers.sort(key=lambda t: Decimal(t["min_quantity"]))
    quantities = [t["min_quantity"] for t in tiers]
    if len(set(quantities)) != len(quantities):
        raise FieldInvalid(_("Two tiers have the same minimum quantity."))
    return tiers


def _clean_valid_until(value: Any) -> date:
    """The last day a quotation holds: today or later."""
    if isinstance(value, datetime):
        day: date | None = value.date()
    elif isinstance(value, date):
        day = value
    elif isinstance(value, str) and value.strip():
        try:
            day = parse_date(value.strip())
        except ValueError:
            day = None
    else:
        raise FieldInvalid(_("This field is required."))
    if day is None:
        raise FieldInvalid(_("Enter a valid date."))
    if day < timezone.localdate():
        raise FieldInvalid(_("The validity date must not be in the past."))
    return day


#: How each field of a quotation is cleaned: the cleaner and its options.
_QUOTATION_CLEANERS: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {
    "unit_price": (clean_number, {**_AMOUNT, "required": True}),
    "currency": (clean_currency, {"required": True}),
    "price_tiers": (_clean_price_tiers, {}),
    "moq": (clean_number, {**_QUANTITY, "required": True}),
    "lead_time_days": (clean_lead_time_days, {"required": True}),
    "incoterm": (clean_choice, {"allowed": Incoterm.values, "required": True}),
    "named_place": (clean_text, {"max_length": PORT_MAX_LENGTH, "markup_free": True}),
    "payment_terms": (
        clean_choices,
        {"allowed": PaymentTerm.values, "message": gettext_lazy("Select a valid choice.")},
    ),
    "valid_until": (_clean_valid_until, {}),
    "sample_available": (clean_flag, {}),
    "sample_cost": (clean_number, _AMOUNT),
    "message": (clean_text, {"max_length": MESSAGE_MAX_LENGTH, "single_line": False}),
}
assert set(_QUOTATION_CLEANERS) == QUOTATION_FIELDS


def _clean_quotation_fields(fields: QuotationFields, errors: FieldErrors) -> dict[str, Any]:
    for name in sorted(set(fields) - QUOTATION_FIELDS):
        errors.add(name, _("Unknown field."))
    cleaned = {
        name: errors.clean(name, cleaner, fields.get(name), **options)
        for name, (cleaner, options) in _QUOTATION_CLEANERS.items()
    }
    if not cleaned["sample_available"]:
        cleaned["sample_cost"] = None
    return cleaned


def _month_start(today: date) -> date:
    return today.replace(day=1)


def _take_quota(company: Company, *, today: date) -> None:
    """Count one quotation against the company's monthly quota (its plan's), refusing at the
    limit.

    The row per (company, month) is created under its unique constraint; the increment is a
    conditional UPDATE, so two concurrent quotations cannot both take the last unit.
    """
    month = _month_start(today)
    quota = monthly_quote_quota(company)
    try:
        with transaction.atomic():
            QuoteUsage.objects.get_or_create(company=company, month=month)
    except IntegrityError:
        pass  # created by a concurrent quotation; the update below counts against it
    taken = QuoteUsage.objects.filter(company=company, month=month, count__lt=quota).update(
        count=F("count") + 1
    )
    if not taken:
        raise SourcingError(
            SourcingErrorCode.QUOTA_EXCEEDED,
            _("Your company has used all %(quota)d quotations for this month.") % {"quota": quota},
        )


def _take_request_slot(request: BuyingRequest, *, now: datetime) -> None:
    """Count one quotation against the request's limit, refusing when it is full or closed."""
    taken = BuyingRequest.objects.filter(
        pk=request.pk,
        status=RequestStatus.OPEN,
        deadline__gt=now,
        quotation_count__lt=F("quote_limit"),
    ).update(quotation_count=F("quotation_count") + 1)
    if not taken:
        current = BuyingRequest.objects.filter(pk=request.pk).values("status", "deadline").first()
        if current and current["status"] == RequestStatus.OPEN and current["deadline"] > now:
            raise SourcingError(
                SourcingErrorCode.REQUEST_FULL,
                _("This request has received all the quotations it accepts."),
            )
        raise SourcingError(
            SourcingErrorCode.REQUEST_NOT_OPEN, _("This request no longer accepts quotations.")
        )


def _supplier_company(actor: Any, buying_request: BuyingRequest) -> Company:
    """The actor's company, checked to be able to quote on `buying_request`."""
    supplier = _trading_company(actor)
    if supplier.pk == buying_request.buyer_id:
        raise SourcingError(
            SourcingErrorCode.OWN_REQUEST, _("Your company cannot quote on its own request.")
        )
    return supplier


def _ensure_accepts_quotations(request: BuyingRequest, *, now: datetime) -> None:
    if request.status != RequestStatus.OPEN or request.deadline <= now:
        raise SourcingError(
            SourcingErrorCode.REQUEST_NOT_OPEN, _("This request no longer accepts quotations.")
        )


@transaction.atomic
def quotation_submit(
    *, actor: Any, buying_request: BuyingRequest, **fields: Unpack[QuotationFields]
) -> Quotation:
    """Quote on an open request for the actor's company, or revise its quotation.

    A first quotation takes one slot of the request and one unit of the company's monthly
    quota; a revision takes neither.
    """
    supplier = _supplier_company(actor, buying_request)
    now = timezone.now()
    _ensure_accepts_quotations(buying_request, now=now)
    errors = FieldErrors()
    cleaned = _clean_quotation_fields(fields, errors)
    _raise_if_invalid(errors)
    # The request first (the lock order, `_common`): a revision cannot cross an award or a close.
    _ensure_accepts_quotations(_lock_request(buying_request.pk), now=now)
    existing = (
        Quotation.objects.select_for_update()
        .filter(request=buying_request, supplier=supplier)
        .first()
    )
    if existing is not None:
        revised = _quotation_revise(existing, actor=actor, cleaned=cleaned)
        _emit_quotation_event(EventType.QUOTATION_RECEIVED, revised, buying_request, supplier)
        enqueue_on_commit(translate_quotations, [revised.pk])
        return revised
    quotation = Quotation(request=buying_request, supplier=supplier, created_by=actor, **cleaned)
    _quotation_first(quotation, now=now)
    _tell_buyer_of_quotation(buying_request, supplier=supplier, quotation=quotation)
    _emit_quotation_event(EventType.QUOTATION_RECEIVED, quotation, buying_request, supplier)
    enqueue_on_commit(translate_quotations, [quotation.pk])
    return quotation


def _quotation_revise(existing: Quotation, *, actor: Any, cleaned: dict[str, Any]) -> Quotation:
    """Write a new revision of a quotation (its request locked and open): it takes no slot
    and no quota."""
    if not existing.is_revisable:
        raise SourcingError(
            SourcingErrorCode.WRONG_STATE, _("This quotation can no longer be revised.")
        )
    for name, value in cleaned.items():
        setattr(existing, name, value)
    existing.revision = F("revision") + 1
    existing.created_by = existing.created_by or actor
    existing.full_clean(exclude=["revision"])
    existing.save()
    existing.refresh_from_db()
    return existing


def _quotation_first(quotation: Quotation, *, now: datetime) -> None:
    """Save a company's first quotation on a request, taking a slot of the request and a
    unit of the company's monthly quota."""
    quotation.full_clean(validate_unique=False, validate_constraints=False)
    _take_request_slot(quotation.request, now=now)
    _take_quota(quotation.supplier, today=timezone.localdate())
    try:
        with transaction.atomic():
            quotation.save()
    except IntegrityError:
        # A concurrent first quotation of the same company won; this one is refused whole.
        raise SourcingError(
            SourcingErrorCode.WRONG_STATE, _("Your company has already quoted on this request.")
        ) from None


def _tell_buyer_of_quotation(
    buying_request: BuyingRequest, *, supplier: Company, quotation: Quotation
) -> None:
    """Email the person who posted the request and notify the buyer company's members."""
    email_request_poster(
        buying_request,
        template="sourcing_quotation_received",
        subject=gettext_lazy("New quotation for your buying request"),
        supplier=supplier,
        quotation=quotation,
    )
    notify_company(
        company_id=buying_request.buyer_id,
        kind=NotificationKind.NEW_QUOTATION,
        subject=buying_request.title,
        link=("sourcing:compare", buying_request.pk),
        from_company=supplier,
    )
