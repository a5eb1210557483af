"""Deliveries to a real HTTP receiver on 127.0.0.1: signed (checked by the receiver with the
code of docs/webhooks.md), tried again after 500s and timeouts with a growing, jittered wait,
the endpoint switched off after repeated failures with an email to its company's owner and
admins, sent again by hand, and recorded only when the emitting transaction commits."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from tests.factories.companies import add_member
from tests.factories.webhooks import add_endpoint
from tests.webhooks.conftest import hang, redirect, status, trickle
from tradepost.companies.models import Role
from tradepost.core.events import EventType, emit
from tradepost.webhooks import services
from tradepost.webhooks.models import (
    DeliveryStatus,
    DisabledReason,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_loopback")]


def emit_published(company, product_id: int = 7) -> None:
    with transaction.atomic():
        emit(
            EventType.PRODUCT_PUBLISHED,
            company_id=company.pk,
            payload={"product": {"id": product_id, "title": "保温杯 500 ml"}},
        )


def due_now(delivery: WebhookDelivery) -> None:
    """Let the wait before the next attempt pass."""
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        next_attempt_at=timezone.now() - timedelta(seconds=1)
    )


def send_due(capture) -> int:
    with capture(execute=True):
        return services.deliveries_send_due(grace=timedelta(0))


def test_an_event_is_delivered_signed_after_commit(
    cast, receiver, django_capture_on_commit_callbacks
):
    endpoint, secret = add_endpoint(cast.owner, receiver.url)
    receiver.secret = secret
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        emit_published(cast.company)
    assert receiver.received == []  # nothing is sent before the commit
    for callback in callbacks:
        callback()

    [got] = receiver.received
    assert got.verified is True
    assert got.path == "/tradepost/hooks"
    body = json.loads(got.body)
    event = WebhookEvent.objects.get()
    assert body["id"] == str(event.event_id) == got.headers["tradepost-event-id"]
    assert body["type"] == "product.published" == got.headers["tradepost-event-type"]
    assert body["version"] == 1
    assert body["company_id"] == cast.company.pk
    assert body["data"] == {"product": {"id": 7, "title": "保温杯 500 ml"}}
    assert got.headers["content-type"] == "application/json; charset=utf-8"
    assert got.headers["user-agent"] == "Tradepost-Webhooks/1"
    timestamp = int(got.headers["tradepost-signature"].split(",")[0].removeprefix("t="))
    assert abs(time.time() - timestamp) < 5
    delivery = WebhookDelivery.objects.get()
    assert delivery.endpoint == endpoint
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("succeeded", 1, 204)
    assert delivery.response_ms is not None and delivery.response_ms < 2000
    assert delivery.delivered_at is not None and delivery.next_attempt_at is None


def test_a_forged_or_stale_signature_is_refused_by_the_documented_code(cast, receiver):
    from tests.webhooks.docs_code import python_verifier
    from tradepost.webhooks.signing import signature_header

    verify = python_verifier()
    body = b'{"id":"x"}'
    now = int(time.time())
    good = signature_header(["whsec_right"], now, body)
    assert verify("whsec_right", good, body)
    assert not verify("whsec_wrong", good, body)
    assert not verify("whsec_right", good, body + b" ")
    assert not verify("whsec_right", signature_header(["whsec_right"], now - 301, body), body)
    assert not verify("whsec_right", "", body)
    assert not verify("whsec_right", "t=abc,v1=00", body)
    # After a rotation both secrets sign: a receiver holding either accepts.
    both = signature_header(["whsec_new", "whsec_old"], now, body)
    assert verify("whsec_new", both, body) and verify("whsec_old", both, body)


def test_nothing_is_recorded_when_the_transaction_rolls_back(
    cast, receiver, django_capture_on_commit_callbacks
):
    add_endpoint(cast.owner, receiver.url)
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        emit(EventType.PRODUCT_PUBLISHED, company_id=cast.company.pk, payload={"x": 1})
        raise RuntimeError("the change fails after the event was emitted")
    assert callbacks == []
    assert not WebhookEvent.objects.exists() and not WebhookDelivery.objects.exists()
    assert receiver.received == []


@pytest.mark.django_db(transaction=True)
def test_an_event_commits_with_its_change_or_not_at_all(cast, receiver):
    """Real commits (no test transaction around): the delivery runs after the commit."""
    add_endpoint(cast.owner, receiver.url)
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        emit_published(cast.company, product_id=1)
        _ = 1 / 0
    assert not WebhookEvent.objects.exists()
    assert receiver.received == []

    emit_published(cast.company, product_id=2)
    assert [body["data"]["product"]["id"] for body in receiver.bodies()] == [2]
    assert WebhookDelivery.objects.get().status == DeliveryStatus.SUCCEEDED


def test_only_subscribed_active_endpoints_of_the_company_get_it(
    cast, receiver, django_capture_on_commit_callbacks
):
    add_endpoint(cast.owner, receiver.url, events=["inquiry.created"])
    add_endpoint(cast.outsider, receiver.url)  # another company's
    off, _secret = add_endpoint(cast.owner, receiver.url)
    services.webhook_endpoint_disable(actor=cast.owner, endpoint=off)
    with django_capture_on_commit_callbacks(execute=True):
        emit_published(cast.company)
    assert receiver.received == []
    assert not WebhookEvent.objects.exists()


def test_a_500_is_tried_again_with_a_growing_jittered_wait(
    cast, receiver, django_capture_on_commit_callbacks
):
    _endpoint, secret = add_endpoint(cast.owner, receiver.url)
    receiver.secret = secret
    receiver.answer_with(status(500, b"database down"), status(503))
    started = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        emit_published(cast.company)

    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("pending", 1, 500)
    assert delivery.last_error == "HTTP 500: database down"
    wait = (delivery.next_attempt_at - started).total_seconds()
    assert 30 * 0.75 - 1 <= wait <= 30 * 1.25 + 1  # base 30 s, ±25%

    assert send_due(django_capture_on_commit_callbacks) == 0  # not due yet
    due_now(delivery)
    second_started = timezone.now()
    assert send_due(django_capture_on_commit_callbacks) == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("pending", 2, 503)
    wait = (delivery.next_attempt_at - second_started).total_seconds()
    assert 60 * 0.75 - 1 <= wait <= 60 * 1.25 + 1  # doubled

    due_now(delivery)
    send_due(django_capture_on_commit_callbacks)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("succeeded", 3, 204)
    assert delivery.last_error == ""
    # Every attempt carried the same event and body, each signed, numbered.
    assert len({item.body for item in receiver.received}) == 1
    assert [item.verified for item in receiver.received] == [True, True, True]
    assert [item.headers["tradepost-attempt"] for item in receiver.received] == ["1", "2", "3"]


def test_the_waits_cover_about_a_day(settings):
    delays = [services.webhook_backoff().delay(attempt) for attempt in range(1, 15)]
    for attempt, delay in enumerate(delays, start=1):
        nominal = min(30 * 2 ** (attempt - 1), 4 * 3600)
        assert nominal * 0.75 <= delay.total_seconds() <= nominal * 1.25
    total = sum(min(30 * 2 ** (n - 1), 4 * 3600) for n in range(1, 15))
    assert 23 * 3600 < total < 25 * 3600  # 15 attempts over about a day
    assert settings.TRADEPOST_WEBHOOKS_MAX_ATTEMPTS == 15


def test_a_receiver_that_does_not_answer_in_time_is_tried_again(
    cast, receiver, fast_timeouts, django_capture_on_commit_callbacks
):
    add_endpoint(cast.owner, receiver.url)
    receiver.answer_with(hang(3))
    started = time.monotonic()
    with django_capture_on_commit_callbacks(execute=True):
        emit_published(cast.company)
    assert time.monotonic() - started < 2.5
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "pending" and delivery.attempts == 1
    assert delivery.response_status is None
    assert delivery.last_error.startswith("timed out")
    assert 900 <= delivery.response_ms < 2000

    due_now(delivery)
    send_due(django_capture_on_commit_callbacks)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("succeeded", 2)


def test_the_whole_request_has_one_deadline(cast, receiver, fast_timeouts, capture_all):
    """An answer trickling in a byte at a time (each read well inside the read timeout)
    is cut at the total deadline."""
    add_endpoint(cast.owner, receiver.url)
    receiver.answer_with(trickle(4))
    started = time.monotonic()
    with capture_all():
        emit_published(cast.company)
    assert time.monotonic() - started < 2.5
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "pending" and delivery.last_error.startswith("timed out")


def test_a_redirect_is_not_followed(cast, receiver, capture_all):
    add_endpoint(cast.owner, receiver.url)
    receiver.answer_with(redirect("http://169.254.169.254/latest/meta-data/"))
    with capture_all():
        emit_published(cast.company)
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "pending" and delivery.response_status == 302
    assert "not followed" in delivery.last_error
    assert len(receiver.received) == 1


def test_only_the_start_of_a_long_answer_is_read_and_kept(cast, receiver, capture_all):
    add_endpoint(cast.owner, receiver.url)
    receiver.answer_with(status(500, b"E" * 5_000_000))
    with capture_all():
        emit_published(cast.company)
    delivery = WebhookDelivery.objects.get()
    assert delivery.response_status == 500
    assert delivery.last_error == "HTTP 500: " + "E" * 200


@pytest.fixture
def capture_all(django_capture_on_commit_callbacks):
    return lambda: django_capture_on_commit_callbacks(execute=True)


def test_repeated_failures_switch_the_endpoint_off_and_email_the_managers(
    cast, receiver, settings, mailoutbox, capture_all
):
    settings.TRADEPOST_WEBHOOKS_MAX_ATTEMPTS = 2
    settings.TRADEPOST_WEBHOOKS_DISABLE_AFTER = 2
    cast.admin.preferred_language = "zh-hans"
    cast.admin.save()
    colleague = add_member(cast.company, role=Role.ADMIN)
    colleague.is_active = False
    colleague.save()
    endpoint, _secret = add_endpoint(cast.owner, receiver.url)
    receiver.otherwise = status(500)

    with capture_all():
        emit_published(cast.company, product_id=1)
        emit_published(cast.company, product_id=2)
    assert WebhookDelivery.objects.filter(status="pending", attempts=1).count() == 2
    for delivery in WebhookDelivery.objects.all():
        due_now(delivery)
    with capture_all():
        services.deliveries_send_due(grace=timedelta(0))

    assert WebhookDelivery.objects.filter(status="failed", attempts=2).count() == 2
    endpoint.refresh_from_db()
    assert not endpoint.is_active
    assert endpoint.disabled_reason == DisabledReason.FAILURES
    assert endpoint.consecutive_failures == 2
    # The owner (English) and the active admin (Chinese), not the plain member.
    by_address = {message.to[0]: message for message in mailoutbox}
    assert set(by_address) == {cast.owner.email, cast.admin.email}
    english, chinese = by_address[cast.owner.email], by_address[cast.admin.email]
    assert english.subject == "A webhook endpoint of your company was switched off"
    assert receiver.url in english.body and "2 deliveries" in english.body
    assert "Webhook 端点" in chinese.subject and receiver.url in chinese.body
    assert f"/zh-hans/dashboard/webhooks/{endpoint.pk}/" in chinese.body

    # Switched off: a new event is not even recorded for it.
    with capture_all():
        emit_published(cast.company, product_id=3)
    assert WebhookDelivery.objects.count() == 2
    sent = len(receiver.received)

    # Switched on again and the receiver fixed: the failed ones are sent again by hand.
    receiver.otherwise = status(200)
    endpoint = services.webhook_endpoint_enable(actor=cast.owner, endpoint=endpoint)
    assert endpoint.consecutive_failures == 0
    failed = WebhookDelivery.objects.filter(status="failed").order_by("pk").first()
    with capture_all():
        again = services.webhook_delivery_redeliver(actor=cast.owner, delivery=failed)
    again.refresh_from_db()
    assert (again.status, again.manual, again.attempts) == ("succeeded", True, 1)
    assert again.event_id == failed.event_id
    assert len(receiver.received) == sent + 1
    assert receiver.bodies()[-1]["id"] == str(failed.event.event_id)


def test_a_success_resets_the_count_of_failures(cast, receiver, settings, capture_all):
    settings.TRADEPOST_WEBHOOKS_MAX_ATTEMPTS = 1
    settings.TRADEPOST_WEBHOOKS_DISABLE_AFTER = 3
    endpoint, _secret = add_endpoint(cast.owner, receiver.url)
    receiver.answer_with(status(500), status(500))
    with capture_all():
        emit_published(cast.company, product_id=1)
        emit_published(cast.company, product_id=2)
    endpoint.refresh_from_db()
    assert endpoint.consecutive_failures == 2 and endpoint.is_active
    with capture_all():
        emit_published(cast.company, product_id=3)
    endpoint.refresh_from_db()
    assert endpoint.consecutive_failures == 0 and endpoint.is_active


def test_a_test_event_and_a_redelivery_are_one_attempt_each(cast, receiver, capture_all):
    endpoint, secret = add_endpoint(cast.owner, receiver.url)
    receiver.secret = secret
    receiver.answer_with(status(500))
    with capture_all():
        test = services.webhook_endpoint_send_test(actor=cast.owner, endpoint=endpoint)
    test.refresh_from_db()
    assert (test.status, test.attempts, test.manual) == ("failed", 1, True)
    endpoint.refresh_from_db()
    assert endpoint.consecutive_failures == 0  # by hand: does not count against it
    [got] = receiver.bodies()
    assert got["type"] == "webhook.test" and got["data"]["endpoint_id"] == endpoint.pk
    assert receiver.received[0].verified is True


def test_a_delivery_waiting_for_a_switched_off_endpoint_is_not_sent(
    cast, receiver, capture_all, django_capture_on_commit_callbacks
):
    endpoint, _secret = add_endpoint(cast.owner, receiver.url)
    with django_capture_on_commit_callbacks(execute=False):
        emit_published(cast.company)
    services.webhook_endpoint_disable(actor=cast.owner, endpoint=endpoint)
    with capture_all():
        services.deliveries_send_due(grace=timedelta(0))
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts) == ("cancelled", 0)
    assert receiver.received == []


def test_a_delivery_is_sent_once_however_many_tasks_run_it(cast, receiver, capture_all):
    add_endpoint(cast.owner, receiver.url)
    with capture_all():
        emit_published(cast.company)
    delivery = WebhookDelivery.objects.get()
    assert services.delivery_attempt(delivery_id=delivery.pk) == "not-due"
    assert len(receiver.received) == 1


def test_a_claimed_delivery_whose_worker_died_is_sent_again_when_its_claim_runs_out(
    cast, receiver, capture_all, django_capture_on_commit_callbacks
):
    """The at-least-once path: a worker claimed the delivery (the lease moved its due time)
    and died before recording any answer; the timer queues it once the lease has passed."""
    add_endpoint(cast.owner, receiver.url)
    with django_capture_on_commit_callbacks(execute=False):
        emit_published(cast.company)
    delivery = WebhookDelivery.objects.get()
    now = timezone.now()
    # What a claim leaves behind (`delivery_attempt`'s first UPDATE), then nothing.
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        attempts=1, last_attempt_at=now, next_attempt_at=now + services._lease()
    )
    with capture_all():
        assert services.deliveries_send_due(grace=timedelta(0)) == 0  # still claimed
    # The lease runs out.
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        next_attempt_at=timezone.now() - timedelta(seconds=1)
    )
    with capture_all():
        assert services.deliveries_send_due(grace=timedelta(0)) == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("succeeded", 2)
    assert len(receiver.received) == 1


def test_the_timer_queues_a_lost_delivery_only_once_its_new_due_time_commits(
    cast, receiver, django_capture_on_commit_callbacks
):
    add_endpoint(cast.owner, receiver.url)
    with django_capture_on_commit_callbacks(execute=False):
        emit_published(cast.company)  # its task is lost
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert services.deliveries_send_due(grace=timedelta(0)) == 1
    assert receiver.received == [] and len(callbacks) == 1  # nothing queued before the commit
    callbacks[0]()
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts) == ("succeeded", 1)
    assert len(receiver.received) == 1


def test_old_events_are_pruned_with_their_deliveries(cast, receiver, capture_all, settings):
    add_endpoint(cast.owner, receiver.url)
    with capture_all():
        emit_published(cast.company)
    WebhookEvent.objects.update(created_at=timezone.now() - timedelta(days=31))
    assert services.webhook_log_prune() == 1
    assert not WebhookEvent.objects.exists() and not WebhookDelivery.objects.exists()
    assert WebhookEndpoint.objects.count() == 1


def test_an_endpoint_deleted_while_its_delivery_is_sent(
    cast, receiver, monkeypatch, django_capture_on_commit_callbacks
):
    endpoint, _secret = add_endpoint(cast.owner, receiver.url)
    with django_capture_on_commit_callbacks(execute=False):
        emit_published(cast.company)
    delivery = WebhookDelivery.objects.get()
    post = services.sending.post

    def post_then_delete(*args, **kwargs):
        outcome = post(*args, **kwargs)
        WebhookEndpoint.objects.filter(pk=endpoint.pk).delete()
        return outcome

    monkeypatch.setattr(services.sending, "post", post_then_delete)
    assert services.delivery_attempt(delivery_id=delivery.pk) == "cancelled"
    assert not WebhookDelivery.objects.exists()
