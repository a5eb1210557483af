"""Background jobs of the sourcing app."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy
from django_tasks import task

from tradepost.companies.models import Membership, Standing
from tradepost.core.events import EventType, emit
from tradepost.core.languages import normalise_ui_language
from tradepost.membership.selectors import benefit_of_companies
from tradepost.notify.models import NotificationKind
from tradepost.notify.selectors import wants_message_emails
from tradepost.notify.services import (
    link_in,
    notification_create,
    queue_email,
    unsubscribe_token,
)
from tradepost.search.selectors import search_products
from tradepost.sourcing.first_look import alert_delay, gives_first_look
from tradepost.sourcing.machine_texts import quotations_translate, requests_translate
from tradepost.sourcing.models import BuyingRequest, MatchAlert, RequestStatus
from tradepost.sourcing.notices import (
    email_quoting_supplier,
    notify_company,
    request_title_quoted,
)

#: Search hits looked at for a new request, and suppliers told at most.
MATCH_HITS = 50
MATCH_SUPPLIERS_MAX = 20


@task()
def notify_request_matched(request_id: int) -> int:
    """Tell suppliers whose products match a new buying request (see `request_notify_matched`)."""
    return request_notify_matched(request_id=request_id)


@task()
def notify_award_result(request_id: int) -> int:
    """Tell the suppliers that quoted on an awarded request its outcome (see
    `request_notify_award`); enqueued when the award commits."""
    return request_notify_award(request_id=request_id)


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


def request_notify_matched(*, request_id: int, now: datetime | None = None) -> int:
    """Match an open request to the suppliers whose products it names and tell them: a
    `MatchAlert` row per company, due at once for a plan with a first look and
    TRADEPOST_FIRST_LOOK_MINUTES after the posting for the others (`sourcing.first_look`);
    the alerts due now are sent at once, the others by the worker's timer
    (`match_alerts_send_due`). A request is matched once: `matched_notified_at` is claimed
    by a conditional UPDATE in the transaction that writes its alerts. Returns how many
    people were told now."""
    now = now or timezone.now()
    request = BuyingRequest.objects.filter(
        pk=request_id, status=RequestStatus.OPEN, matched_notified_at__isnull=True
    ).first()
    if request is None:
        return 0
    supplier_ids = matching_supplier_ids(request)
    early = benefit_of_companies(supplier_ids, "early_look_minutes")
    with transaction.atomic():
        claimed = BuyingRequest.objects.filter(
            pk=request.pk, status=RequestStatus.OPEN, matched_notified_at__isnull=True
        ).update(matched_notified_at=now)
        if not claimed or not supplier_ids:
            return 0
        MatchAlert.objects.bulk_create(
            [
                MatchAlert(
                    request=request,
                    company_id=company_id,
                    first_look=gives_first_look(early[company_id]),
                    due_at=request.created_at + alert_delay(early[company_id]),
                    created_at=now,
                )
                for company_id in supplier_ids
            ],
            ignore_conflicts=True,
        )
    return match_alerts_send_due(now=now, request_id=request.pk)


#: Alerts sent per run of the timer's job (the rest wait for its next run).
ALERT_BATCH = 200


def match_alerts_send_due(*, now: datetime | None = None, request_id: int | None = None) -> int:
    """Send the alerts of matching requests that are due (of one request, or all), oldest
    first. Each is sent once, whichever worker gets there first. Returns how many people
    were told."""
    now = now or timezone.now()
    due = MatchAlert.objects.filter(sent_at__isnull=True, due_at__lte=now)
    if request_id is not None:
        due = due.filter(request_id=request_id)
    ids = list(due.order_by("due_at", "pk").values_list("pk", flat=True)[:ALERT_BATCH])
    return sum(_send_alert(pk, now=now) for pk in ids)


@transaction.atomic
def _send_alert(alert_id: int, *, now: datetime) -> int:
    """Claim one alert and tell every active member of its company, in the app and (unless
    they switched emails off) by email in their language. A request that is no longer open
    to quotations, or a company that may not trade, is told nothing (the alert is spent)."""
    claimed = MatchAlert.objects.filter(pk=alert_id, sent_at__isnull=True).update(sent_at=now)
    if not claimed:
        return 0
    alert = MatchAlert.objects.select_related("request", "company").get(pk=alert_id)
    request = alert.request
    if (
        request.status != RequestStatus.OPEN
        or request.deadline <= now
        or alert.company.standing != Standing.ACTIVE
    ):
        return 0
    emit(
        EventType.REQUEST_MATCHED,
        company_id=alert.company_id,
        payload={
            "request": {
                "id": request.pk,
                "title": request.title,
                "quantity": request.quantity,
                "unit": request.unit,
                "destination_country": request.destination_country,
                "deadline": request.deadline,
            },
            "first_look": alert.first_look,
        },
    )
    with translation.override("en"):
        path = reverse("sourcing:request_detail", args=[request.pk])
    params: dict[str, Any] = {"subject": request.title}
    if alert.first_look:
        params["first_look"] = True
    members = (
        Membership.objects.filter(company_id=alert.company_id, user__is_active=True)
        .select_related("user")
        .order_by("pk")
    )
    told = 0
    for member in members:
        user = member.user
        notification_create(
            recipient=user,
            kind=NotificationKind.REQUEST_MATCHED,
            params=params,
            link=path,
            now=now,
        )
        if wants_message_emails(user):
            _email_matched(user, request=request, first_look=alert.first_look)
        told += 1
    MatchAlert.objects.filter(pk=alert_id).update(recipients=told)
    return told


def _email_matched(user: Any, *, request: BuyingRequest, first_look: bool = False) -> None:
    language = normalise_ui_language(user.preferred_language)
    with translation.override(language):
        link = link_in(language, "sourcing:request_detail", args=[request.pk])
        unsubscribe = link_in(language, "messaging:unsubscribe", args=[unsubscribe_token(user)])
        unit = request.get_unit_display()
    queue_email(
        to=user.email,
        subject=gettext_lazy("A new buying request matches your products"),
        template="sourcing_request_matched",
        quoted={"request_title": request_title_quoted(request)},
        context={
            "recipient_name": user.get_short_name(),
            "quantity": request.quantity,
            "unit": unit,
            "link": link,
            "unsubscribe_link": unsubscribe,
            "first_look": first_look,
        },
        language=language,
    )


def request_notify_award(*, request_id: int, now: datetime | None = None) -> int:
    """Tell every company that quoted on an awarded request whether it won: each active
    member in the app (awarded or not selected), and the person who quoted by email, in
    their language. A request is told once: `award_notified_at` is claimed by a conditional
    UPDATE in the transaction that writes the notifications and queues the emails. Returns
    how many quotations' suppliers were told."""
    now = now or timezone.now()
    with transaction.atomic():
        claimed = BuyingRequest.objects.filter(
            pk=request_id, status=RequestStatus.AWARDED, award_notified_at__isnull=True
        ).update(award_notified_at=now)
        if not claimed:
            return 0
        request = BuyingRequest.objects.get(pk=request_id)
        quotations = list(request.quotations.select_related("created_by").order_by("pk"))
        for quotation in quotations:
            email_quoting_supplier(
                quotation,
                request=request,
                template="sourcing_award_result",
                subject=gettext_lazy("The outcome of a buying request you quoted on"),
            )
            notify_company(
                company_id=quotation.supplier_id,
                kind=(
                    NotificationKind.QUOTATION_AWARDED
                    if quotation.pk == request.awarded_quotation_id
                    else NotificationKind.QUOTATION_NOT_SELECTED
                ),
                subject=request.title,
                link=("sourcing:request_detail", request.pk),
                now=now,
            )
    return len(quotations)


@task()
def translate_requests(request_ids: list[int]) -> int:
    """Store the machine translations the open requests among `request_ids` lack, once they
    are posted or edited; answers how many were written."""
    return requests_translate(request_ids)


@task()
def translate_quotations(quotation_ids: list[int]) -> int:
    """Store the machine translations the notes of the quotations among `quotation_ids`
    lack, once they are sent or revised; answers how many were written."""
    return quotations_translate(quotation_ids)
