"""Writes on buying requests and quotations: one function per use case, one transaction each.

Every function takes keyword arguments only, re-checks that the actor may do what it asks,
validates everything before writing anything, and raises `SourcingError` (a
`core.errors.DomainError` with messages per field) when refused: nothing is saved then.
Counters (quotations per request, quotations per company per month) move with conditional
`F()` updates that refuse at the limit, so concurrent writers cannot pass it; awarding locks
the request row.

One lock order for a request and its quotations: the request's row first (`_lock_request`),
always, then its quotations. A revision that locked its quotation and then the request, beside
an award that locks the request and then writes every quotation of it, deadlocked on
PostgreSQL (four 500s in 32 racing requests).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any, TypedDict, Unpack

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tradepost.accounts.selectors import is_operator, user_can_publish
from tradepost.audit.services import audit_record
from tradepost.catalog.models import PaymentTerm, Unit
from tradepost.catalog.services import clean_leaf_category
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company, Membership
from tradepost.companies.selectors import company_described, standing_refusal
from tradepost.core.cleaning import (
    FieldErrors,
    FieldInvalid,
    clean_certifications,
    clean_choice,
    clean_choices,
    clean_country,
    clean_currency,
    clean_flag,
    clean_lead_time_days,
    clean_listing_language,
    clean_number,
    clean_rich_text,
    clean_text,
    storable,
)
from tradepost.core.events import EventType, emit
from tradepost.core.images import ImageRejected, process_image
from tradepost.core.incoterms import Incoterm
from tradepost.core.languages import normalise_ui_language
from tradepost.membership.selectors import monthly_quotation_quota
from tradepost.messaging.models import Conversation
from tradepost.messaging.services import inquiry_send, message_send
from tradepost.notify.models import NotificationKind
from tradepost.notify.services import absolute_url, notification_create, queue_email
from tradepost.search.outbox import OutboxKind, record_change, record_changes
from tradepost.sourcing.errors import RequestNotFound, SourcingError, SourcingErrorCode
from tradepost.sourcing.models import (
    REVISABLE_QUOTATION_STATES,
    Attachment,
    BuyingRequest,
    Quotation,
    QuotationStatus,
    QuoteUsage,
    RequestConversation,
    RequestStatus,
)
from tradepost.sourcing.tasks import notify_request_matched

TITLE_MAX_LENGTH = 200
DESCRIPTION_MAX_LENGTH = 20_000
PORT_MAX_LENGTH = 100
MESSAGE_MAX_LENGTH = 5_000
REASON_MAX_LENGTH = 500
CERTIFICATIONS_MAX = 20
CERTIFICATION_MAX_LENGTH = 60
TIERS_MAX = 10
MAX_AMOUNT = Decimal("9999999999")
MAX_DEADLINE_DAYS = 366
#: How long before its deadline the buyer is told a request closes soon.
EXPIRING_NOTICE = timedelta(hours=24)
#: Requests told per run of the expiring job (the next run takes the rest).
EXPIRING_BATCH = 500


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


def quote_limit_default() -> int:
    return int(settings.TRADEPOST_RFQ_QUOTE_LIMIT)


def monthly_quote_quota(company: Company) -> int:
    """Quotations `company` may start this month: its membership plan's quota."""
    return monthly_quotation_quota(company)


# --- validation ------------------------------------------------------------------------------


def _raise_if_invalid(errors: FieldErrors) -> None:
    errors.raise_if_any(SourcingError, SourcingErrorCode.INVALID)


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


#: Amounts of money (four decimal places) and quantities (three).
_AMOUNT: dict[str, Any] = {"maximum": MAX_AMOUNT, "places": 4}
_QUANTITY: dict[str, Any] = {"maximum": MAX_AMOUNT, "places": 3}

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


