"""The transactional outbox of webhook events (docs/adr/0028-webhooks.md).

`record_event` is the recorder `core.events.emit` calls (installed by `WebhooksConfig.ready`):
inside the emitting transaction it writes the event, as the exact JSON every delivery will
send, and one pending delivery per active endpoint of the company that subscribed to it.
Both commit with the change or not at all. After the commit the deliveries are put on the
task queue; if that fails (the process dies between the two, the queue does not answer) the
worker's timer finds them due and queues them (`services.deliveries_send_due`).

A company with no endpoint for the event costs one indexed query and writes nothing.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone

from tradepost.core.events import PAYLOAD_VERSION
from tradepost.core.queueing import enqueue_on_commit
from tradepost.webhooks.models import (
    DeliveryStatus,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)

#: The event a "send a test event" button sends, to that endpoint only.
TEST_EVENT = "webhook.test"


def event_body(
    *, event_id: uuid.UUID, event_type: str, company_id: int, data: Mapping[str, Any], at: datetime
) -> str:
    """The JSON of an event as receivers get it (compact, UTF-8, keys in this order)."""
    envelope = {
        "id": str(event_id),
        "type": event_type,
        "version": PAYLOAD_VERSION,
        "created_at": at,
        "company_id": company_id,
        "data": dict(data),
    }
    return json.dumps(envelope, cls=DjangoJSONEncoder, ensure_ascii=False, separators=(",", ":"))


def new_event(
    *, event_type: str, company_id: int, data: Mapping[str, Any], now: datetime | None = None
) -> WebhookEvent:
    """Store an event (inside the caller's transaction)."""
    now = now or timezone.now()
    event_id = uuid.uuid4()
    return WebhookEvent.objects.create(
        event_id=event_id,
        company_id=company_id,
        type=event_type,
        version=PAYLOAD_VERSION,
        body=event_body(
            event_id=event_id, event_type=event_type, company_id=company_id, data=data, at=now
        ),
        created_at=now,
    )


def new_deliveries(
    event: WebhookEvent, endpoint_ids: Iterable[int], *, manual: bool = False
) -> list[WebhookDelivery]:
    """Pending deliveries of `event` to the endpoints, due now, queued after the commit."""
    now = timezone.now()
    deliveries = WebhookDelivery.objects.bulk_create(
        [
            WebhookDelivery(
                event=event,
                endpoint_id=endpoint_id,
                status=DeliveryStatus.PENDING,
                next_attempt_at=now,
                manual=manual,
                created_at=now,
            )
            for endpoint_id in endpoint_ids
        ]
    )
    queue_after_commit([delivery.pk for delivery in deliveries])
    return deliveries


def queue_after_commit(delivery_ids: list[int]) -> None:
    """Put the deliveries on the task queue once the current transaction commits (robust: a
    queue that does not answer leaves them to the worker's timer, never fails the write)."""
    from tradepost.webhooks.tasks import deliver_webhook

    for delivery_id in delivery_ids:
        enqueue_on_commit(deliver_webhook, delivery_id=delivery_id)


def record_event(event_type: str, company_id: int, payload: Mapping[str, Any]) -> None:
    """The recorder of `core.events.emit`: the event and its deliveries, in this transaction,
    for the company's active endpoints subscribed to `event_type`."""
    subscribed = [
        endpoint_id
        for endpoint_id, events in WebhookEndpoint.objects.filter(
            company_id=company_id, is_active=True
        ).values_list("pk", "events")
        if isinstance(events, list) and event_type in events
    ]
    if not subscribed:
        return
    event = new_event(event_type=event_type, company_id=company_id, data=payload)
    new_deliveries(event, subscribed)
