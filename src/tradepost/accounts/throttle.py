"""The one rate limiter: attempts of an action counted per key over a sliding window.

Sign-ups per client, password resets per address and per client (an hour each), the API's
requests per token or per client address (a minute, `tradepost.api.ratelimits`), logins from
new devices (`accounts.devices`) and a person's inquiries and messages (an hour,
`messaging.services`) are all counted here. Every app process and worker sees the same
counts: in the shared cache (Redis) where REDIS_URL is set (TRADEPOST_RATE_LIMIT_STORE =
"cache"), in the database (`ThrottleHit`) otherwise, and in the database too while Redis does
not answer.

Keys are hashes (`throttle_key`): neither an address nor a token is stored.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Count, Min
from django.utils import timezone

from tradepost.accounts.models import ThrottleHit
from tradepost.core.cache import cache_unavailable

#: The window of the account limits.
THROTTLE_WINDOW = timedelta(hours=1)
#: The longest name of an action (`ThrottleHit.action`).
ACTION_MAX_LENGTH = ThrottleHit._meta.get_field("action").max_length or 0
#: No action counts over a longer window: older rows are deleted by `throttle_hits_prune`.
LONGEST_WINDOW = timedelta(days=1)


@dataclass(frozen=True)
class Throttled:
    """The answer for one attempt, about the tightest of its limits.

    `allowed`: whether it was counted (a refused attempt counts nowhere); `limit`: attempts the
    window holds; `remaining`: attempts left after this one; `reset`: seconds until the count
    drops (an attempt leaves the window); `retry_after`: seconds to wait before trying again
    when refused (0 when allowed); `key`: the key of that limit (the one that refused)."""

    allowed: bool
    limit: int
    remaining: int
    reset: int
    retry_after: int = 0
    key: str = ""

    def __bool__(self) -> bool:
        return self.allowed


def throttle_key(kind: str, value: str) -> str:
    return hashlib.sha256(f"{kind}:{value}".encode("utf-8", "surrogatepass")).hexdigest()


def throttle(
    *, action: str, limits: list[tuple[str, int]], window: timedelta = THROTTLE_WINDOW
) -> Throttled:
    """Count one attempt of `action` under each (key, limit), or none when a key already has
    `limit` attempts within `window` (then `allowed` is False)."""
    if window > LONGEST_WINDOW:
        raise ValueError(f"a throttle window is at most {LONGEST_WINDOW}")
    if len(action) > ACTION_MAX_LENGTH:  # the database would refuse it (SQLite would not)
        raise ValueError(f"a throttle action is at most {ACTION_MAX_LENGTH} characters")
    if settings.TRADEPOST_RATE_LIMIT_STORE == "cache":
        answer = _throttle_in_cache(action=action, limits=limits, window=window)
        if not cache_unavailable(cache):
            return answer
        # Redis did not answer: the same limits, counted in the database meanwhile.
    return _throttle_in_database(action=action, limits=limits, window=window)


def _seconds(delta: timedelta) -> int:
    return max(1, math.ceil(delta.total_seconds()))


def _throttle_in_database(
    *, action: str, limits: list[tuple[str, int]], window: timedelta
) -> Throttled:
    """A sliding log: one row per counted attempt and key; rows past the window are deleted
    as new attempts of the same keys come (and by `throttle_hits_prune`)."""
    now = timezone.now()
    since = now - window
    keys = [key for key, _limit in limits]
    tightest: Throttled | None = None
    with transaction.atomic():
        ThrottleHit.objects.filter(action=action, key__in=keys, created_at__lte=since).delete()
        for key, limit in limits:
            recent = ThrottleHit.objects.filter(action=action, key=key, created_at__gt=since)
            seen = recent.aggregate(count=Count("id"), oldest=Min("created_at"))
            count: int = seen["count"]
            if count >= limit:
                # A slot frees when the attempt `count - limit` places from the oldest leaves.
                times = recent.order_by("created_at").values_list("created_at", flat=True)
                frees_at: datetime = times[count - limit] if limit > 0 else now + window
                wait = _seconds(frees_at + window - now)
                return Throttled(False, limit, 0, wait, wait, key)
            oldest: datetime = seen["oldest"] or now
            answer = Throttled(
                True, limit, limit - count - 1, _seconds(oldest + window - now), key=key
            )
            if tightest is None or answer.remaining < tightest.remaining:
                tightest = answer
        ThrottleHit.objects.bulk_create(
            [ThrottleHit(action=action, key=key, created_at=now) for key in keys]
        )
    return tightest or Throttled(True, 0, 0, _seconds(window))


def _wait_in_cache(attempts: int, before: int, limit: int, elapsed: float, window: float) -> int:
    """Seconds until the estimate leaves room for one more attempt, none made meanwhile.
    `attempts` of this window (the refused one not among them), `before`: the previous one's."""
    # Within this window, the previous window's share shrinks as it slides out.
    if attempts < limit and before > 0:
        needed = window * (1 - (limit - 1 - attempts) / before)
        return max(1, math.ceil(needed - elapsed))
    # Then this window's attempts become the previous ones, and slide out in their turn.
    needed = window * (1 - (limit - 1) / attempts) if attempts else 0.0
    return max(1, math.ceil(window - elapsed + needed))


def _throttle_in_cache(
    *, action: str, limits: list[tuple[str, int]], window: timedelta
) -> Throttled:
    """The same limits counted in the shared cache, as a sliding window estimated from two
    fixed windows: the attempts of this window plus the previous window's, weighted by the
    share of it still inside the window. Counters are raised first (Redis INCR is atomic, so
    two requests at once cannot both take the last attempt) and lowered again when the
    attempt is refused."""
    seconds = window.total_seconds()
    now = timezone.now().timestamp()
    current, elapsed = divmod(now, seconds)
    previous_weight = 1 - elapsed / seconds
    counted: list[str] = []
    refused: Throttled | None = None
    tightest: Throttled | None = None
    for key, limit in limits:
        this_key = f"throttle:{action}:{key}:{int(current)}"
        cache.add(this_key, 0, timeout=int(seconds * 2))
        counted.append(this_key)
        attempts = cache.incr(this_key)
        before = cache.get(f"throttle:{action}:{key}:{int(current) - 1}", 0)
        estimate = attempts + before * previous_weight
        if estimate > limit:
            wait = _wait_in_cache(attempts - 1, before, limit, elapsed, seconds)
            refused = Throttled(False, limit, 0, wait, wait, key)
            break
        answer = Throttled(
            True,
            limit,
            max(0, math.floor(limit - estimate)),
            max(1, math.ceil(seconds - elapsed)),
            key=key,
        )
        if tightest is None or answer.remaining < tightest.remaining:
            tightest = answer
    if refused is not None:
        for this_key in counted:
            cache.decr(this_key)
        return refused
    return tightest or Throttled(True, 0, 0, _seconds(window))


def throttle_hits_prune(*, now: datetime | None = None) -> int:
    """Delete the counted attempts older than any window (those of keys that stopped
    coming, a client that went away); the number deleted."""
    since = (now or timezone.now()) - LONGEST_WINDOW
    deleted, _by_model = ThrottleHit.objects.filter(created_at__lte=since).delete()
    return deleted
