"""Webhook endpoints: through the service (as a company's owner adds one), or written as they
are stored (an address the service would refuse, for the delivery-time guard)."""

from __future__ import annotations

from typing import Any

from tradepost.accounts.models import User
from tradepost.companies.models import Company
from tradepost.core.events import EventType
from tradepost.webhooks.models import WebhookEndpoint
from tradepost.webhooks.services import webhook_endpoint_create
from tradepost.webhooks.signing import endpoint_secret, new_salt

ALL_EVENTS = list(EventType.values)


def add_endpoint(
    owner: User, url: str, *, events: list[str] | None = None, description: str = ""
) -> tuple[WebhookEndpoint, str]:
    """An endpoint of `owner`'s company, added through the service; answers it and its secret."""
    result = webhook_endpoint_create(
        actor=owner, url=url, events=events or ALL_EVENTS, description=description
    )
    return result.endpoint, result.secret


def stored_endpoint(
    company: Company, url: str, *, events: list[str] | None = None, **fields: Any
) -> tuple[WebhookEndpoint, str]:
    """An endpoint written straight to the database (no check of its address)."""
    endpoint = WebhookEndpoint.objects.create(
        company=company,
        url=url,
        events=events or ALL_EVENTS,
        secret_salt=new_salt(),
        **fields,
    )
    return endpoint, endpoint_secret(endpoint.secret_salt)
