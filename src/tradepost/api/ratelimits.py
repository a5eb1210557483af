"""Rate limits on every API operation: 429 with `Retry-After` past the limit.

Each request counts against its caller (`tradepost.api.callers`): an API token, a signed-in
user, or, without valid credentials, the client's address. Reads (GET) and writes (POST,
PUT, PATCH, DELETE) have limits of their own per minute (TRADEPOST_API_READS_PER_MINUTE,
TRADEPOST_API_WRITES_PER_MINUTE; 0 turns one off), counted over a sliding minute by the
project's one rate limiter (`tradepost.accounts.throttle`: Redis where REDIS_URL is set, the
database otherwise). Every answer says where the caller stands, in the headers of the IETF
draft "RateLimit header fields for HTTP":

    RateLimit-Limit: 300          requests the minute holds
    RateLimit-Remaining: 287      left after this one
    RateLimit-Reset: 41           seconds until the count drops
    RateLimit-Policy: 300;w=60

A request past the limit is not counted and answers a 429 problem in the client's language,
with `Retry-After` (seconds). Applied to every operation by `tradepost.api.urls`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tradepost.accounts.throttle import Throttled, throttle, throttle_key
from tradepost.api.callers import api_caller
from tradepost.api.problems import problem_response

WINDOW = timedelta(minutes=1)
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def api_limit(method: str) -> tuple[str, int]:
    """The throttle action and the limit per minute of a request with this method."""
    if method in READ_METHODS:
        return "api-read", int(settings.TRADEPOST_API_READS_PER_MINUTE)
    return "api-write", int(settings.TRADEPOST_API_WRITES_PER_MINUTE)


def _too_many(request: HttpRequest, answer: Throttled) -> HttpResponse:
    seconds = answer.retry_after
    response = problem_response(
        request,
        status=429,
        code="too-many-requests",
        title=_("Too many requests"),
        detail=ngettext(
            "More than %(limit)d requests of this kind in a minute. Try again in %(seconds)d "
            "second.",
            "More than %(limit)d requests of this kind in a minute. Try again in %(seconds)d "
            "seconds.",
            seconds,
        )
        % {"limit": answer.limit, "seconds": seconds},
    )
    response["Retry-After"] = str(seconds)
    return response


def _describe(response: HttpResponse, answer: Throttled) -> None:
    response["RateLimit-Limit"] = str(answer.limit)
    response["RateLimit-Remaining"] = str(answer.remaining)
    response["RateLimit-Reset"] = str(answer.reset)
    response["RateLimit-Policy"] = f"{answer.limit};w={int(WINDOW.total_seconds())}"


def rate_limited(run: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Wraps an operation's `run` (`api.add_decorator(rate_limited, mode="view")`)."""

    @wraps(run)
    def limited(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        action, limit = api_limit(request.method or "GET")
        if limit <= 0:
            return run(request, *args, **kwargs)
        caller = api_caller(request)
        answer = throttle(
            action=action,
            limits=[(throttle_key(caller.kind, caller.identity), limit)],
            window=WINDOW,
        )
        response = run(request, *args, **kwargs) if answer.allowed else _too_many(request, answer)
        _describe(response, answer)
        return response

    return limited
