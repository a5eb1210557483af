"""Reads of buying requests and quotations; `access_*` are the only way to fetch them for a user.

A request is public while it is open (the board shows it), and always visible to its buyer's
members, to operators and to suppliers that quoted on it. A quotation is visible only to the
buyer company's members and the quoting supplier's members: anyone else gets the same 404 as
for an id that does not exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from django.db.models import F, Q, QuerySet
from django.utils import timezone

from tradepost.accounts.selectors import is_operator
from tradepost.catalog.models import Category, ProductStatus
from tradepost.catalog.selectors import product_counts_by_status
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company
from tradepost.companies.selectors import suspended_company_ids
from tradepost.core.currencies import is_currency
from tradepost.core.ids import parse_id
from tradepost.messaging.models import Conversation
from tradepost.messaging.selectors import unanswered_inquiry_count, unread_message_count
from tradepost.money.amounts import Money
from tradepost.money.rates import conversion_date, usd_per_unit
from tradepost.sourcing.errors import AttachmentNotFound, QuotationNotFound, RequestNotFound
from tradepost.sourcing.models import (
    Attachment,
    BuyingRequest,
    Quotation,
    QuoteUsage,
    RequestConversation,
    RequestStatus,
)
from tradepost.sourcing.responsiveness import Responsiveness, supplier_responsiveness_many
from tradepost.sourcing.services import monthly_quote_quota


def access_request(*, user: Any, request_id: Any) -> BuyingRequest:
    """A request the user may see: open ones of a buyer in good standing for everybody;
    the others for their buyer, their quoting suppliers and operators."""
    pk = parse_id(request_id)
    request = (
        BuyingRequest.objects.select_related("buyer", "category").filter(pk=pk).first()
        if pk
        else None
    )
    if request is None:
        raise RequestNotFound()
    public = request.status == RequestStatus.OPEN and not request.buyer.is_suspended
    if public or is_operator(user):
        return request
    company_id = actor_for(user).company_id
    if company_id is not None and (
        company_id == request.buyer_id
        or Quotation.objects.filter(request=request, supplier_id=company_id).exists()
    ):
        return request
    raise RequestNotFound()


def access_request_for_buyer(*, user: Any, request_id: Any) -> BuyingRequest:
    """A request of the user's own company (to edit, close, compare); 404 otherwise."""
    pk = parse_id(request_id)
    company_id = actor_for(user).company_id
    if pk is None or company_id is None:
        raise RequestNotFound()
    request = (
        BuyingRequest.objects.select_related("buyer", "category")
        .filter(pk=pk, buyer_id=company_id)
        .first()
    )
    if request is None:
        raise RequestNotFound()
    return request


def access_quotation(*, user: Any, quotation_id: Any) -> Quotation:
    """A quotation of the user's company, or one on a request of the user's company."""
    pk = parse_id(quotation_id)
    company_id = actor_for(user).company_id
    if pk is None or company_id is None:
        raise QuotationNotFound()
    quotation = (
        Quotation.objects.select_related("request", "supplier")
        .filter(pk=pk)
        .filter(Q(supplier_id=company_id) | Q(request__buyer_id=company_id))
        .first()
    )
    if quotation is None:
        raise QuotationNotFound()
    return quotation


def access_quotation_for_buyer(*, user: Any, quotation_id: Any) -> Quotation:
    """A quotation on a request of the user's company (to shortlist, decline, award)."""
    quotation = access_quotation(user=user, quotation_id=quotation_id)
    if quotation.request.buyer_id != actor_for(user).company_id:
        raise QuotationNotFound()
    return quotation


def access_attachment(*, user: Any, attachment_id: Any) -> Attachment:
    """An attachment whose request or quotation the user may see; 404 otherwise."""
    pk = parse_id(attachment_id)
    attachment = Attachment.objects.filter(pk=pk).first() if pk else None
    if attachment is None:
        raise AttachmentNotFound()
    try:
        if attachment.request_id is not None:
            access_request(user=user, request_id=attachment.request_id)
        else:
            access_quotation(user=user, quotation_id=attachment.quotation_id)
    except (RequestNotFound, QuotationNotFound):
        raise AttachmentNotFound() from None
    return attachment


def attachments_of_request(*, buying_request: BuyingRequest) -> list[Attachment]:
    return list(Attachment.objects.filter(request=buying_request))


def attachments_by_quotation(*, quotation_ids: list[int]) -> dict[int, list[Attachment]]:
    result: dict[int, list[Attachment]] = {}
    for attachment in Attachment.objects.filter(quotation_id__in=quotation_ids):
        result.setdefault(attachment.quotation_id or 0, []).append(attachment)
    return result


