"""Operators read endpoints, events and deliveries in the administration; nothing there
changes them, and no secret is shown."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories.webhooks import add_endpoint
from tradepost.ops.periodic import JOBS
from tradepost.webhooks.models import WebhookDelivery, WebhookEvent
from tradepost.webhooks.services import webhook_endpoint_send_test

pytestmark = pytest.mark.django_db


def test_operators_read_webhooks_in_the_administration(cast, client):
    endpoint, secret = add_endpoint(cast.owner, "https://erp.example.com/hooks")
    delivery = webhook_endpoint_send_test(actor=cast.owner, endpoint=endpoint)
    event = WebhookEvent.objects.get()
    client.force_login(cast.operator)
    for model, obj in (
        ("webhookendpoint", endpoint),
        ("webhookevent", event),
        ("webhookdelivery", delivery),
    ):
        listing = client.get(reverse(f"admin:webhooks_{model}_changelist"))
        assert listing.status_code == 200
        page = client.get(reverse(f"admin:webhooks_{model}_change", args=[obj.pk]))
        assert page.status_code == 200
        assert secret not in page.content.decode()
        assert client.get(reverse(f"admin:webhooks_{model}_add")).status_code == 403
        assert (
            client.post(reverse(f"admin:webhooks_{model}_delete", args=[obj.pk])).status_code == 403
        )
    assert WebhookDelivery.objects.count() == 1


def test_the_worker_timer_sends_lost_deliveries_and_prunes_the_log():
    names = {name for name, _interval, _job in JOBS}
    assert "queue webhook deliveries whose task was lost" in names
    assert "delete old webhook events and deliveries" in names
