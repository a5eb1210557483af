"""ETag and If-None-Match on every GET of the API: 304 when the client has the answer.

Every successful GET answer (200, not a streamed file) carries a strong `ETag`, a hash of
its body; a request whose `If-None-Match` names it (or `*`) answers `304 Not Modified` with
no body and the same ETag, Cache-Control and Vary. The hash is of the bytes answered, so it
changes with the resource, the language, the currency asked for, the page... whatever changes
the answer. It saves the transfer, not the work: the answer is still made to be compared.

Caching: an answer that says nothing of it (`Cache-Control`) gets `private, no-cache` when
the request carries credentials (an `Authorization` header or a session cookie: its answer
may be the user's own) and `no-cache` otherwise (a shared cache may keep a public answer but
asks each time, with the ETag). Answers that set their own (`private, no-store` on files
and PDFs) keep it. Every GET answer says `Vary: Accept-Language, Authorization, Cookie`: the
language, the token and the session change it.

Applied to every operation by `tradepost.api.urls`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_vary_headers
from django.utils.http import parse_etags

VARY = ("Accept-Language", "Authorization", "Cookie")
#: The headers a 304 repeats from the answer it stands for (RFC 9110, 15.4.5).
NOT_MODIFIED_HEADERS = ("Cache-Control", "Content-Location", "Date", "ETag", "Expires", "Vary")


def body_etag(content: bytes) -> str:
    return f'"{hashlib.sha256(content).hexdigest()[:32]}"'


def _with_credentials(request: HttpRequest) -> bool:
    return "Authorization" in request.headers or settings.SESSION_COOKIE_NAME in request.COOKIES


def _matches(header: str, etag: str) -> bool:
    """If-None-Match's weak comparison: the opaque tags, W/ or not."""
    if header.strip() == "*":
        return True
    opaque = etag.removeprefix("W/")
    return any(tag.removeprefix("W/") == opaque for tag in parse_etags(header))


def _not_modified(response: HttpResponse) -> HttpResponse:
    answer = HttpResponseNotModified()
    for name in NOT_MODIFIED_HEADERS:
        if response.has_header(name):
            answer[name] = response[name]
    answer.cookies = response.cookies
    return answer


def conditional_get(run: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Wraps an operation's `run` (`api.add_decorator(conditional_get, mode="view")`)."""

    @wraps(run)
    def answer(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = run(request, *args, **kwargs)
        if request.method != "GET":
            return response
        patch_vary_headers(response, VARY)
        if response.status_code != 200 or response.streaming:
            return response
        if not response.has_header("Cache-Control"):
            private = _with_credentials(request)
            response["Cache-Control"] = "private, no-cache" if private else "no-cache"
        if not response.has_header("ETag"):
            response["ETag"] = body_etag(response.content)
        condition = request.headers.get("If-None-Match")
        if condition and _matches(condition, response["ETag"]):
            return _not_modified(response)
        return response

    return answer