def with_request_ids(*, conversations: QuerySet[Conversation]) -> QuerySet[Conversation]:
    """`conversations`, each with `buying_request_id`: the id of the buying request it is
    about, or None (one join in the list's own query)."""
    return conversations.annotate(buying_request_id=F("request_link__request_id"))


def request_id_of_conversation(*, conversation_id: int) -> int | None:
    """The id of the buying request conversation `conversation_id` is about, or None."""
    return (
        RequestConversation.objects.filter(conversation_id=conversation_id)
        .values_list("request_id", flat=True)
        .first()
    )


def own_quotation(*, user: Any, buying_request: BuyingRequest) -> Quotation | None:
    company_id = actor_for(user).company_id
    if company_id is None:
        return None
    return Quotation.objects.filter(request=buying_request, supplier_id=company_id).first()


def visible_quotation_count(*, user: Any, buying_request: BuyingRequest) -> int | None:
    """How many quotations the user may know of: None while a sealed request is open to
    anyone but its buyer."""
    return quotation_count_for(
        viewer_company_id=actor_for(user).company_id, buying_request=buying_request
    )


def quotation_count_for(
    *, viewer_company_id: int | None, buying_request: BuyingRequest
) -> int | None:
    """`visible_quotation_count` for a viewer whose company is already known (lists)."""
    if not buying_request.sealed or viewer_company_id == buying_request.buyer_id:
        return buying_request.quotation_count
    if buying_request.status == RequestStatus.OPEN and buying_request.deadline > timezone.now():
        return None
    return buying_request.quotation_count


def can_quote(*, user: Any, buying_request: BuyingRequest) -> bool:
    company_id = actor_for(user).company_id
    return (
        company_id is not None
        and company_id != buying_request.buyer_id
        and buying_request.status == RequestStatus.OPEN
        and buying_request.deadline > timezone.now()
    )


def quota_left(*, company: Company, today: date | None = None) -> int:
    month = (today or timezone.localdate()).replace(day=1)
    used = (
        QuoteUsage.objects.filter(company=company, month=month)
        .values_list("count", flat=True)
        .first()
    )
    return max(0, monthly_quote_quota(company) - (used or 0))


# --- lists ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardFilters:
    """The board's filters. Pages and the API take them as the query parameters `category`,
    `destination`, `quantity_min`, `quantity_max` and `posted_within` (days), the names of
    the search's buying-request filters too (docs/adr/0014-one-pagination-style.md)."""

    category_id: int | None = None
    destinations: tuple[str, ...] = ()
    quantity_min: Decimal | None = None
    quantity_max: Decimal | None = None
    posted_within_days: int | None = None


def open_requests(*, filters: BoardFilters | None = None) -> QuerySet[BuyingRequest]:
    """The public board: open requests with a future deadline, of buyers in good standing,
    newest first."""
    filters = filters or BoardFilters()
    now = timezone.now()
    queryset = BuyingRequest.objects.filter(status=RequestStatus.OPEN, deadline__gt=now).exclude(
        buyer_id__in=suspended_company_ids()
    )
    if filters.category_id:
        category = Category.objects.filter(pk=filters.category_id).first()
        if category is None:
            return queryset.none()
        queryset = queryset.filter(
            Q(category=category) | Q(category__path__startswith=category.path + ".")
        )
    if filters.destinations:
        queryset = queryset.filter(
            destination_country__in=[code.upper() for code in filters.destinations]
        )
    if filters.quantity_min is not None:
        queryset = queryset.filter(quantity__gte=filters.quantity_min)
    if filters.quantity_max is not None:
        queryset = queryset.filter(quantity__lte=filters.quantity_max)
    if filters.posted_within_days:
        queryset = queryset.filter(created_at__gte=now - timedelta(days=filters.posted_within_days))
    return queryset.select_related("buyer", "category").order_by("-created_at", "-id")


def requests_of_company(*, company_id: int) -> QuerySet[BuyingRequest]:
    return (
        BuyingRequest.objects.filter(buyer_id=company_id)
        .select_related("category")
        .order_by("-created_at", "-id")
    )


def quotations_of_supplier(*, company_id: int) -> QuerySet[Quotation]:
    return (
        Quotation.objects.filter(supplier_id=company_id)
        .select_related("request", "request__category")
        .order_by("-updated_at", "-id")
    )


def quoted_request_ids(*, company_id: int, request_ids: list[int]) -> set[int]:
    """Which of `request_ids` the company has already quoted on (one query)."""
    return set(
        Quotation.objects.filter(supplier_id=company_id, request_id__in=request_ids).values_list(
            "request_id", flat=True
        )
    )


def quotations_for_buyer(*, buying_request: BuyingRequest) -> QuerySet[Quotation]:
    return (
        Quotation.objects.filter(request=buying_request)
        .select_related("supplier")
        .order_by("created_at", "id")
    )


