"""Reads of the webhooks app. A company's endpoints and their delivery logs are its owner's
and admins' (who see the integration's addresses and send test events): `access_webhook_endpoint`
and `access_webhook_delivery` are the only way to fetch one on a user's behalf, and anybody
else (a plain member, another company, an operator, a visitor) gets the same 404 as for an id
that names nothing. Operators read endpoints and deliveries in the administration, read-only.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company
from tradepost.core.events import EventType
from tradepost.core.ids import parse_id
from tradepost.webhooks.errors import WebhookError, WebhookErrorCode, WebhookNotFound
from tradepost.webhooks.models import DeliveryStatus, WebhookDelivery, WebhookEndpoint


def require_webhook_manager(*, user: Any) -> Company:
    """The company whose webhooks `user` manages (they are its owner or an admin; operators
    only by their own role); refused (403) for anybody else."""
    company = actor_for(user).managed_company
    if company is None:
        raise WebhookError(
            WebhookErrorCode.PERMISSION_DENIED,
            _("Only the owner and the admins of a company manage its webhooks."),
        )
    return company


def access_webhook_endpoint(*, user: Any, endpoint_id: Any) -> WebhookEndpoint:
    """An endpoint of the company `user` manages."""
    pk = parse_id(endpoint_id)
    company = actor_for(user).managed_company
    if pk is None or company is None:
        raise WebhookNotFound()
    found = WebhookEndpoint.objects.filter(pk=pk, company_id=company.pk).first()
    if found is None:
        raise WebhookNotFound()
    return found


def access_webhook_delivery(*, user: Any, endpoint_id: Any, delivery_id: Any) -> WebhookDelivery:
    """A delivery (with its event and endpoint) to an endpoint of the company `user` manages."""
    endpoint = access_webhook_endpoint(user=user, endpoint_id=endpoint_id)
    pk = parse_id(delivery_id)
    found = (
        WebhookDelivery.objects.select_related("event", "endpoint")
        .filter(pk=pk, endpoint_id=endpoint.pk)
        .first()
        if pk is not None
        else None
    )
    if found is None:
        raise WebhookNotFound(_("No such delivery."))
    return found


def endpoints_of(company: Company) -> QuerySet[WebhookEndpoint]:
    """The company's endpoints, oldest first."""
    return WebhookEndpoint.objects.filter(company=company).order_by("pk")


def deliveries_of(endpoint: WebhookEndpoint, *, status: str = "") -> QuerySet[WebhookDelivery]:
    """The endpoint's delivery log, newest first, with the events (of one status, if given)."""
    deliveries = WebhookDelivery.objects.filter(endpoint=endpoint).select_related("event")
    if status in DeliveryStatus.values:
        deliveries = deliveries.filter(status=status)
    return deliveries.order_by("-created_at", "-pk")


def event_type_choices() -> list[tuple[str, str]]:
    """The events an endpoint can subscribe to, with what each means (in the user's language)."""
    return [(str(value), str(label)) for value, label in EventType.choices]


def event_type_label(event_type: str) -> str:
    """What an event type means, in the user's language (the test event: said so)."""
    labels = dict(EventType.choices)
    if event_type in labels:
        return str(labels[event_type])
    return _("Test event")
