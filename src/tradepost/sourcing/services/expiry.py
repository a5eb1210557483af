"""The deadline of buying requests: open requests past it expire, and the buyers of those
closing within a day are told once."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy

from tradepost.notify.models import NotificationKind
from tradepost.search.outbox import OutboxKind, record_changes
from tradepost.sourcing.models import BuyingRequest, RequestStatus
from tradepost.sourcing.notices import email_request_poster, notify_company

#: How long before its deadline the buyer is told a request closes soon.
EXPIRING_NOTICE = timedelta(hours=24)
#: Requests told per run of the expiring job (the next run takes the rest).
EXPIRING_BATCH = 500


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
            notify_company(
                company_id=request.buyer_id,
                kind=NotificationKind.REQUEST_EXPIRING,
                subject=request.title,
                link=("sourcing:compare", request.pk),
                now=now,
            )
            email_request_poster(
                request,
                template="sourcing_request_expiring",
                subject=gettext_lazy("Your buying request closes within a day"),
                context={"quotation_count": request.quotation_count},
            )
            told += 1
    return told
