"""Background jobs of the sourcing app."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy
from django_tasks import task

from tradepost.companies.models import Membership
from tradepost.core.languages import normalise_ui_language
from tradepost.notify.models import NotificationKind
from tradepost.notify.selectors import wants_message_emails
from tradepost.notify.services import (
    absolute_url,
    notification_create,
    queue_email,
    unsubscribe_token,
)
from tradepost.search.selectors import search_products
from tradepost.sourcing.models import BuyingRequest, RequestStatus

#: Search hits looked at for a new request, and suppliers told at most.
MATCH_HITS = 50
MATCH_SUPPLIERS_MAX = 20


@task()
def notify_request_matched(request_id: int) -> int:
    """Tell suppliers whose products match a new buying request (see `request_notify_matched`)."""
    return request_notify_matched(request_id=request_id)


def matching_supplier_ids(request: BuyingRequest) -> list[int]:
    """Companies, best match first, with published products found by the request's title
    (in any language: the search expands through the glossary), the buyer left out."""
    result = search_products(
        query=request.title, language="en", per_page=MATCH_HITS, with_facets=False
    )
    supplier_ids: list[int] = []
    for hit in result.hits:
        company_id = hit.product.company_id
        if company_id == request.buyer_id or company_id in supplier_ids:
            continue
        supplier_ids.append(company_id)
        if len(supplier_ids) >= MATCH_SUPPLIERS_MAX:
            break
    return supplier_ids


def request_notify_matched(*, request_id: int) -> int:
    """Notify every active member of the matching supplier companies of an open request, in
    the app and (unless they switched emails off) by email in their language. A request is
    told once: `matched_notified_at` is claimed by a conditional UPDATE in the same
    transaction as the notifications. Returns how many people were notified."""
    request = BuyingRequest.objects.filter(
        pk=request_id, status=RequestStatus.OPEN, matched_notified_at__isnull=True
    ).first()
    if request is None:
        return 0
    supplier_ids = matching_supplier_ids(request)
    now = timezone.now()
    with transaction.atomic():
        claimed = BuyingRequest.objects.filter(
            pk=request.pk, status=RequestStatus.OPEN, matched_notified_at__isnull=True
        ).update(matched_notified_at=now)
        if not claimed or not supplier_ids:
            return 0
        with translation.override("en"):
            path = reverse("sourcing:request_detail", args=[request.pk])
        members = (
            Membership.objects.filter(company_id__in=supplier_ids, user__is_active=True)
            .select_related("user")
            .order_by("pk")
        )
        told = 0
        for member in members:
            user = member.user
            notification_create(
                recipient=user,
                kind=NotificationKind.REQUEST_MATCHED,
                params={"subject": request.title},
                link=path,
                now=now,
            )
            if wants_message_emails(user):
                _email_matched(user, request=request)
            told += 1
    return told


def _email_matched(user: Any, *, request: BuyingRequest) -> None:
    language = normalise_ui_language(user.preferred_language)
    with translation.override(language):
        link = absolute_url(reverse("sourcing:request_detail", args=[request.pk]))
        unsubscribe = absolute_url(reverse("messaging:unsubscribe", args=[unsubscribe_token(user)]))
        unit = request.get_unit_display()
    queue_email(
        to=user.email,
        subject=gettext_lazy("A new buying request matches your products"),
        template="sourcing_request_matched",
        context={
            "recipient_name": user.get_short_name(),
            "request_title": request.title,
            "quantity": request.quantity,
            "unit": unit,
            "link": link,
            "unsubscribe_link": unsubscribe,
        },
        language=language,
    )
