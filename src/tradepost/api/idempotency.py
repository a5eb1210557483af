"""`Idempotency-Key` on every POST and PATCH of the API: a retried write is done once.

A client that sends a write with `Idempotency-Key: <key>` (1 to 255 visible ASCII
characters; a UUID does) and does not hear the answer (a timeout, a dropped connection) sends
it again with the same key, and gets the first answer again (status, body, Content-Type and
Location, plus `Idempotent-Replayed: true`) without the write being done twice. The key
belongs to its caller (`callers.Caller.scope`: a token's user, a signed-in user, or the client's
address for callers without credentials) and to one request: the method, the address with
its parameters and the body (JSON compared by value, not by spelling; a multipart body by
its fields and the contents of its files).

- the same key with another request: 422 `idempotency-key-reused`, nothing done;
- the same key while the first request is still being answered: 409
  `idempotency-key-in-progress` with `Retry-After: 1`; whoever inserts the key's row first
  does the work (a unique constraint: this holds between processes and machines);
- a malformed key: 400 `idempotency-key-invalid`;
- answers kept: 2xx, and 4xx but 401, 403, 408, 425 and 429 (those depend on the
  credentials or on time: the retry must be able to do better). Like Stripe, a refusal of
  the request itself is kept, so a retry gets the same answer. Unlike Stripe, a 5xx is not
  kept: a write here is one transaction, rolled back by the error, so the retry does the work;
- keys are kept TRADEPOST_IDEMPOTENCY_KEY_HOURS (24) hours from the first request, then
  deleted by the periodic jobs (`idempotency_keys_purge`); an older key counts as new;
- an answer never written (the process died while answering) frees its key after
  IN_FLIGHT_SECONDS.

Other methods ignore the header (PUT and DELETE are idempotent by themselves). Applied to
every operation by `tradepost.api.urls`; stored in the database (`api.IdempotencyKey`), with
or without Redis.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import wraps
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _

from tradepost.api.callers import api_caller
from tradepost.api.models import IdempotencyKey
from tradepost.api.problems import problem_response

HEADER = "Idempotency-Key"
META_NAME = "HTTP_IDEMPOTENCY_KEY"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255
#: Visible ASCII, no spaces: what a UUID, a ULID or a random token is made of.
VALID_KEY = re.compile(rf"[\x21-\x7e]{{1,{MAX_KEY_LENGTH}}}")
METHODS = frozenset({"POST", "PATCH"})
#: An answer still not written this long after its request came is never coming (the
#: process died): the next request with the key does the work.
IN_FLIGHT_SECONDS = 300
#: The headers kept with an answer and sent again with it.
KEPT_HEADERS = ("Content-Type", "Content-Language", "Content-Disposition", "Location")
#: Client errors whose answer is not kept: they depend on the credentials or on time.
NOT_KEPT = frozenset({401, 403, 408, 425, 429})


def key_lifetime() -> timedelta:
    return timedelta(hours=int(settings.TRADEPOST_IDEMPOTENCY_KEY_HOURS))


def _kept(response: HttpResponse) -> bool:
    status = response.status_code
    if response.streaming or status in NOT_KEPT:
        return False
    return 200 <= status < 300 or 400 <= status < 500


def _canonical_body(request: HttpRequest) -> bytes:
    content_type = request.content_type or ""
    if content_type.startswith("multipart/"):
        # The boundary differs between two sends of the same form: compare the parts.
        digest = hashlib.sha256()
        for name, values in sorted(request.POST.lists()):
            for value in values:
                digest.update(f"field\0{name}\0{value}\0".encode("utf-8", "surrogatepass"))
        for name, files in sorted(request.FILES.lists()):
            for upload in files:
                digest.update(f"file\0{name}\0{upload.name}\0".encode("utf-8", "surrogatepass"))
                for chunk in upload.chunks():
                    digest.update(chunk)
                upload.seek(0)  # the endpoint reads it next
        return digest.hexdigest().encode()
    body = request.body
    if "json" in content_type:
        try:
            return json.dumps(json.loads(body), sort_keys=True).encode()
        except (ValueError, RecursionError):
            pass  # the endpoint refuses it; compared as sent
    return body


def request_fingerprint(request: HttpRequest) -> str:
    """A hash of the method, the path, the query parameters and the body."""
    digest = hashlib.sha256()
    query = sorted((name, values) for name, values in request.GET.lists())
    head = json.dumps([request.method, request.path, query])
    digest.update(head.encode("utf-8", "surrogatepass"))
    digest.update(b"\0")
    digest.update(_canonical_body(request))
    return digest.hexdigest()


def _invalid_key(request: HttpRequest) -> HttpResponse:
    return problem_response(
        request,
        status=400,
        code="idempotency-key-invalid",
        title=_("The Idempotency-Key header is not valid"),
        detail=_("Send 1 to %(max)d visible ASCII characters without spaces, for example a UUID.")
        % {"max": MAX_KEY_LENGTH},
    )


def _reused(request: HttpRequest) -> HttpResponse:
    return problem_response(
        request,
        status=422,
        code="idempotency-key-reused",
        title=_("This Idempotency-Key was sent with another request"),
        detail=_(
            "A key stands for one request (its method, address and body). Send a new key "
            "with a different request."
        ),
    )


def _in_progress(request: HttpRequest) -> HttpResponse:
    response = problem_response(
        request,
        status=409,
        code="idempotency-key-in-progress",
        title=_("A request with this Idempotency-Key is still being answered"),
        detail=_("Wait for its answer, or send the request again with the same key shortly."),
    )
    response["Retry-After"] = "1"
    return response


def _replay(record: IdempotencyKey) -> HttpResponse:
    response = HttpResponse(bytes(record.body), status=record.status)
    for name, value in record.headers.items():
        response[name] = value
    response[REPLAYED_HEADER] = "true"
    return response


def _claim(
    request: HttpRequest, *, scope: str, key: str, fingerprint: str
) -> IdempotencyKey | HttpResponse:
    """This request's own row for the key (it does the work), or the answer for it: the
    kept answer, or a problem."""
    for _attempt in range(3):
        now = timezone.now()
        try:
            with transaction.atomic():
                return IdempotencyKey.objects.create(
                    scope=scope,
                    key=key,
                    fingerprint=fingerprint,
                    method=request.method or "",
                    path=request.path,
                    created_at=now,
                )
        except IntegrityError:
            pass
        found = IdempotencyKey.objects.filter(scope=scope, key=key).first()
        if found is None:
            continue  # released or purged meanwhile: claim it again
        same_row = IdempotencyKey.objects.filter(pk=found.pk, created_at=found.created_at)
        if found.created_at <= now - key_lifetime():
            same_row.delete()  # expired: the key is new again
            continue
        if found.fingerprint != fingerprint:
            return _reused(request)
        if found.status is not None:
            return _replay(found)
        if found.created_at > now - timedelta(seconds=IN_FLIGHT_SECONDS):
            return _in_progress(request)
        # Abandoned by a process that died answering: take it over (one taker wins).
        if same_row.filter(status__isnull=True).update(created_at=now):
            found.created_at = now
            return found
    return _in_progress(request)


def _keep(record: IdempotencyKey, response: HttpResponse) -> None:
    mine = IdempotencyKey.objects.filter(pk=record.pk, created_at=record.created_at)
    if not _kept(response):
        mine.delete()  # the key is free: a retry does the work
        return
    mine.update(
        status=response.status_code,
        headers={name: response[name] for name in KEPT_HEADERS if response.has_header(name)},
        body=response.content,
        answered_at=timezone.now(),
    )


def idempotent(run: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Wraps an operation's `run` (`api.add_decorator(idempotent, mode="view")`)."""

    @wraps(run)
    def once(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method not in METHODS or META_NAME not in request.META:
            return run(request, *args, **kwargs)
        key = request.META[META_NAME]
        if not isinstance(key, str) or not VALID_KEY.fullmatch(key):
            return _invalid_key(request)
        claimed = _claim(
            request,
            scope=api_caller(request).scope,
            key=key,
            fingerprint=request_fingerprint(request),
        )
        if isinstance(claimed, HttpResponse):
            return claimed
        try:
            response = run(request, *args, **kwargs)
        except BaseException:
            _keep(claimed, HttpResponse(status=500))  # frees the key
            raise
        _keep(claimed, response)
        return response

    return once


def idempotency_keys_purge(*, now: datetime | None = None) -> int:
    """Delete the keys older than TRADEPOST_IDEMPOTENCY_KEY_HOURS; the number deleted."""
    since = (now or timezone.now()) - key_lifetime()
    deleted, _by_model = IdempotencyKey.objects.filter(created_at__lte=since).delete()
    return deleted
