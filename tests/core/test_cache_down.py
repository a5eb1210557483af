"""A Redis that does not answer is an empty cache: pages are still served, and the account
rate limits are counted in the database meanwhile."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from tests.factories import make_product
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
