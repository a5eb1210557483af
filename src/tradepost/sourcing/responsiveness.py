"""How suppliers answer buyers: inquiries (messaging) and buying requests (sourcing) together,
for the product, company and comparison pages and the search documents (ADR 0007)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import IntegerField, Q, Value
from django.utils import timezone

from tradepost.companies.models import Company
from tradepost.messaging.models import Conversation
from tradepost.search.indexed_rates import indexed_rates
from tradepost.search.outbox import OutboxKind, record_changes
from tradepost.sourcing.models import Quotation

_CONVERSATION = 0
_QUOTATION = 1

#: A supplier "answered" when its first reply came within this long after the inquiry.
RESPONSE_WINDOW = timedelta(hours=24)


@dataclass(frozen=True)
class Responsiveness:
    """How a supplier answers buyers over a period (docs/adr/0007-responsiveness.md).

    Two kinds of asks count: a conversation a buyer started with the supplier (answered by the
    supplier's first reply) and a buying request the supplier quoted on (answered by the
    quotation; the clock starts when the request was posted). `answered_in_time` counts both
    kinds answered within 24 hours; `median_first_response` is the median delay over every
    answered ask.
    """

    conversations: int
    answered_in_time: int
    median_first_response: timedelta | None
    quotations: int = 0

    @property
    def asks(self) -> int:
        return self.conversations + self.quotations

    @property
    def response_rate(self) -> float | None:
        """0.0–1.0, or None when nobody has asked yet."""
        if not self.asks:
            return None
        return self.answered_in_time / self.asks

    @property
    def response_rate_percent(self) -> int | None:
        rate = self.response_rate
        return None if rate is None else round(rate * 100)

    @property
    def median_hours(self) -> int | None:
        """The median first response in whole hours (rounded up), for display."""
        if self.median_first_response is None:
            return None
        return math.ceil(self.median_first_response.total_seconds() / 3600)

    @property
    def median_days(self) -> int | None:
        hours = self.median_hours
        return None if hours is None else math.ceil(hours / 24)


@dataclass
class _Tally:
    conversations: int = 0
    quotations: int = 0
    in_time: int = 0
    delays: list[float] = field(default_factory=list)

    def add(self, delay: timedelta) -> None:
        self.delays.append(delay.total_seconds())
        if delay <= RESPONSE_WINDOW:
            self.in_time += 1

    def result(self) -> Responsiveness:
        median = timedelta(seconds=statistics.median(self.delays)) if self.delays else None
        return Responsiveness(
            conversations=self.conversations,
            answered_in_time=self.in_time,
            median_first_response=median,
            quotations=self.quotations,
        )


def supplier_responsiveness_many(
    company_ids: Iterable[int], *, days: int = 90, now: datetime | None = None
) -> dict[int, Responsiveness]:
    """`supplier_responsiveness` of several companies in one query; every id asked for is
    in the answer (with nothing counted when nobody asked it anything)."""
    ids = sorted({int(pk) for pk in company_ids})
    if not ids:
        return {}
    now = now or timezone.now()
    since = now - timedelta(days=days)
    tallies = {pk: _Tally() for pk in ids}
    # One query for both kinds of asks: (kind, company, asked at, answered at).
    conversations = (
        Conversation.objects.filter(supplier_company_id__in=ids, created_at__gte=since)
        .order_by()
        .values_list(
            Value(_CONVERSATION, output_field=IntegerField()),
            "supplier_company_id",
            "created_at",
            "supplier_first_reply_at",
        )
    )
    quotations = (
        Quotation.objects.filter(supplier_id__in=ids, request__created_at__gte=since)
        .order_by()
        .values_list(
            Value(_QUOTATION, output_field=IntegerField()),
            "supplier_id",
            "request__created_at",
            "created_at",
        )
    )
    for kind, company_id, asked_at, answered_at in conversations.union(quotations, all=True):
        tally = tallies[company_id]
        if kind == _QUOTATION:
            tally.quotations += 1
            tally.add(max(answered_at - asked_at, timedelta(0)))
            continue
        if answered_at is None and now - asked_at < RESPONSE_WINDOW:
            continue  # younger than a day and not answered yet: the supplier still has time
        tally.conversations += 1
        if answered_at is not None:
            tally.add(answered_at - asked_at)
    return {pk: tally.result() for pk, tally in tallies.items()}


def supplier_responsiveness(
    company: Company, *, days: int = 90, now: datetime | None = None
) -> Responsiveness:
    """Responsiveness of `company` as a supplier over conversations started and buying
    requests posted in the last `days` days. A conversation younger than 24 hours without a
    reply yet is not counted: the supplier still has time. A quotation always counts as an
    answer to its request, in time when sent within 24 hours of the request's posting."""
    return supplier_responsiveness_many([company.pk], days=days, now=now)[company.pk]


# --- keeping the index's rates current ------------------------------------------------------
#
# A rate moves when buyers ask and suppliers answer, which writes no product or company, so
# the worker looks every few minutes (`ops.periodic`) at the suppliers with new asks, answers
# or quotations since its last look, measures them again, and records a company change (which
# rebuilds the company's documents) for each one whose rate moved materially: by
# `MATERIAL_CHANGE` or more, or from "nobody asked yet" to a number. Rates that drift only
# because old asks leave the 90-day window are refreshed by the next change of the company or
# the listing, or by `tradepost reindex` (run nightly).

#: A change of the rate smaller than this (0-1) leaves the documents as they are.
MATERIAL_CHANGE = 0.05


def active_suppliers(*, since: datetime) -> set[int]:
    """Companies asked, answering or quoting since `since`."""
    ids = set(
        Conversation.objects.filter(
            Q(created_at__gte=since) | Q(supplier_first_reply_at__gte=since)
        ).values_list("supplier_company_id", flat=True)
    )
    ids.update(
        Quotation.objects.filter(created_at__gte=since).values_list("supplier_id", flat=True)
    )
    return {int(i) for i in ids if i is not None}


def materially_different(current: float | None, indexed: float | None) -> bool:
    if current is None or indexed is None:
        return (current is None) != (indexed is None)
    return abs(current - indexed) >= MATERIAL_CHANGE


def refresh_indexed_rates(*, since: datetime) -> int:
    """Record a company change for each supplier active since `since` whose response rate
    moved materially from the one its documents hold; the number recorded."""
    active = active_suppliers(since=since)
    if not active:
        return 0
    held = indexed_rates(active)
    measured = supplier_responsiveness_many(active)
    changed = [
        company_id
        for company_id in sorted(active)
        if company_id in held
        and materially_different(measured[company_id].response_rate, held[company_id])
    ]
    if changed:
        with transaction.atomic():
            record_changes(kind=OutboxKind.COMPANY, object_ids=changed)
    return len(changed)
