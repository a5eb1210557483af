"""The verification code of docs/webhooks.md, Python and Node.js, accepts real deliveries
(before and after a rotation of the secret) and refuses forged, altered and stale ones."""

from __future__ import annotations

import base64
import time

import pytest
from django.db import transaction

from tests.factories.webhooks import add_endpoint
from tests.webhooks.docs_code import node, node_verify, python_verifier
from tradepost.core.events import EventType, emit
from tradepost.webhooks.services import webhook_endpoint_rotate_secret
from tradepost.webhooks.signing import signature_header

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_loopback")]


def _deliver(company, capture, text: str) -> None:
    with capture(execute=True), transaction.atomic():
        emit(EventType.MESSAGE_CREATED, company_id=company.pk, payload={"body": text})


@pytest.fixture
def deliveries(cast, receiver, django_capture_on_commit_callbacks):
    """Two real deliveries: one signed by the first secret, one after a rotation (signed by
    the new and the old secret); the secrets."""
    endpoint, first = add_endpoint(cast.owner, receiver.url)
    _deliver(cast.company, django_capture_on_commit_callbacks, "价格 US$2.10 FOB 宁波")
    second = webhook_endpoint_rotate_secret(actor=cast.owner, endpoint=endpoint).secret
    _deliver(cast.company, django_capture_on_commit_callbacks, "Lead time 30 days")
    before, after = receiver.received
    assert after.headers["tradepost-signature"].count("v1=") == 2
    return before, after, first, second


def _cases(deliveries) -> list[tuple[str, str, bytes, bool]]:
    before, after, first, second = deliveries
    stale = signature_header([first], int(time.time()) - 600, before.body)
    return [
        (first, before.headers["tradepost-signature"], before.body, True),
        (second, after.headers["tradepost-signature"], after.body, True),
        (first, after.headers["tradepost-signature"], after.body, True),  # the old one, a day
        (second, before.headers["tradepost-signature"], before.body, False),
        ("whsec_guessed", before.headers["tradepost-signature"], before.body, False),
        (first, before.headers["tradepost-signature"], before.body.replace(b"2.10", b"1"), False),
        (first, stale, before.body, False),
        (first, "", before.body, False),
        (first, "v1=deadbeef", before.body, False),
    ]


def test_the_documented_python_code(deliveries):
    verify = python_verifier()
    for secret, header, body, expected in _cases(deliveries):
        assert verify(secret, header, body) is expected, (secret, header)


@pytest.mark.skipif(node() is None, reason="Node.js is not installed")
def test_the_documented_node_code(deliveries, tmp_path):
    cases = _cases(deliveries)
    results = node_verify(
        tmp_path,
        [
            {"secret": secret, "header": header, "body": base64.b64encode(body).decode()}
            for secret, header, body, _expected in cases
        ],
    )
    assert results == [expected for *_rest, expected in cases]


def test_a_secret_rotated_without_keeping_the_old_one_stops_at_once(
    cast, receiver, django_capture_on_commit_callbacks
):
    endpoint, first = add_endpoint(cast.owner, receiver.url)
    second = webhook_endpoint_rotate_secret(
        actor=cast.owner, endpoint=endpoint, keep_previous=False
    ).secret
    _deliver(cast.company, django_capture_on_commit_callbacks, "hello")
    [got] = receiver.received
    verify = python_verifier()
    assert verify(second, got.headers["tradepost-signature"], got.body)
    assert not verify(first, got.headers["tradepost-signature"], got.body)
