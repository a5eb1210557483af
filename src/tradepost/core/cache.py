"""Redis as the shared cache, where a Redis that does not answer is an empty cache.

Django's Redis cache raises when the server is down or restarting, and then every page that
reads the cache (the public pages, search facets, the login throttle) answers 500 until
Redis is back. Here a read answers "not cached", a write is skipped and a counter starts
over, with a warning in the log, and the site goes on from the database; short socket
timeouts keep a hung Redis from holding requests. `unavailable()` tells callers that keep
something only in the cache (the account rate limits) to count in the database instead.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: After a failure the cache counts as unavailable for this long.
UNAVAILABLE_SECONDS = 5.0
#: At most one warning in the log per this many seconds and process.
WARN_EVERY_SECONDS = 30.0


class TolerantRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._failed_at = float("-inf")
        self._warned_at = float("-inf")
        self._lock = threading.Lock()

    def unavailable(self) -> bool:
        """Whether the last failure to reach Redis was in the last few seconds."""
        return time.monotonic() - self._failed_at < UNAVAILABLE_SECONDS

    def _guard(self, operation: Callable[[], T], fallback: T) -> T:
        try:
            return operation()
        except RedisError as error:
            now = time.monotonic()
            with self._lock:
                self._failed_at = now
                warn = now - self._warned_at >= WARN_EVERY_SECONDS
                if warn:
                    self._warned_at = now
            if warn:
                logger.warning("the cache (Redis) does not answer; going on without it: %s", error)
            return fallback

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> bool:
        return self._guard(
            lambda: super(TolerantRedisCache, self).add(key, value, timeout, version), False
        )

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return self._guard(
            lambda: super(TolerantRedisCache, self).get(key, default, version), default
        )

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        self._guard(lambda: super(TolerantRedisCache, self).set(key, value, timeout, version), None)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        return self._guard(
            lambda: super(TolerantRedisCache, self).touch(key, timeout, version), False
        )

    def delete(self, key: Any, version: Any = None) -> bool:
        return self._guard(lambda: super(TolerantRedisCache, self).delete(key, version), False)

    def get_many(self, keys: Any, version: Any = None) -> dict[Any, Any]:
        return self._guard(lambda: super(TolerantRedisCache, self).get_many(keys, version), {})

    def has_key(self, key: Any, version: Any = None) -> bool:
        return self._guard(lambda: super(TolerantRedisCache, self).has_key(key, version), False)

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        # A counter that cannot be read starts over (django-axes counts login failures so).
        return self._guard(lambda: super(TolerantRedisCache, self).incr(key, delta, version), delta)

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> list[Any]:
        return self._guard(
            lambda: super(TolerantRedisCache, self).set_many(data, timeout, version) or [], []
        )

    def delete_many(self, keys: Any, version: Any = None) -> None:
        self._guard(lambda: super(TolerantRedisCache, self).delete_many(keys, version), None)


def cache_unavailable(cache: Any) -> bool:
    """Whether `cache` (any backend) has just failed to answer."""
    check = getattr(cache, "unavailable", None)
    return bool(check()) if callable(check) else False
