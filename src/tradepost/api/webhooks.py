"""The company's webhooks: /api/v1/me/webhooks (docs/webhooks.md, docs/api.md).

The owner and the admins of a company add endpoints (the signing secret is answered once,
by the creation and by each rotation), change their address and events, switch them off
and on, delete them, send a test event, read the delivery log and send a delivery again.
A plain member answers 403; another company's endpoint or delivery answers 404 like a
missing one. Refusals become problem documents in one place, `api/urls.py`.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest
from ninja import Query, Router, Schema, Status
from pydantic import Field

from tradepost.api.auth import API_AUTH, caller
from tradepost.api.bodies import JsonBody
from tradepost.api.pagination import Rows, paged
from tradepost.webhooks import selectors, services
from tradepost.webhooks.models import WebhookDelivery, WebhookEndpoint
from tradepost.webhooks.signing import secret_hint

router = Router(auth=API_AUTH, tags=["webhooks"])

_EVENTS_DESCRIPTION = (
    "The events sent to it, at least one: inquiry.created, message.created, request.matched, "
    "quotation.received, quotation.awarded, product.published, import.finished "
    "(GET /api/v1/me/webhooks/event-types)"
)

# --- schemas ---------------------------------------------------------------------------------


class EndpointIn(JsonBody):
    url: str = Field(
        description="Where events are POSTed: an https:// (or http://) address of at most "
        "2,000 characters, without a user name, password or #fragment; private, loopback "
        "and reserved addresses are refused"
    )
    description: str = Field("", description="For your colleagues (at most 200 characters)")
    events: list[str] = Field(description=_EVENTS_DESCRIPTION)


class EndpointPatch(JsonBody):
    url: str | None = Field(None, description="A new address (see POST)")
    description: str | None = Field(None, description="A new description")
    events: list[str] | None = Field(None, description=_EVENTS_DESCRIPTION)


class RotateIn(JsonBody):
    keep_previous: bool = Field(
        True,
        description="Keep signing with the old secret too (a second v1 signature) for "
        "TRADEPOST_WEBHOOKS_ROTATION_HOURS (a day), while your system switches; false stops "
        "it at once (a secret that leaked)",
    )


class EndpointOut(Schema):
    id: int
    url: str
    description: str
    events: list[str]
    active: bool
    disabled_reason: str = Field(
        description="Empty while active; manual (switched off by the company) or failures "
        "(switched off after repeated failed deliveries)"
    )
    disabled_at: datetime | None
    consecutive_failures: int = Field(
        description="Deliveries that failed for good in a row (every attempt spent)"
    )
    secret_hint: str = Field(description="The secret's prefix and last four characters")
    previous_secret_expires_at: datetime | None = Field(
        description="Until when the previous secret also signs (after a rotation); null when not"
    )
    created_at: datetime
    updated_at: datetime


class EndpointWithSecretOut(EndpointOut):
    secret: str = Field(
        description="The signing secret, answered only now: keep it to check the "
        "Tradepost-Signature header of each delivery"
    )


class DeliveryOut(Schema):
    id: int
    event_id: str = Field(description="The event's id, the same in every delivery of it")
    event_type: str
    payload_version: int
    status: str = Field(description="pending, succeeded, failed or cancelled")
    attempts: int
    next_attempt_at: datetime | None = Field(description="When a pending delivery is tried next")
    last_attempt_at: datetime | None
    delivered_at: datetime | None
    response_status: int | None = Field(description="The HTTP status of the last answer")
    response_ms: int | None = Field(description="How long the last attempt took (milliseconds)")
    last_error: str = Field(description="Why the last attempt failed (at most 500 characters)")
    manual: bool = Field(description="Sent by hand: a test event or a redelivery (one attempt)")
    created_at: datetime


class DeliveryDetailOut(DeliveryOut):
    payload: dict[str, Any] = Field(description="The event as it is sent (the JSON body)")


class EventTypeOut(Schema):
    type: str
    description: str


class DeliveryListQuery(Schema):
    status: Literal["pending", "succeeded", "failed", "cancelled"] | None = None


# --- helpers ---------------------------------------------------------------------------------


def _endpoint_out(endpoint: WebhookEndpoint) -> dict[str, Any]:
    return {
        "id": endpoint.pk,
        "url": endpoint.url,
        "description": endpoint.description,
        "events": list(endpoint.events),
        "active": endpoint.is_active,
        "disabled_reason": endpoint.disabled_reason,
        "disabled_at": endpoint.disabled_at,
        "consecutive_failures": endpoint.consecutive_failures,
        "secret_hint": secret_hint(endpoint.secret_salt),
        "previous_secret_expires_at": (
            endpoint.previous_secret_expires_at if endpoint.previous_secret_salt else None
        ),
        "created_at": endpoint.created_at,
        "updated_at": endpoint.updated_at,
    }


def _with_secret(result: services.EndpointWithSecret) -> dict[str, Any]:
    return {**_endpoint_out(result.endpoint), "secret": result.secret}


def _delivery_out(delivery: WebhookDelivery) -> dict[str, Any]:
    event = delivery.event
    return {
        "id": delivery.pk,
        "event_id": str(event.event_id),
        "event_type": event.type,
        "payload_version": event.version,
        "status": delivery.status,
        "attempts": delivery.attempts,
        "next_attempt_at": delivery.next_attempt_at,
        "last_attempt_at": delivery.last_attempt_at,
        "delivered_at": delivery.delivered_at,
        "response_status": delivery.response_status,
        "response_ms": delivery.response_ms,
        "last_error": delivery.last_error,
        "manual": delivery.manual,
        "created_at": delivery.created_at,
    }


def _endpoint(request: HttpRequest, endpoint_id: int) -> WebhookEndpoint:
    return selectors.access_webhook_endpoint(user=caller(request), endpoint_id=endpoint_id)


# --- endpoints -------------------------------------------------------------------------------


@router.get("", response=list[EndpointOut], summary="List my company's webhook endpoints")
@paged()
def endpoint_list(request: HttpRequest) -> Rows:
    company = selectors.require_webhook_manager(user=caller(request))
    return Rows(selectors.endpoints_of(company), render=_endpoint_out)


@router.post(
    "",
    response={201: EndpointWithSecretOut},
    summary="Add a webhook endpoint (its secret is answered once)",
)
def endpoint_create(request: HttpRequest, payload: EndpointIn) -> Status[dict[str, Any]]:
    result = services.webhook_endpoint_create(actor=caller(request), **payload.dict())
    return Status(201, _with_secret(result))


@router.get(
    "/event-types", response=list[EventTypeOut], summary="The events an endpoint can subscribe to"
)
def event_types(request: HttpRequest) -> list[dict[str, str]]:
    return [
        {"type": value, "description": label} for value, label in selectors.event_type_choices()
    ]


@router.get("/{int:endpoint_id}", response=EndpointOut, summary="A webhook endpoint")
def endpoint_detail(request: HttpRequest, endpoint_id: int) -> dict[str, Any]:
    return _endpoint_out(_endpoint(request, endpoint_id))


@router.patch(
    "/{int:endpoint_id}",
    response=EndpointOut,
    summary="Change an endpoint's address, description or events",
)
def endpoint_update(request: HttpRequest, endpoint_id: int, payload: EndpointPatch) -> dict:
    endpoint = services.webhook_endpoint_update(
        actor=caller(request),
        endpoint=_endpoint(request, endpoint_id),
        **payload.dict(exclude_none=True),
    )
    return _endpoint_out(endpoint)


@router.delete(
    "/{int:endpoint_id}", response={204: None}, summary="Delete an endpoint and its delivery log"
)
def endpoint_delete(request: HttpRequest, endpoint_id: int) -> Status[None]:
    services.webhook_endpoint_delete(
        actor=caller(request), endpoint=_endpoint(request, endpoint_id)
    )
    return Status(204, None)


@router.post(
    "/{int:endpoint_id}/rotate-secret",
    response=EndpointWithSecretOut,
    summary="Give an endpoint a new signing secret (answered once)",
)
def endpoint_rotate(
    request: HttpRequest, endpoint_id: int, payload: RotateIn | None = None
) -> dict[str, Any]:
    result = services.webhook_endpoint_rotate_secret(
        actor=caller(request),
        endpoint=_endpoint(request, endpoint_id),
        keep_previous=payload.keep_previous if payload is not None else True,
    )
    return _with_secret(result)


@router.post("/{int:endpoint_id}/disable", response=EndpointOut, summary="Switch an endpoint off")
def endpoint_disable(request: HttpRequest, endpoint_id: int) -> dict[str, Any]:
    endpoint = services.webhook_endpoint_disable(
        actor=caller(request), endpoint=_endpoint(request, endpoint_id)
    )
    return _endpoint_out(endpoint)


@router.post(
    "/{int:endpoint_id}/enable",
    response=EndpointOut,
    summary="Switch an endpoint on again (its count of failures starts from zero)",
)
def endpoint_enable(request: HttpRequest, endpoint_id: int) -> dict[str, Any]:
    endpoint = services.webhook_endpoint_enable(
        actor=caller(request), endpoint=_endpoint(request, endpoint_id)
    )
    return _endpoint_out(endpoint)


@router.post(
    "/{int:endpoint_id}/test",
    response={201: DeliveryOut},
    summary="Send a webhook.test event to this endpoint (one attempt, after the answer)",
)
def endpoint_test(request: HttpRequest, endpoint_id: int) -> Status[dict[str, Any]]:
    delivery = services.webhook_endpoint_send_test(
        actor=caller(request), endpoint=_endpoint(request, endpoint_id)
    )
    return Status(201, _delivery_out(delivery))


@router.get(
    "/{int:endpoint_id}/deliveries",
    response=list[DeliveryOut],
    summary="An endpoint's delivery log, newest first",
)
@paged()
def delivery_list(request: HttpRequest, endpoint_id: int, query: Query[DeliveryListQuery]) -> Rows:
    endpoint = _endpoint(request, endpoint_id)
    return Rows(selectors.deliveries_of(endpoint, status=query.status or ""), render=_delivery_out)


@router.get(
    "/{int:endpoint_id}/deliveries/{int:delivery_id}",
    response=DeliveryDetailOut,
    summary="A delivery, with the event it sends",
)
def delivery_detail(request: HttpRequest, endpoint_id: int, delivery_id: int) -> dict[str, Any]:
    delivery = selectors.access_webhook_delivery(
        user=caller(request), endpoint_id=endpoint_id, delivery_id=delivery_id
    )
    return {**_delivery_out(delivery), "payload": json.loads(delivery.event.body)}


@router.post(
    "/{int:endpoint_id}/deliveries/{int:delivery_id}/redeliver",
    response={201: DeliveryOut},
    summary="Send a delivery's event again (a new delivery, the same event id)",
)
def delivery_redeliver(
    request: HttpRequest, endpoint_id: int, delivery_id: int
) -> Status[dict[str, Any]]:
    delivery = selectors.access_webhook_delivery(
        user=caller(request), endpoint_id=endpoint_id, delivery_id=delivery_id
    )
    again = services.webhook_delivery_redeliver(actor=caller(request), delivery=delivery)
    return Status(201, _delivery_out(again))