# --- buying requests -------------------------------------------------------------------------


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
    transaction.on_commit(lambda: notify_request_matched.enqueue(request.pk), robust=True)
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
    if has_quotes and changed:
        for quotation in request.quotations.select_related("created_by"):
            _email_quoting_supplier(
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


def _moderated(actor: Any, buying_request: BuyingRequest) -> BuyingRequest:
    """The request row-locked, once the actor is found to be an operator."""
    if not is_operator(actor):
        raise SourcingError(SourcingErrorCode.NOT_ALLOWED, _("Only operators can do this."))
    request = BuyingRequest.objects.select_for_update().filter(pk=buying_request.pk).first()
    if request is None:
        raise RequestNotFound()
    return request


def _moderation_change(actor: Any, request: BuyingRequest, status: str, action: str) -> None:
    audit_record(
        actor=actor,
        action=f"request.{action}",
        target=request,
        changes={"status": [request.status, status]},
    )
    request.status = status
    request.save(update_fields=["status", "updated_at"])
    record_change(kind=OutboxKind.REQUEST, object_id=request.pk)


@transaction.atomic
def request_hide(*, actor: Any, buying_request: BuyingRequest) -> BuyingRequest:
    """Hide an open request by moderation (operators): off the board and the search, no
    more quotations; its buyer and quoting suppliers still see it. A hidden one stays so."""
    request = _moderated(actor, buying_request)
    if request.status == RequestStatus.HIDDEN:
        return request
    if request.status != RequestStatus.OPEN:
        raise SourcingError(
            SourcingErrorCode.REQUEST_NOT_OPEN,
            _("Only open requests can be hidden: this one is no longer public."),
        )
    _moderation_change(actor, request, RequestStatus.HIDDEN, "hide")
    return request


@transaction.atomic
def request_restore(*, actor: Any, buying_request: BuyingRequest) -> BuyingRequest:
    """Lift a moderation hide (operators): the request is open again, or expired when its
    deadline passed meanwhile. A request that is not hidden stays as it is."""
    request = _moderated(actor, buying_request)
    if request.status == RequestStatus.HIDDEN:
        now = timezone.now()
        status = RequestStatus.OPEN if request.deadline > now else RequestStatus.EXPIRED
        if status == RequestStatus.EXPIRED:
            request.closed_at = now
            request.save(update_fields=["closed_at"])
        _moderation_change(actor, request, status, "restore")
    return request


def request_expire_due(*, now: datetime | None = None) -> int:
    """Mark open requests whose deadline has passed as expired; the number expired."""
    now = now or timezone.now()
    with transaction.atomic():
        due = BuyingRequest.objects.select_for_update().filter(
            status=RequestStatus.OPEN, deadline__lte=now
        )
        ids = list(due.values_list("id", flat=True))
        if not ids:
            return 0
        expired = BuyingRequest.objects.filter(id__in=ids, status=RequestStatus.OPEN).update(
            status=RequestStatus.EXPIRED, closed_at=now, updated_at=now
        )
        record_changes(kind=OutboxKind.REQUEST, object_ids=ids)
        return expired


def requests_notify_expiring(*, now: datetime | None = None) -> int:
    """Tell the buyers of open requests whose deadline is less than a day away (each request
    once: its `expiring_notified_at` is claimed by a conditional UPDATE, so two workers never
    tell it twice). Every member of the buyer company gets a notification; the person who
    posted it also gets an email. Returns how many requests were told."""
    now = now or timezone.now()
    due = list(
        BuyingRequest.objects.filter(
            status=RequestStatus.OPEN,
            expiring_notified_at__isnull=True,
            deadline__gt=now,
            deadline__lte=now + EXPIRING_NOTICE,
        )
        .order_by("deadline", "pk")
        .values_list("pk", flat=True)[:EXPIRING_BATCH]
    )
    told = 0
    for pk in due:
        with transaction.atomic():
            claimed = BuyingRequest.objects.filter(
                pk=pk, status=RequestStatus.OPEN, expiring_notified_at__isnull=True
            ).update(expiring_notified_at=now)
            if not claimed:
                continue
            request = BuyingRequest.objects.select_related("created_by").get(pk=pk)
            _notify_company(
                company_id=request.buyer_id,
                kind=NotificationKind.REQUEST_EXPIRING,
                subject=request.title,
                link=("sourcing:compare", request.pk),
                now=now,
            )
            buyer_user = request.created_by
            if buyer_user is not None and buyer_user.is_active:
                _email(
                    buyer_user,
                    template="sourcing_request_expiring",
                    subject=gettext_lazy("Your buying request closes within a day"),
                    context={
                        "request_title": request.title,
                        "quotation_count": request.quotation_count,
                        "link_path": ("sourcing:compare", request.pk),
                    },
                )
            told += 1
    return told


# --- quotations ------------------------------------------------------------------------------


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
    # The request first (the lock order above): a revision cannot cross an award or a close.
    _ensure_accepts_quotations(_lock_request(buying_request.pk), now=now)
    existing = (
        Quotation.objects.select_for_update()
        .filter(request=buying_request, supplier=supplier)
        .first()
    )
    if existing is not None:
        revised = _quotation_revise(existing, actor=actor, cleaned=cleaned)
        _emit_quotation_event(EventType.QUOTATION_RECEIVED, revised, buying_request, supplier)
        return revised
    quotation = Quotation(request=buying_request, supplier=supplier, created_by=actor, **cleaned)
    _quotation_first(quotation, now=now)
    _tell_buyer_of_quotation(buying_request, supplier=supplier)
    _emit_quotation_event(EventType.QUOTATION_RECEIVED, quotation, buying_request, supplier)
    return quotation


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


def _lock_request(request_id: int) -> BuyingRequest:
    """The request's row, locked until the transaction ends: taken before any of its
    quotations' rows (the lock order of this module)."""
    return BuyingRequest.objects.select_for_update().get(pk=request_id)


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


def _tell_buyer_of_quotation(buying_request: BuyingRequest, *, supplier: Company) -> None:
    """Email the person who posted the request and notify the buyer company's members."""
    buyer_user = buying_request.created_by
    if buyer_user is not None and buyer_user.is_active:
        _email(
            buyer_user,
            template="sourcing_quotation_received",
            subject=gettext_lazy("New quotation for your buying request"),
            context={
                "request_title": buying_request.title,
                "supplier_name": supplier.name_for(
                    normalise_ui_language(buyer_user.preferred_language)
                ),
                "link_path": ("sourcing:compare", buying_request.pk),
            },
        )
    _notify_company(
        company_id=buying_request.buyer_id,
        kind=NotificationKind.NEW_QUOTATION,
        subject=buying_request.title,
        link=("sourcing:compare", buying_request.pk),
        from_company=supplier,
    )


def _buyer_quotation(actor: Any, quotation: Quotation) -> BuyingRequest:
    """Lock and return the quotation's request after checking the actor acts for the buyer."""
    request = _lock_request(quotation.request_id)
    _buyer_company(actor, request.buyer)
    return request


@transaction.atomic
def quotation_shortlist(*, actor: Any, quotation: Quotation) -> Quotation:
    request = _buyer_quotation(actor, quotation)
    return _decide_quotation(
        quotation,
        request=request,
        from_states=[QuotationStatus.SUBMITTED],
        refusal=_("Only a new quotation can be shortlisted."),
        status=QuotationStatus.SHORTLISTED,
    )


@transaction.atomic
def quotation_decline(*, actor: Any, quotation: Quotation, reason: str) -> Quotation:
    request = _buyer_quotation(actor, quotation)
    errors = FieldErrors()
    text = errors.clean(
        "reason",
        clean_text,
        reason,
        max_length=REASON_MAX_LENGTH,
        required=True,
        markup_free=True,
    )
    _raise_if_invalid(errors)
    return _decide_quotation(
        quotation,
        request=request,
        from_states=REVISABLE_QUOTATION_STATES,
        refusal=_("This quotation can no longer be declined."),
        status=QuotationStatus.DECLINED,
        decline_reason=text,
    )


def _decide_quotation(
    quotation: Quotation,
    *,
    request: BuyingRequest,
    from_states: Iterable[str],
    refusal: str,
    **changes: Any,
) -> Quotation:
    """The buyer's decision on a quotation of an open request: a conditional UPDATE from one
    of `from_states`, so two decisions at once cannot both apply; `refusal` otherwise."""
    if request.status != RequestStatus.OPEN:
        raise SourcingError(
            SourcingErrorCode.REQUEST_NOT_OPEN, _("This request is no longer open.")
        )
    updated = Quotation.objects.filter(pk=quotation.pk, status__in=from_states).update(
        updated_at=timezone.now(), **changes
    )
    if not updated:
        raise SourcingError(SourcingErrorCode.WRONG_STATE, refusal)
    quotation.refresh_from_db()
    return quotation


@transaction.atomic
def quotation_award(*, actor: Any, quotation: Quotation) -> Quotation:
    """Award the request to one quotation: the request closes, the other quotations are marked
    not selected, and every quoting supplier is emailed. The request row is locked, and the
    status change is conditional, so of two awards at once only one wins."""
    request = _buyer_quotation(actor, quotation)
    now = timezone.now()
    won = BuyingRequest.objects.filter(pk=request.pk, status=RequestStatus.OPEN).update(
        status=RequestStatus.AWARDED,
        awarded_quotation_id=quotation.pk,
        closed_at=now,
        updated_at=now,
    )
    if not won:
        raise SourcingError(
            SourcingErrorCode.REQUEST_NOT_OPEN, _("This request is no longer open.")
        )
    record_change(kind=OutboxKind.REQUEST, object_id=request.pk)
    awarded = Quotation.objects.filter(
        pk=quotation.pk,
        request_id=request.pk,
        status__in=REVISABLE_QUOTATION_STATES,
    ).update(status=QuotationStatus.AWARDED, updated_at=now)
    if not awarded:
        # Undo the request change: raising rolls the whole transaction back.
        raise SourcingError(SourcingErrorCode.WRONG_STATE, _("This quotation cannot be awarded."))
    Quotation.objects.filter(request_id=request.pk).exclude(pk=quotation.pk).exclude(
        status=QuotationStatus.DECLINED
    ).update(status=QuotationStatus.NOT_SELECTED, updated_at=now)
    request.refresh_from_db()
    quotation.refresh_from_db()
    _emit_quotation_event(EventType.QUOTATION_AWARDED, quotation, request, request.buyer)
    for other in request.quotations.select_related("created_by"):
        _email_quoting_supplier(
            other,
            request=request,
            template="sourcing_award_result",
            subject=gettext_lazy("The outcome of a buying request you quoted on"),
        )
        _notify_company(
            company_id=other.supplier_id,
            kind=(
                NotificationKind.QUOTATION_AWARDED
                if other.pk == quotation.pk
                else NotificationKind.QUOTATION_NOT_SELECTED
            ),
            subject=request.title,
            link=("sourcing:request_detail", request.pk),
            now=now,
        )
    quotation.refresh_from_db()
    return quotation


# --- questions on a quotation ----------------------------------------------------------------


@transaction.atomic
def quotation_question(*, actor: Any, quotation: Quotation, message: Any) -> Conversation:
    """The buyer asks the quoting supplier a question: the conversation between the two
    companies about this request is reused when it exists, otherwise opened (as an inquiry to
    the supplier, linked to the request). Raises SourcingError when the actor does not act for
    the buyer, and the messaging app's MessagingError when the message is refused (empty, too
    long, rate limits)."""
    request = _buyer_quotation(actor, quotation)
    existing = (
        Conversation.objects.filter(
            request_link__request=request,
            buyer_company_id=request.buyer_id,
            supplier_company_id=quotation.supplier_id,
        )
        .order_by("pk")
        .first()
    )
    if existing is not None:
        message_send(actor=actor, conversation=existing, body=message)
        existing.refresh_from_db()
        return existing
    conversation = inquiry_send(
        actor=actor,
        message=message,
        company=quotation.supplier,
        subject=request.title,
        quantity=request.quantity,
        unit=request.unit,
        # A request that hides its buyer keeps hiding it in the conversation it opens.
        buyer_hidden=not request.reveal_identity,
    )
    link = RequestConversation(conversation=conversation, request=request)
    link.full_clean()
    link.save(force_insert=True)
    return conversation


# --- in-app notifications --------------------------------------------------------------------


def _notify_company(
    *,
    company_id: int,
    kind: str,
    subject: str,
    link: tuple[str, int],
    from_company: Company | None = None,
    now: datetime | None = None,
) -> None:
    """One notification for every active member of a company, inside the caller's
    transaction. `from_company` is named in each member's own language."""
    name, pk = link
    with translation.override("en"):
        path = reverse(name, args=[pk])
    members = (
        Membership.objects.filter(company_id=company_id, user__is_active=True)
        .select_related("user")
        .order_by("pk")
    )
    for member in members:
        params = {"subject": subject}
        if from_company is not None:
            language = normalise_ui_language(member.user.preferred_language)
            params["company"] = from_company.name_for(language)
        notification_create(recipient=member.user, kind=kind, params=params, link=path, now=now)


# --- emails ----------------------------------------------------------------------------------


def _email(user: Any, *, template: str, subject: Any, context: dict[str, Any]) -> None:
    language = normalise_ui_language(user.preferred_language)
    name, pk = context.pop("link_path")
    with translation.override(language):
        link = absolute_url(reverse(name, args=[pk]))
    queue_email(
        to=user.email,
        subject=subject,
        template=template,
        context={**context, "link": link},
        language=language,
    )


def _email_quoting_supplier(
    quotation: Quotation, *, request: BuyingRequest, template: str, subject: Any
) -> None:
    user = quotation.created_by
    if user is None or not user.is_active:
        return
    _email(
        user,
        template=template,
        subject=subject,
        context={
            "request_title": request.title,
            "won": quotation.status == QuotationStatus.AWARDED,
            "status": quotation.status,
            "link_path": ("sourcing:request_detail", request.pk),
        },
    )


# --- attachments -----------------------------------------------------------------------------

ATTACHMENTS_MAX_PER_OBJECT = 5
ATTACHMENT_NAME_MAX_LENGTH = 200
PDF_CONTENT_TYPE = "application/pdf"


def attachment_max_bytes() -> int:
    return int(settings.TRADEPOST_ATTACHMENT_MAX_BYTES)


def _attachment_file(upload: Any) -> tuple[ContentFile, str, int]:
    """Check an upload (a PDF, or an image that is re-encoded) and return what to store."""
    size = getattr(upload, "size", None) or 0
    if size > attachment_max_bytes():
        raise SourcingError(
            SourcingErrorCode.INVALID,
            {
                "file": [
                    _("The file is too large (%(size)d KB); the limit is %(limit)d KB.")
                    % {"size": size // 1024, "limit": attachment_max_bytes() // 1024}
                ]
            },
        )
    if size == 0:
        raise SourcingError(SourcingErrorCode.INVALID, {"file": [_("The file is empty.")]})
    upload.seek(0)
    head = upload.read(5)
    upload.seek(0)
    if head == b"%PDF-":
        data = upload.read()
        if b"%%EOF" not in data[-2048:]:
            raise SourcingError(
                SourcingErrorCode.INVALID, {"file": [_("The PDF file is damaged or incomplete.")]}
            )
        return ContentFile(data, name=f"{secrets.token_hex(16)}.pdf"), PDF_CONTENT_TYPE, len(data)
    try:
        processed = process_image(upload, max_bytes=attachment_max_bytes())
    except ImageRejected as exc:
        if not exc.not_an_image:  # an image, but too many pixels: say so
            raise SourcingError(SourcingErrorCode.INVALID, {"file": [str(exc)]}) from None
        raise SourcingError(
            SourcingErrorCode.INVALID,
            {"file": [_("Only PDF files and JPEG, PNG, WebP or GIF images are accepted.")]},
        ) from None
    name = processed.image.name or ""
    content_type = "image/png" if name.endswith(".png") else "image/jpeg"
    return processed.image, content_type, processed.image.size


def _original_name(upload: Any) -> str:
    name = storable(str(getattr(upload, "name", "") or "file"))
    name = name.replace("\\", "/").rsplit("/", 1)[-1].strip() or "file"
    return name[-ATTACHMENT_NAME_MAX_LENGTH:]


def _store_attachment(
    *, actor: Any, upload: Any, request: BuyingRequest | None, quotation: Quotation | None
) -> Attachment:
    parent_filter = {"request": request} if request is not None else {"quotation": quotation}
    if Attachment.objects.filter(**parent_filter).count() >= ATTACHMENTS_MAX_PER_OBJECT:
        raise SourcingError(
            SourcingErrorCode.INVALID,
            {
                "file": [
                    _("Attach at most %(count)d files.") % {"count": ATTACHMENTS_MAX_PER_OBJECT}
                ]
            },
        )
    content, content_type, size = _attachment_file(upload)
    attachment = Attachment(
        request=request,
        quotation=quotation,
        original_name=_original_name(upload),
        content_type=content_type,
        size=size,
        uploaded_by=actor,
    )
    attachment.file.save(content.name or "file", content, save=False)
    stored_name = attachment.file.name or ""
    try:
        attachment.full_clean()
        attachment.save()
    except Exception:
        attachment.file.storage.delete(stored_name)
        raise
    return attachment


@transaction.atomic
def attachment_add_to_request(
    *, actor: Any, buying_request: BuyingRequest, upload: Any
) -> Attachment:
    """Attach a specification or drawing to an open request of the actor's company."""
    _buyer_company(actor, buying_request.buyer)
    request = BuyingRequest.objects.select_for_update().get(pk=buying_request.pk)
    if request.status != RequestStatus.OPEN:
        raise SourcingError(
            SourcingErrorCode.REQUEST_NOT_OPEN, _("Only open requests can be changed.")
        )
    return _store_attachment(actor=actor, upload=upload, request=request, quotation=None)


@transaction.atomic
def attachment_add_to_quotation(*, actor: Any, quotation: Quotation, upload: Any) -> Attachment:
    """Attach a file to the actor's company's quotation while it can still be revised."""
    company = actor_for(actor).company
    if not user_can_publish(actor) or company is None:
        raise SourcingError(SourcingErrorCode.NOT_ALLOWED, _("You cannot change this quotation."))
    _lock_request(quotation.request_id)
    locked = Quotation.objects.select_for_update().get(pk=quotation.pk)
    if company.pk != locked.supplier_id:
        raise SourcingError(SourcingErrorCode.NOT_ALLOWED, _("You cannot change this quotation."))
    if not locked.is_revisable:
        raise SourcingError(
            SourcingErrorCode.WRONG_STATE, _("This quotation can no longer be revised.")
        )
    return _store_attachment(actor=actor, upload=upload, request=None, quotation=locked)


@transaction.atomic
def attachment_remove(*, actor: Any, attachment: Attachment) -> None:
    """Remove an attachment the actor's company added; the file goes once the row is gone."""
    company = actor_for(actor).company
    owner_id = (
        attachment.request.buyer_id
        if attachment.request_id is not None and attachment.request is not None
        else attachment.quotation.supplier_id
        if attachment.quotation is not None
        else None
    )
    if company is None or owner_id != company.pk:
        raise SourcingError(SourcingErrorCode.NOT_ALLOWED, _("You cannot remove this file."))
    name, storage = attachment.file.name or "", attachment.file.storage
    attachment.delete()
    if name:
        transaction.on_commit(lambda: storage.delete(name))
