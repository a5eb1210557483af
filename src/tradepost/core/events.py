"""Business events a company can be told of by webhook (docs/adr/0028-webhooks.md).

An app announces a change inside the transaction that makes it:

    emit(EventType.PRODUCT_PUBLISHED, company_id=product.company_id, payload={...})

`company_id` is the company told (the supplier of an inquiry, the buyer of a quotation);
`payload` is the event's `data`, plain JSON values (decimals and moments are written as text).
The event is recorded by the recorder the webhooks app registers when Django starts
(`set_recorder`), in the caller's transaction: it is stored with the change or not at all,
and the worker delivers it after the commit. This module sits at the bottom of the layers so
that any app can emit without importing the webhooks app above it; without a recorder (the
webhooks app not installed) an event is dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.db import models, transaction
from django.utils.translation import gettext_lazy as _

#: The version of every payload's shape; receivers read it from `version`.
PAYLOAD_VERSION = 1


class EventType(models.TextChoices):
    """The events a webhook endpoint can subscribe to."""

    INQUIRY_CREATED = "inquiry.created", _("A new inquiry to your company")
    MESSAGE_CREATED = "message.created", _("A new message in one of your conversations")
    REQUEST_MATCHED = "request.matched", _("A new buying request matches your products")
    QUOTATION_RECEIVED = "quotation.received", _("A quotation on one of your buying requests")
    QUOTATION_AWARDED = "quotation.awarded", _("A buyer awarded your quotation")
    PRODUCT_PUBLISHED = "product.published", _("One of your products is published")
    IMPORT_FINISHED = "import.finished", _("A catalogue import finished")
    ALERT_MATCHED = "alert.matched", _("New listings or requests match one of your saved searches")


#: (event type, company id, payload): stores the event in the caller's transaction.
Recorder = Callable[[str, int, Mapping[str, Any]], None]

_recorder: Recorder | None = None


def set_recorder(recorder: Recorder | None) -> None:
    """Install the function that records emitted events (the webhooks app, at start)."""
    global _recorder
    _recorder = recorder


def emit(event_type: str, company_id: int, payload: Mapping[str, Any]) -> None:
    """Record `event_type` for the company `company_id`, with `payload` as its data, in the
    current transaction (raises RuntimeError outside one: an event recorded apart from its
    change could announce a change that rolled back, or be lost after one that committed)."""
    if event_type not in EventType.values:
        raise ValueError(f"unknown event type {event_type!r}")
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("emit() must run inside the transaction of the change it announces.")
    if _recorder is not None:
        _recorder(str(event_type), int(company_id), payload)
