"""Workers at the same moment on real connections (PostgreSQL only: SQLite runs one write
transaction at a time): a delivery is claimed by one of them; the endpoint's count of failures
is kept under its row lock."""

from __future__ import annotations

import pytest
from django.db import transaction

from tests.factories.webhooks import add_endpoint
from tests.races import ON_CONCURRENT_WRITERS
from tests.webhooks.conftest import status
from tradepost.core.events import EventType, emit
from tradepost.webhooks import services
from tradepost.webhooks.models import WebhookDelivery, WebhookEndpoint

pytestmark = [
    *ON_CONCURRENT_WRITERS,
    pytest.mark.usefixtures("allow_loopback", "immediate_queue_without_sending"),
]


@pytest.fixture
def immediate_queue_without_sending(monkeypatch):
    """Record the events but do not send them at commit: the test's threads do."""
    monkeypatch.setattr("tradepost.webhooks.outbox.queue_after_commit", lambda ids: None)


def _emit(company, number: int) -> None:
    with transaction.atomic():
        emit(EventType.PRODUCT_PUBLISHED, company_id=company.pk, payload={"n": number})


def test_two_workers_send_a_delivery_once(cast, receiver, race):
    add_endpoint(cast.owner, receiver.url)
    _emit(cast.company, 1)
    delivery = WebhookDelivery.objects.get()
    results = race(
        lambda: services.delivery_attempt(delivery_id=delivery.pk),
        lambda: services.delivery_attempt(delivery_id=delivery.pk),
        lambda: services.delivery_attempt(delivery_id=delivery.pk),
    )
    assert sorted(results) == ["delivered", "not-due", "not-due"]
    assert len(receiver.received) == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("succeeded", 1)


def test_failures_counted_at_once_are_all_counted(cast, receiver, race, settings):
    settings.TRADEPOST_WEBHOOKS_MAX_ATTEMPTS = 1
    settings.TRADEPOST_WEBHOOKS_DISABLE_AFTER = 3
    endpoint, _secret = add_endpoint(cast.owner, receiver.url)
    receiver.otherwise = status(500)
    for number in range(3):
        _emit(cast.company, number)
    ids = list(WebhookDelivery.objects.values_list("pk", flat=True))
    results = race(*(lambda pk=pk: services.delivery_attempt(delivery_id=pk) for pk in ids))
    assert results == ["failed"] * 3
    endpoint = WebhookEndpoint.objects.get(pk=endpoint.pk)
    assert endpoint.consecutive_failures == 3
    assert not endpoint.is_active and endpoint.disabled_reason == "failures"
