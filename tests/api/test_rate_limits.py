"""The API's rate limits: per token (or signed-in user) and per client address, reads and
writes apart, 429 with Retry-After past them (tradepost.api.ratelimits, docs/api.md, ADR 0029).

The test settings turn the limits off (0); each test here sets small ones."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from tests.factories.accounts import make_user
from tradepost.accounts.models import ThrottleHit
from tradepost.accounts.throttle import throttle_hits_prune
from tradepost.accounts.tokens import token_create

pytestmark = pytest.mark.django_db

READ = "/api/v1/categories"
WRITE = "/api/v1/me/products"  # a token-only write: 401 without one


@pytest.fixture
def limits(settings, rate_limit_store):
    settings.TRADEPOST_API_READS_PER_MINUTE = 3
    settings.TRADEPOST_API_WRITES_PER_MINUTE = 2
    return settings


@pytest.fixture
def clock(monkeypatch):
    """A clock the test moves (the middle of a minute, so the cache's fixed windows stay put
    unless moved)."""
    now = {"at": datetime(2026, 12, 5, 10, 0, 30, tzinfo=UTC)}
    monkeypatch.setattr(timezone, "now", lambda: now["at"])
    return now


def bearer(user) -> dict[str, str]:
    _token, secret = token_create(user=user, name="tests")
    return {"Authorization": f"Bearer {secret}"}


def test_reads_past_the_limit_answer_429_with_retry_after(limits, clock):
    client = Client()
    answers = [client.get(READ) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert [a["RateLimit-Remaining"] for a in answers] == ["2", "1", "0"]
    assert {a["RateLimit-Limit"] for a in answers} == {"3"}
    assert answers[0]["RateLimit-Policy"] == "3;w=60"
    assert 1 <= int(answers[0]["RateLimit-Reset"]) <= 60
    refused = client.get(READ)
    assert refused.status_code == 429
    assert refused["Content-Type"] == "application/problem+json"
    body = refused.json()
    assert body["type"].endswith("/too-many-requests")
    assert body["status"] == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert refused["Retry-After"] in body["detail"]
    assert refused["RateLimit-Remaining"] == "0"


def test_the_refusal_is_in_the_clients_language(limits, clock):
    client = Client(headers={"Accept-Language": "zh-hans"})
    for _ in range(3):
        client.get(READ)
    body = client.get(READ).json()
    assert body["title"] == "请求过于频繁"
    assert "秒" in body["detail"]


def test_retry_after_is_when_the_window_lets_one_more_in(limits, clock, rate_limit_store):
    client = Client()
    client.get(READ)  # at :30
    clock["at"] += timedelta(seconds=20)
    client.get(READ)
    client.get(READ)  # at :50
    refused = client.get(READ)
    if rate_limit_store == "database":
        # The first one leaves the sliding minute at 11:01:30, 40 s from now.
        assert refused["Retry-After"] == "40"
    else:
        # This minute's three leave the estimate as the next minute slides past them.
        assert 10 <= int(refused["Retry-After"]) <= 60
    clock["at"] += timedelta(seconds=int(refused["Retry-After"]))
    assert client.get(READ).status_code == 200


def test_a_refused_request_is_not_counted(limits, clock):
    client = Client()
    for _ in range(3):
        client.get(READ)
    for _ in range(5):
        assert client.get(READ).status_code == 429
    clock["at"] += timedelta(seconds=121)  # both windows behind
    assert [client.get(READ).status_code for _ in range(4)] == [200, 200, 200, 429]


def test_each_client_address_has_its_own_count(limits, clock):
    first = Client(REMOTE_ADDR="203.0.113.1")
    for _ in range(3):
        first.get(READ)
    assert first.get(READ).status_code == 429
    assert Client(REMOTE_ADDR="203.0.113.2").get(READ).status_code == 200


def test_each_token_has_its_own_count_apart_from_its_address(limits, clock):
    a = Client(headers=bearer(make_user()))
    b = Client(headers=bearer(make_user()))
    for _ in range(3):
        assert a.get(READ).status_code == 200
    assert a.get(READ).status_code == 429
    # Same address (the test client's), other token: its own count.
    assert b.get(READ).status_code == 200
    # ...and callers without a token from that address have theirs.
    assert Client().get(READ).status_code == 200


def test_a_token_that_is_not_valid_counts_against_the_address(limits, clock):
    for n in range(3):
        Client(headers={"Authorization": f"Bearer tp_not-a-token-{n}"}).get(READ)
    assert Client().get(READ).status_code == 429


def test_a_signed_in_session_counts_per_user(limits, clock):
    session = Client()
    session.force_login(make_user())
    for _ in range(3):
        session.get(READ)
    assert session.get(READ).status_code == 429
    assert Client().get(READ).status_code == 200


def test_reads_and_writes_are_counted_apart(limits, clock):
    client = Client(headers=bearer(make_user()))
    for _ in range(3):
        client.get(READ)
    assert client.get(READ).status_code == 429
    write = client.post(WRITE, "{}", content_type="application/json")
    assert write.status_code == 403  # the endpoint's own answer: this user has no company
    assert write["RateLimit-Limit"] == "2"
    assert write["RateLimit-Remaining"] == "1"
    client.post(WRITE, "{}", content_type="application/json")
    assert client.post(WRITE, "{}", content_type="application/json").status_code == 429


def test_every_answer_counts_the_401s_too(limits, clock):
    client = Client()
    for _ in range(2):
        assert client.post(WRITE, "{}", content_type="application/json").status_code == 401
    assert client.post(WRITE, "{}", content_type="application/json").status_code == 429


def test_a_limit_of_zero_is_no_limit(settings, rate_limit_store):
    settings.TRADEPOST_API_READS_PER_MINUTE = 0
    client = Client()
    answers = [client.get(READ) for _ in range(5)]
    assert {a.status_code for a in answers} == {200}
    assert "RateLimit-Limit" not in answers[0]
    assert not ThrottleHit.objects.exists()


def test_the_database_counts_are_pruned_after_the_longest_window(limits, rate_limit_store):
    if rate_limit_store != "database":
        pytest.skip("the cache expires its own counters")
    Client().get(READ)
    assert ThrottleHit.objects.filter(action="api-read").count() == 1
    assert throttle_hits_prune(now=timezone.now() + timedelta(hours=23)) == 0
    assert throttle_hits_prune(now=timezone.now() + timedelta(days=1, seconds=1)) == 1


def test_the_schema_documents_429_and_the_headers_on_every_operation(client):
    schema = client.get("/api/v1/openapi.json").json()
    assert set(schema["components"]["headers"]) >= {
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
        "Retry-After",
    }
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            assert "429" in responses, (method, path)
            assert "Retry-After" in responses["429"]["headers"], (method, path)
            success = next(status for status in responses if status.startswith("2"))
            assert "RateLimit-Remaining" in responses[success]["headers"], (method, path)
