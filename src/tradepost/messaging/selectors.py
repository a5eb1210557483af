"""Reads of the messaging app; `access_conversation` is the only way to fetch a conversation
on a user's behalf. A conversation of other companies answers exactly like a missing one."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, F, IntegerField, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from tradepost.companies.models import Company
from tradepost.companies.selectors import acting_company_id, is_operator
from tradepost.messaging.errors import ConversationNotFound, MessagingErrorCode
from tradepost.messaging.models import (
    Conversation,
    ConversationRead,
    Message,
    MessageAttachment,
)
from tradepost.sourcing.models import Quotation

_CONVERSATION = 0
_QUOTATION = 1

#: A supplier "answered" when its first reply came within this long after the inquiry.
RESPONSE_WINDOW = timedelta(hours=24)


def _not_found() -> ConversationNotFound:
    return ConversationNotFound(MessagingErrorCode.NOT_FOUND, _("No such conversation."))


def _conversation_id(conversation_id: Any) -> int:
    try:
        value = int(conversation_id)
    except (TypeError, ValueError):
        raise _not_found() from None
    if value <= 0 or value > 2**63 - 1:
        raise _not_found()
    return value


def access_conversation(user: Any, conversation_id: Any) -> Conversation:
    """The conversation if `user` is a member of one of its two companies or an operator."""
    pk = _conversation_id(conversation_id)
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        raise _not_found()
    conversation = (
        Conversation.objects.select_related(
            "buyer_company", "supplier_company", "buyer_user", "product"
        )
        .filter(pk=pk)
        .first()
    )
    if conversation is None:
        raise _not_found()
    if is_operator(user):
        return conversation
    company_id = acting_company_id(user)
    if company_id is None or company_id not in (
        conversation.buyer_company_id,
        conversation.supplier_company_id,
    ):
        raise _not_found()
    return conversation


def is_participant(user: Any, conversation: Conversation) -> bool:
    """Whether `user` acts for one of the conversation's two companies (and so may write)."""
    company_id = acting_company_id(user)
    return company_id is not None and company_id in (
        conversation.buyer_company_id,
        conversation.supplier_company_id,
    )


def _last_read_id(company_id: int) -> Coalesce:
    marks = ConversationRead.objects.filter(
        conversation_id=OuterRef("pk"), company_id=company_id
    ).values("last_read_message_id")[:1]
    return Coalesce(Subquery(marks), Value(0))


def conversations_for_company(company_id: int) -> QuerySet[Conversation]:
    """The company's conversations, newest activity first, each with `unread` (messages from
    the other side that no member of the company has opened yet)."""
    return (
        Conversation.objects.filter(
            Q(buyer_company_id=company_id) | Q(supplier_company_id=company_id)
        )
        .select_related("buyer_company", "supplier_company", "product")
        .annotate(last_read_id=_last_read_id(company_id))
        .annotate(
            unread=Count(
                "messages",
                filter=Q(messages__id__gt=F("last_read_id"))
                & ~Q(messages__sender_company_id=company_id),
            )
        )
        .order_by("-last_message_at", "-id")
    )


def inbox(*, user: Any) -> QuerySet[Conversation]:
    """Conversations of the user's company; none for a user without a company."""
    company_id = acting_company_id(user)
    if company_id is None:
        return Conversation.objects.none()
    return conversations_for_company(company_id)


def unread_message_count(*, user: Any) -> int:
    """Messages from the other side not yet read by the user's company, over all its
    conversations (the header badge)."""
    company_id = acting_company_id(user)
    if company_id is None:
        return 0
    marks = ConversationRead.objects.filter(
        conversation_id=OuterRef("conversation_id"), company_id=company_id
    ).values("last_read_message_id")[:1]
    return (
        Message.objects.filter(
            Q(conversation__buyer_company_id=company_id)
            | Q(conversation__supplier_company_id=company_id)
        )
        .exclude(sender_company_id=company_id)
        .annotate(last_read_id=Coalesce(Subquery(marks), Value(0)))
        .filter(id__gt=F("last_read_id"))
        .count()
    )


def unread_in(conversation: Conversation, *, company_id: int) -> int:
    mark = (
        ConversationRead.objects.filter(conversation=conversation, company_id=company_id)
        .values_list("last_read_message_id", flat=True)
        .first()
    )
    return (
        conversation.messages.exclude(sender_company_id=company_id).filter(id__gt=mark or 0).count()
    )


def conversation_messages(conversation: Conversation) -> QuerySet[Message]:
    """The conversation's messages, oldest first, with their senders."""
    return (
        conversation.messages.select_related("sender_user", "sender_company")
        .prefetch_related("attachments")
        .order_by("created_at", "id")
    )


def conversation_attachment(conversation: Conversation, attachment_id: Any) -> MessageAttachment:
    """An attachment of a message in `conversation` (already access-checked)."""
    try:
        pk = int(attachment_id)
    except (TypeError, ValueError):
        raise _not_found() from None
    item = (
        MessageAttachment.objects.filter(pk=pk, message__conversation=conversation).first()
        if 0 < pk <= 2**63 - 1
        else None
    )
    if item is None:
        raise _not_found()
    return item


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
