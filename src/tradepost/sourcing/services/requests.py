"""Buying requests: posted, changed (once quotations arrived, only the description and a later
deadline, and every quoting supplier is told) and closed by the buyer."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any, TypedDict, Unpack

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tradepost.catalog.models import Unit
from tradepost.catalog.services import clean_leaf_category
from tradepost.core.cleaning import (
    FieldErrors,
    FieldInvalid,
    clean_certifications,
    clean_choice,
    clean_country,
    clean_currency,
    clean_flag,
    clean_listing_language,
    clean_number,
    clean_rich_text,
    clean_text,
)
from tradepost.core.incoterms import Incoterm
from tradepost.core.queueing import enqueue_on_commit
from tradepost.search.outbox import OutboxKind, record_change
from tradepost.sourcing.errors import SourcingError, SourcingErrorCode
from tradepost.sourcing.models import BuyingRequest, RequestStatus
from tradepost.sourcing.notices import email_quoting_supplier
from tradepost.sourcing.services._common import (
    _AMOUNT,
    _QUANTITY,
    PORT_MAX_LENGTH,
    _buyer_company,
    _raise_if_invalid,
)
from tradepost.sourcing.services.expiry import EXPIRING_NOTICE
from tradepost.sourcing.tasks import notify_request_matched, translate_requests

TITLE_MAX_LENGTH = 200
DESCRIPTION_MAX_LENGTH = 20_000
CERTIFICATIONS_MAX = 20
CERTIFICATION_MAX_LENGTH = 60
MAX_DEADLINE_DAYS = 366


class RequestFields(TypedDict, total=False):
    """What a buyer writes about a buying request: the input of `request_create` and
    `request_update` (absent keys are left as they are on update). The web form and the API
    body send these names; tests/test_input_layer.py keeps the three in step."""

    title: str
    description: str
    original_language: str
    category_id: int | str | None
    quantity: Decimal | int | str | None
    unit: str
    target_unit_price: Decimal | int | str | None
    target_currency: str
    destination_country: str
    destination_port: str
    preferred_incoterm: str
    required_certifications: list[str] | str
    deadline: datetime | date | str | None
    sealed: bool | str | None
    reveal_identity: bool | str | None


REQUEST_FIELDS = frozenset(RequestFields.__annotations__)
#: What a buyer may still change once quotations have arrived.
FIELDS_EDITABLE_AFTER_QUOTES = frozenset({"description", "deadline"})


def quote_limit_default() -> int:
    return int(settings.TRADEPOST_RFQ_QUOTE_LIMIT)


def _at_end_of_day(day: date) -> datetime:
    return datetime.combine(day, datetime.max.time().replace(microsecond=0))


def _parse_moment(value: Any) -> datetime:
    """A date and time from a datetime, a date (its last second) or an ISO string."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return _at_end_of_day(value)
    if not isinstance(value, str) or not value.strip():
        raise FieldInvalid(_("This field is required."))
    text = value.strip()
    try:
        moment = parse_datetime(text)
        if moment is None:
            day = parse_date(text)
            moment = _at_end_of_day(day) if day else None
    except ValueError:
        moment = None
    if moment is None:
        raise FieldInvalid(_("Enter a valid date."))
    return moment


def _clean_deadline(value: Any, *, now: datetime) -> datetime:
    moment = _parse_moment(value)
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    if moment <= now:
        raise FieldInvalid(_("The deadline must be in the future."))
    if moment > now + timedelta(days=MAX_DEADLINE_DAYS):
        raise FieldInvalid(_("The deadline must be within a year."))
    return moment


def _clean_request_language(value: Any) -> str:
    """The language a request is written in; English when none is given."""
    return clean_listing_language("en" if value in (None, "") else value)


#: How each field of a buying request is cleaned: the model field it sets, the cleaner and
#: its options (the deadline's cleaner also takes the moment of the request).
_REQUEST_CLEANERS: dict[str, tuple[str, Callable[..., Any], dict[str, Any]]] = {
    "title": (
        "title",
        clean_text,
        {"max_length": TITLE_MAX_LENGTH, "required": True, "markup_free": True},
    ),
    "description": (
        "description",
        clean_rich_text,
        {"max_length": DESCRIPTION_MAX_LENGTH, "max_input_length": DESCRIPTION_MAX_LENGTH},
    ),
    "original_language": ("original_language", _clean_request_language, {}),
    "category_id": ("category", clean_leaf_category, {}),
    "quantity": ("quantity", clean_number, {**_QUANTITY, "required": True}),
    "unit": ("unit", clean_choice, {"allowed": Unit.values, "required": True}),
    "target_unit_price": ("target_unit_price", clean_number, _AMOUNT),
    "target_currency": ("target_currency", clean_currency, {"required": False}),
    "destination_country": ("destination_country", clean_country, {"required": True}),
    "destination_port": (
        "destination_port",
        clean_text,
        {"max_length": PORT_MAX_LENGTH, "markup_free": True},
    ),
    "preferred_incoterm": ("preferred_incoterm", clean_choice, {"allowed": Incoterm.values}),
    "required_certifications": (
        "required_certifications",
        clean_certifications,
        {"max_count": CERTIFICATIONS_MAX, "max_length": CERTIFICATION_MAX_LENGTH},
    ),
    "deadline": ("deadline", _clean_deadline, {}),
    "sealed": ("sealed", clean_flag, {}),
    "reveal_identity": ("reveal_identity", clean_flag, {}),
}
assert set(_REQUEST_CLEANERS) == REQUEST_FIELDS


