"""Reads of the insights app: the supplier's desk (a company's last weeks) and the operator's
desk (queues and the week's numbers). A handful of grouped queries each, whatever the size of
the company or the site."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.conf import settings
from django.db.models import Count, Q, Sum
from django.utils import timezone

from tradepost.audit.models import AuditEntry
from tradepost.catalog.models import Product, ProductStatus
from tradepost.companies.models import Company
from tradepost.insights.models import ProductViewDay, SearchWordDay
from tradepost.membership.selectors import has_benefit
from tradepost.messaging.models import Conversation, Message
from tradepost.sourcing.models import BuyingRequest, Quotation, QuotationStatus, RequestStatus
from tradepost.sourcing.responsiveness import RESPONSE_WINDOW, Responsiveness
from tradepost.trust.selectors import pending_verification_count

#: The weeks the supplier's desk shows, and the most the API gives.
DESK_WEEKS = 12
MAX_WEEKS = 52
#: The search words the desk lists.
TOP_WORDS = 10
#: The listings the deeper statistics list (those with the most views and inquiries).
TOP_LISTINGS = 20


# --- the supplier's desk ---------------------------------------------------------------------


@dataclass(frozen=True)
class WeekNumbers:
    """One week (Monday to Sunday, the site's time zone) of a supplier's numbers."""

    start: date
    views: int
    inquiries: int
    quotations_sent: int
    quotations_won: int
    #: Inquiries started and requests quoted on this week, and how they were answered
    #: (the definitions of docs/adr/0007-responsiveness.md).
    responsiveness: Responsiveness

    @property
    def end(self) -> date:
        return self.start + timedelta(days=6)

    @property
    def response_rate(self) -> float | None:
        return self.responsiveness.response_rate

    @property
    def median_response_hours(self) -> float | None:
        """The median first response in hours, to one decimal; None when nothing was answered."""
        median = self.responsiveness.median_first_response
        return None if median is None else round(median.total_seconds() / 3600, 1)


@dataclass(frozen=True)
class SearchWord:
    word: str
    #: Results pages that showed the company's listings for a query holding the word.
    impressions: int


@dataclass(frozen=True)
class SupplierDesk:
    company: Company
    weeks: list[WeekNumbers]
    top_words: list[SearchWord]

    @property
    def start(self) -> date:
        return self.weeks[0].start

    @property
    def end(self) -> date:
        return self.weeks[-1].end

    @property
    def total_views(self) -> int:
        return sum(week.views for week in self.weeks)

    @property
    def total_inquiries(self) -> int:
        return sum(week.inquiries for week in self.weeks)

    @property
    def total_quotations_sent(self) -> int:
        return sum(week.quotations_sent for week in self.weeks)

    @property
    def total_quotations_won(self) -> int:
        return sum(week.quotations_won for week in self.weeks)


class _WeekTally:
    def __init__(self) -> None:
        self.views = 0
        self.inquiries = 0
        self.sent = 0
        self.won = 0
        self.conversations = 0
        self.quotations = 0
        self.in_time = 0
        self.delays: list[float] = []

    def answered(self, delay: timedelta) -> None:
        self.delays.append(delay.total_seconds())
        if delay <= RESPONSE_WINDOW:
            self.in_time += 1

    def result(self, start: date) -> WeekNumbers:
        median = timedelta(seconds=statistics.median(self.delays)) if self.delays else None
        return WeekNumbers(
            start=start,
            views=self.views,
            inquiries=self.inquiries,
            quotations_sent=self.sent,
            quotations_won=self.won,
            responsiveness=Responsiveness(
                conversations=self.conversations,
                answered_in_time=self.in_time,
                median_first_response=median,
                quotations=self.quotations,
            ),
        )


def desk_weeks(*, weeks: int = DESK_WEEKS, today: date | None = None) -> list[date]:
    """The Mondays of the last `weeks` weeks, the current one last."""
    today = today or timezone.localdate()
    monday = today - timedelta(days=today.weekday())
    return [monday - timedelta(weeks=back) for back in range(weeks - 1, -1, -1)]


def supplier_desk(
    *, company: Company, weeks: int = DESK_WEEKS, now: datetime | None = None
) -> SupplierDesk:
    """`company`'s last `weeks` weeks, week by week: views of its product pages, inquiries
    received, quotations sent and won, how it answered; and the search words that showed its
    listings most over those weeks. Five queries. The caller has checked the user acts for
    `company`."""
    now = now or timezone.now()
    weeks = max(1, min(int(weeks), MAX_WEEKS))
    mondays = desk_weeks(weeks=weeks, today=timezone.localdate(now))
    start = mondays[0]
    since = timezone.make_aware(datetime.combine(start, time.min))
    tallies = [_WeekTally() for _ in mondays]

    def tally_of(moment: datetime | date) -> _WeekTally | None:
        day = timezone.localtime(moment).date() if isinstance(moment, datetime) else moment
        index = (day - start).days // 7
        return tallies[index] if 0 <= index < len(tallies) else None

    views = (
        ProductViewDay.objects.filter(company=company, day__gte=start)
        .values_list("day")
        .annotate(total=Sum("count"))
        .order_by()
    )
    for day, total in views:
        if (tally := tally_of(day)) is not None:
            tally.views += total

    conversations = Conversation.objects.filter(
        supplier_company=company, created_at__gte=since
    ).values_list("created_at", "supplier_first_reply_at")
    for asked_at, answered_at in conversations:
        if (tally := tally_of(asked_at)) is None:
            continue
        tally.inquiries += 1
        if answered_at is None and now - asked_at < RESPONSE_WINDOW:
            continue  # younger than a day and not answered yet: the supplier still has time
        tally.conversations += 1
        if answered_at is not None:
            tally.answered(answered_at - asked_at)

    quotations = (
        Quotation.objects.filter(supplier=company)
        .filter(
            Q(created_at__gte=since)
            | Q(request__created_at__gte=since)
            | Q(status=QuotationStatus.AWARDED, request__closed_at__gte=since)
        )
        .values_list("created_at", "status", "request__created_at", "request__closed_at")
    )
    for sent_at, status, asked_at, closed_at in quotations:
        if (tally := tally_of(sent_at)) is not None:
            tally.sent += 1
        if (tally := tally_of(asked_at)) is not None:
            tally.quotations += 1
            tally.answered(max(sent_at - asked_at, timedelta(0)))
        if status == QuotationStatus.AWARDED and closed_at is not None:
            won_in = tally_of(closed_at)
            if won_in is not None:
                won_in.won += 1

    return SupplierDesk(
        company=company,
        weeks=[tally.result(monday) for tally, monday in zip(tallies, mondays, strict=True)],
        top_words=top_search_words(company=company, since=start, limit=TOP_WORDS),
    )


def top_search_words(*, company: Company, since: date, limit: int = TOP_WORDS) -> list[SearchWord]:
    """The words of the searches that showed `company`'s listings most often since `since`."""
    rows = (
        SearchWordDay.objects.filter(company=company, day__gte=since)
        .values_list("word")
        .annotate(total=Sum("count"))
        .order_by("-total", "word")[:limit]
    )
    return [SearchWord(word=word, impressions=total) for word, total in rows]


# --- the deeper statistics of a paid plan ----------------------------------------------------


@dataclass(frozen=True)
class ListingNumbers:
    """One listing's views and inquiries over the desk's weeks."""

    product: Product
    views: int
    inquiries: int

    @property
    def inquiries_per_hundred_views(self) -> float | None:
        return None if not self.views else round(100 * self.inquiries / self.views, 1)


@dataclass(frozen=True)
class CountryNumbers:
    """The inquiries of the desk's weeks from buyers of one country (ISO code)."""

    country: str
    inquiries: int


@dataclass(frozen=True)
class DeeperNumbers:
    listings: list[ListingNumbers]
    inquiry_countries: list[CountryNumbers]


def deeper_statistics(
    *, company: Company, since: date, limit: int = TOP_LISTINGS
) -> DeeperNumbers | None:
    """What a plan with `deeper_statistics` (Gold) adds to the desk, since `since`: the
    listings with the most views and inquiries, each with both, and where the inquiries'
    buyers are. None when the company's plan does not give it. Four queries."""
    if not has_benefit(company, "deeper_statistics"):
        return None
    start = timezone.make_aware(datetime.combine(since, time.min))
    views = dict(
        ProductViewDay.objects.filter(company=company, day__gte=since)
        .values_list("product_id")
        .annotate(total=Sum("count"))
        .order_by()
    )
    asked = Conversation.objects.filter(supplier_company=company, created_at__gte=start)
    inquiries = dict(
        asked.filter(product__isnull=False)
        .values_list("product_id")
        .annotate(total=Count("id"))
        .order_by()
    )
    ranked = sorted(
        set(views) | set(inquiries),
        key=lambda pk: (-views.get(pk, 0), -inquiries.get(pk, 0), pk),
    )[:limit]
    products = Product.objects.filter(company=company, pk__in=ranked).only(
        "id", "title", "slug", "status", "company_id"
    )
    by_id = {product.pk: product for product in products}
    countries = (
        asked.values_list("buyer_company__country")
        .annotate(total=Count("id"))
        .order_by("-total", "buyer_company__country")
    )
    return DeeperNumbers(
        listings=[
            ListingNumbers(by_id[pk], views.get(pk, 0), inquiries.get(pk, 0))
            for pk in ranked
            if pk in by_id
        ],
        inquiry_countries=[
            CountryNumbers(country or "", total) for country, total in countries if country
        ],
    )


# --- the operator's desk ---------------------------------------------------------------------


@dataclass(frozen=True)
class OperatorNumbers:
    """The queues an operator works through and the site's week, for the operator's desk."""

    #: Companies with published listings and no verified mark yet.
    unverified_companies: int
    #: Verification requests (documents sent) waiting for an operator (`trust`).
    pending_verifications: int
    #: Listings hidden by moderation.
    hidden_products: int
    #: Messages flagged as copies sent to many companies, over the last 30 days.
    flagged_messages: int
    new_companies: int
    new_products: int
    new_requests: int
    companies: int
    published_products: int
    open_requests: int
    #: Background tasks waiting and failed over the last 7 days (None: the queue is not in
    #: the database, e.g. Redis, and is watched there).
    tasks_waiting: int | None
    tasks_failed: int | None
    recent_actions: list[AuditEntry]


def operator_numbers(*, now: datetime | None = None) -> OperatorNumbers:
    """The operator desk's numbers ("new" means the last 7 days)."""
    now = now or timezone.now()
    week_ago = now - timedelta(days=7)
    published = Product.objects.filter(status=ProductStatus.PUBLISHED)
    tasks_waiting = tasks_failed = None
    if settings.TASKS_BACKEND_NAME == "database":
        from django_tasks.base import TaskResultStatus
        from django_tasks_db.models import DBTaskResult

        tasks_waiting = DBTaskResult.objects.filter(status=TaskResultStatus.READY).count()
        tasks_failed = DBTaskResult.objects.filter(
            status=TaskResultStatus.FAILED, finished_at__gte=week_ago
        ).count()
    return OperatorNumbers(
        unverified_companies=Company.objects.filter(is_verified=False)
        .filter(pk__in=published.values("company_id"))
        .count(),
        pending_verifications=pending_verification_count(),
        hidden_products=Product.objects.filter(status=ProductStatus.HIDDEN).count(),
        flagged_messages=Message.objects.filter(
            flagged=True, created_at__gte=now - timedelta(days=30)
        ).count(),
        new_companies=Company.objects.filter(created_at__gte=week_ago).count(),
        new_products=Product.objects.filter(created_at__gte=week_ago)
        .exclude(status=ProductStatus.DELETED)
        .count(),
        new_requests=BuyingRequest.objects.filter(created_at__gte=week_ago).count(),
        companies=Company.objects.count(),
        published_products=published.count(),
        open_requests=BuyingRequest.objects.filter(status=RequestStatus.OPEN).count(),
        tasks_waiting=tasks_waiting,
        tasks_failed=tasks_failed,
        recent_actions=list(AuditEntry.objects.order_by("-at", "-id")[:8]),
    )
