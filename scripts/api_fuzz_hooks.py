"""Schemathesis checks of the API's own conventions (docs/api.md), loaded by scripts/api_fuzz.py
through SCHEMATHESIS_HOOKS.

Schemathesis' `content_type_conformance` compares a response's type with the types the schema
declares for that status, so it cannot tell that *every* error must be a problem document:
an undocumented status, or a status the schema declares with another type, slips past it. The
checks below say it directly, for every response whatever the schema declares.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import schemathesis

PROBLEM_MEDIA_TYPE = "application/problem+json"
PROBLEM_REQUIRED = ("type", "title", "status")


def _media_type(response: Any) -> str:
    values = response.headers.get("content-type") or [""]
    return values[0].split(";", 1)[0].strip().lower()


@schemathesis.check
def problem_json_errors(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every error (status 400 or above) is an RFC 9457 problem document: the media type
    `application/problem+json`, a JSON object with `type`, `title` and `status`, and that
    `status` the response's own."""
    if response.status_code < 400:
        return None
    media_type = _media_type(response)
    if media_type != PROBLEM_MEDIA_TYPE:
        raise AssertionError(
            f"Error {response.status_code} answered {media_type or 'no Content-Type'}, "
            f"not {PROBLEM_MEDIA_TYPE}"
        )
    try:
        body = json.loads(response.content)
    except ValueError as exc:
        raise AssertionError(f"Error {response.status_code} is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise AssertionError(f"Error {response.status_code} is not a JSON object")
    missing = [name for name in PROBLEM_REQUIRED if name not in body]
    if missing:
        raise AssertionError(
            f"Problem document of error {response.status_code} lacks {', '.join(missing)}"
        )
    if body["status"] != response.status_code:
        raise AssertionError(
            f"Problem document says status {body['status']!r}, "
            f"the response is {response.status_code}"
        )
    return True


#: A key the API takes (tradepost.api.idempotency.VALID_KEY).
VALID_IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,255}")


@schemathesis.hook
def before_call(ctx: Any, case: Any, **kwargs: Any) -> None:
    """Each valid Idempotency-Key the fuzzer drew becomes a fresh UUID. Drawn keys repeat
    ("0", "A"...): the API would then rightly answer the second write with the first one's
    answer, or 422 for a key sent with another request, and the fuzzer would mostly see
    those. Invalid keys are kept: the API must refuse them (400)."""
    headers = case.headers or {}
    for name in list(headers):
        if name.lower() == "idempotency-key":
            value = headers[name]
            if isinstance(value, str) and VALID_IDEMPOTENCY_KEY.fullmatch(value):
                headers[name] = str(uuid.uuid4())