def _clean_request_fields(
    fields: RequestFields, *, errors: FieldErrors, now: datetime, partial: bool
) -> dict[str, Any]:
    """The values to store for the fields given (every field unless `partial`)."""
    for name in sorted(set(fields) - REQUEST_FIELDS):
        errors.add(name, _("Unknown field."))
    cleaned: dict[str, Any] = {}
    for name, (target, cleaner, options) in _REQUEST_CLEANERS.items():
        if partial and name not in fields:
            continue
        if cleaner is _clean_deadline:
            options = {"now": now}
        cleaned[target] = errors.clean(name, cleaner, fields.get(name), **options)
    return cleaned


def _check_price_pair(request: BuyingRequest, errors: FieldErrors) -> None:
    if request.target_unit_price is not None and not request.target_currency:
        errors.add("target_currency", _("Give the currency of the target price."))


@transaction.atomic
def request_create(*, actor: Any, **fields: Unpack[RequestFields]) -> BuyingRequest:
    """Post a buying request for the actor's company."""
    buyer = _buyer_company(actor)
    errors = FieldErrors()
    cleaned = _clean_request_fields(fields, errors=errors, now=timezone.now(), partial=False)
    _raise_if_invalid(errors)
    request = BuyingRequest(
        buyer=buyer, created_by=actor, quote_limit=quote_limit_default(), **cleaned
    )
    _check_price_pair(request, errors)
    _raise_if_invalid(errors)
    request.full_clean()
    request.save()
    record_change(kind=OutboxKind.REQUEST, object_id=request.pk)
    enqueue_on_commit(notify_request_matched, request.pk)
    enqueue_on_commit(translate_requests, [request.pk])
    return request


@transaction.atomic
def request_update(
    *, actor: Any, buying_request: BuyingRequest, **fields: Unpack[RequestFields]
) -> BuyingRequest:
    """Change an open request. Once quotations arrived, only the description and a later
    deadline may change, and every quoting supplier is told."""
    _buyer_company(actor, buying_request.buyer)
    request = BuyingRequest.objects.select_for_update().get(pk=buying_request.pk)
    if request.status != RequestStatus.OPEN:
        raise SourcingError(
            SourcingErrorCode.REQUEST_NOT_OPEN, _("Only open requests can be changed.")
        )
    now = timezone.now()
    errors = FieldErrors()
    cleaned = _clean_request_fields(fields, errors=errors, now=now, partial=True)
    _raise_if_invalid(errors)
    has_quotes = request.quotation_count > 0
    changed = {name for name, value in cleaned.items() if getattr(request, name) != value}
    if has_quotes:
        locked = changed - FIELDS_EDITABLE_AFTER_QUOTES
        for name in sorted(locked):
            field = "category_id" if name == "category" else name
            errors.add(
                field,
                _("Quotations have arrived: only the description and the deadline can change."),
            )
        if "deadline" in changed and cleaned["deadline"] < request.deadline:
            errors.add("deadline", _("Quotations have arrived: the deadline can only be extended."))
        if errors.by_field:
            raise SourcingError(SourcingErrorCode.LOCKED_AFTER_QUOTES, errors.by_field)
    for name, value in cleaned.items():
        setattr(request, name, value)
    if "deadline" in changed and request.deadline > now + EXPIRING_NOTICE:
        # A deadline moved out of the last day: the buyer is told again before the new one.
        request.expiring_notified_at = None
    _check_price_pair(request, errors)
    _raise_if_invalid(errors)
    request.full_clean()
    request.save()
    record_change(kind=OutboxKind.REQUEST, object_id=request.pk)
    if changed & {"title", "description"}:
        enqueue_on_commit(translate_requests, [request.pk])
    if has_quotes and changed:
        for quotation in request.quotations.select_related("created_by"):
            email_quoting_supplier(
                quotation,
                request=request,
                template="sourcing_request_changed",
                subject=gettext_lazy("A buying request you quoted on has changed"),
            )
    buying_request.__dict__.update(request.__dict__)
    return request


@transaction.atomic
def request_close(*, actor: Any, buying_request: BuyingRequest) -> BuyingRequest:
    """The buyer stops taking quotations without awarding any."""
    _buyer_company(actor, buying_request.buyer)
    updated = BuyingRequest.objects.filter(pk=buying_request.pk, status=RequestStatus.OPEN).update(
        status=RequestStatus.CLOSED, closed_at=timezone.now(), updated_at=timezone.now()
    )
    if not updated:
        raise SourcingError(
            SourcingErrorCode.REQUEST_NOT_OPEN, _("Only open requests can be closed.")
        )
    record_change(kind=OutboxKind.REQUEST, object_id=buying_request.pk)
    buying_request.refresh_from_db()
    return buying_request
