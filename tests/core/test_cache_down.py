"""A Redis that does not answer is an empty cache: pages are still served, and the account
rate limits are counted in the database meanwhile."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from tests.factories.catalog import make_product
from tradepost.accounts import services
from tradepost.accounts.models import ThrottleHit
from tradepost.core.cache import cache_unavailable

pytestmark = pytest.mark.django_db

#: Nothing listens on port 1.
DOWN = {
    "default": {
        "BACKEND": "tradepost.core.cache.TolerantRedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
    }
}


@pytest.fixture
def redis_down(settings):
    settings.CACHES = DOWN
    settings.TRADEPOST_PAGE_CACHE_SECONDS = 30
    settings.TRADEPOST_RATE_LIMIT_STORE = "cache"
    yield


def test_pages_are_served_while_the_cache_is_down(redis_down):
    product = make_product(title="Enamel camping mug")
    for _ in range(2):
        response = Client().get(f"/en/products/{product.pk}-{product.slug}/")
        assert response.status_code == 200
        assert "Enamel camping mug" in response.content.decode()
    assert Client().get("/en/search/?q=mug").status_code == 200
    assert cache_unavailable(cache)
    assert cache.get("anything", "default") == "default"
    assert cache.incr("counter", 3) == 3


def test_rate_limits_fall_back_to_the_database(redis_down):
    answers = [services._throttle(action="signup", limits=[("client", 2)]) for _ in range(3)]
    assert answers == [True, True, False]
    assert ThrottleHit.objects.filter(action="signup").count() == 2


def test_an_answering_cache_is_not_unavailable():
    assert cache_unavailable(cache) is False


def test_a_queue_that_cannot_be_reached_does_not_fail_the_committed_write(
    client, monkeypatch, django_capture_on_commit_callbacks, caplog
):
    """The write has committed when its email is queued: a queue that is down (Redis for the
    RQ queue) is logged, and the person still gets the answer for what they did."""
    from tests.factories.accounts import make_user
    from tradepost.notify import services as notify_services

    class Unreachable:
        def enqueue(self, **kwargs):
            raise ConnectionError("the queue does not answer")

    monkeypatch.setattr(notify_services, "send_email", Unreachable())
    make_user(email="seller@example.com")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/en/accounts/password-reset/", {"email": "seller@example.com"})
    assert response.status_code == 302
    assert "the queue does not answer" in caplog.text