# --- comparison -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ComparedQuotation:
    quotation: Quotation
    normalised_price: Decimal | None
    rate_date: date | None
    #: how the supplier answers buyers (conversations and quotations, last 90 days)
    responsiveness: Responsiveness | None = None


@dataclass(frozen=True)
class Comparison:
    currency: str
    rows: list[ComparedQuotation]
    rates_as_of: date | None
    missing_currencies: list[str]
    #: The currency asked for when it is not one the site knows (prices are then in USD).
    unknown_currency: str = ""


COMPARISON_SORTS = ("price", "lead_time", "moq", "verified", "response_rate", "received")


def compare_quotations(
    *, buying_request: BuyingRequest, currency: str = "USD", sort: str = "price"
) -> Comparison:
    """The request's quotations side by side, prices in `currency` through the operator's
    exchange-rate table (with the oldest rate date used)."""
    currency = (currency or "USD").upper()
    unknown = ""
    if not is_currency(currency):
        unknown, currency = currency, "USD"
    quotations = list(quotations_for_buyer(buying_request=buying_request))
    responsiveness = supplier_responsiveness_many([q.supplier_id for q in quotations])
    rows: list[ComparedQuotation] = []
    missing: set[str] = set()
    used_dates: list[date] = []
    for quotation in quotations:
        as_of: date | None = None
        converted = Money(quotation.unit_price, quotation.currency).to(currency)
        price: Decimal | None = converted.amount if converted is not None else None
        if converted is None:
            missing.add(
                quotation.currency if usd_per_unit(quotation.currency) is None else currency
            )
        elif quotation.currency != currency:
            as_of = conversion_date(quotation.currency, currency)
            if as_of is not None:
                used_dates.append(as_of)
        rows.append(
            ComparedQuotation(quotation, price, as_of, responsiveness.get(quotation.supplier_id))
        )
    rows.sort(key=_sort_key(sort))
    return Comparison(
        currency=currency,
        rows=rows,
        rates_as_of=min(used_dates) if used_dates else None,
        missing_currencies=sorted(missing),
        unknown_currency=unknown,
    )


def _sort_key(sort: str):
    infinity = Decimal("Infinity")
    if sort == "lead_time":
        return lambda row: (row.quotation.lead_time_days, row.quotation.pk)
    if sort == "moq":
        return lambda row: (row.quotation.moq, row.quotation.pk)
    if sort == "verified":
        return lambda row: (
            not row.quotation.supplier.is_verified,
            row.normalised_price if row.normalised_price is not None else infinity,
            row.quotation.pk,
        )
    if sort == "received":
        return lambda row: (row.quotation.created_at, row.quotation.pk)
    if sort == "response_rate":
        # Best answering suppliers first; suppliers nobody has asked yet last; then price.
        return lambda row: (
            row.responsiveness is None or row.responsiveness.response_rate is None,
            -(row.responsiveness.response_rate or 0) if row.responsiveness else 0,
            row.normalised_price if row.normalised_price is not None else infinity,
            row.quotation.pk,
        )
    return lambda row: (
        row.normalised_price if row.normalised_price is not None else infinity,
        row.quotation.pk,
    )


# --- the supplier's dashboard ----------------------------------------------------------------


@dataclass(frozen=True)
class SupplierKeyNumbers:
    """What a supplier's dashboard shows at a glance."""

    published_products: int
    draft_products: int
    unanswered_inquiries: int
    unread_messages: int
    #: Quotations started this calendar month (the quota counter) and the month's quota.
    quotations_this_month: int
    monthly_quota: int
    #: How the company answered buyers over the last 90 days (docs/adr/0007-responsiveness.md).
    responsiveness: Responsiveness

    @property
    def quota_left(self) -> int:
        return max(0, self.monthly_quota - self.quotations_this_month)


def supplier_key_numbers(
    *, user: Any, company: Company, today: date | None = None
) -> SupplierKeyNumbers:
    """The company's listings, inquiries waiting for an answer, quotations this month against
    the quota and its response rate, for `user`'s dashboard (a handful of small queries)."""
    month = (today or timezone.localdate()).replace(day=1)
    used = (
        QuoteUsage.objects.filter(company=company, month=month)
        .values_list("count", flat=True)
        .first()
    )
    products = product_counts_by_status(company_id=company.pk)
    return SupplierKeyNumbers(
        published_products=products.get(ProductStatus.PUBLISHED, 0),
        draft_products=products.get(ProductStatus.DRAFT, 0),
        unanswered_inquiries=unanswered_inquiry_count(company_id=company.pk),
        unread_messages=unread_message_count(user=user),
        quotations_this_month=used or 0,
        monthly_quota=monthly_quote_quota(company),
        responsiveness=supplier_responsiveness_many([company.pk])[company.pk],
    )
