"""The schema's account of the headers every operation takes and answers (ADR 0029).

Applied after `openapi.describe_errors` (`tradepost.api.urls`), from the conventions every
operation follows because they are applied around all of them:

- every answer may carry the rate-limit headers (`RateLimit-Limit`, `RateLimit-Remaining`,
  `RateLimit-Reset`, `RateLimit-Policy`), and a 429 carries `Retry-After`
  (`tradepost.api.ratelimits`);
- GETs take `If-None-Match`; their 200 carries an `ETag`, and they may answer 304 with no
  body (`tradepost.api.etags`);
- POSTs and PATCHes take `Idempotency-Key`; an answer sent again for a key says
  `Idempotent-Replayed: true`, and a 409 for a key still being answered carries `Retry-After`
  (`tradepost.api.idempotency`).

The parameters and headers are components (`#/components/parameters/...`,
`#/components/headers/...`); the responses refer to the headers, the operations carry copies
of the parameters.
"""

from __future__ import annotations

from typing import Any

from tradepost.api.idempotency import MAX_KEY_LENGTH
from tradepost.api.idempotency import METHODS as IDEMPOTENT_METHODS

PARAMETERS: dict[str, dict[str, Any]] = {
    "IdempotencyKey": {
        "name": "Idempotency-Key",
        "in": "header",
        "required": False,
        "description": (
            "A key of your own for this write (a UUID): sent again with the same request, the "
            "first answer comes back and nothing is done twice. Kept 24 hours, per token "
            "(or client address without one). The same key with another request: 422; "
            "while the first is being answered: 409."
        ),
        "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_KEY_LENGTH,
            "pattern": "^[\\x21-\\x7E]+$",
        },
    },
    "IfNoneMatch": {
        "name": "If-None-Match",
        "in": "header",
        "required": False,
        "description": "The ETag of the answer you have: 304 with no body while it is current.",
        "schema": {"type": "string"},
    },
}

HEADERS: dict[str, dict[str, Any]] = {
    "RateLimit-Limit": {
        "description": "Requests of this kind (reads or writes) a minute allows this caller.",
        "schema": {"type": "integer", "minimum": 0},
    },
    "RateLimit-Remaining": {
        "description": "Requests of this kind left in the sliding minute.",
        "schema": {"type": "integer", "minimum": 0},
    },
    "RateLimit-Reset": {
        "description": "Seconds until the count drops.",
        "schema": {"type": "integer", "minimum": 0},
    },
    "RateLimit-Policy": {
        "description": 'The limit and its window in seconds, as "300;w=60".',
        "schema": {"type": "string"},
    },
    "Retry-After": {
        "description": "Seconds to wait before sending the request again.",
        "schema": {"type": "integer", "minimum": 1},
    },
    "ETag": {
        "description": "A hash of the answer's body; send it as If-None-Match.",
        "schema": {"type": "string"},
    },
    "Idempotent-Replayed": {
        "description": "The answer kept for this Idempotency-Key, sent again.",
        "schema": {"type": "string", "enum": ["true"]},
    },
}

RATE_LIMIT_HEADERS = (
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "RateLimit-Policy",
)

NOT_MODIFIED = "Not modified: the ETag sent as If-None-Match is current. No body."


def _refs(names: tuple[str, ...] | list[str]) -> dict[str, Any]:
    return {name: {"$ref": f"#/components/headers/{name}"} for name in names}


def _add_parameter(operation: dict[str, Any], name: str) -> None:
    """A copy of the component, not a `$ref`: whatever reads an operation's parameters by
    `name` and `in` (the schema tests, simple clients) sees it like ninja's own."""
    parameters = operation.setdefault("parameters", [])
    if not any(parameter.get("name") == PARAMETERS[name]["name"] for parameter in parameters):
        parameters.append(dict(PARAMETERS[name]))


def describe_headers(schema: dict[str, Any]) -> dict[str, Any]:
    """Add the conventions' parameters, headers and 304s to every operation of `schema`."""
    components = schema.setdefault("components", {})
    components.setdefault("parameters", {}).update(PARAMETERS)
    components.setdefault("headers", {}).update(HEADERS)
    for operations in schema.get("paths", {}).values():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            if method == "get":
                _add_parameter(operation, "IfNoneMatch")
                responses.setdefault(
                    304,
                    {"description": NOT_MODIFIED, "headers": _refs(["ETag", *RATE_LIMIT_HEADERS])},
                )
            if method.upper() in IDEMPOTENT_METHODS:
                _add_parameter(operation, "IdempotencyKey")
            for status, response in responses.items():
                code = int(status)
                names: list[str] = []
                if code < 500:
                    names.extend(RATE_LIMIT_HEADERS)
                if code == 200 and method == "get":
                    names.append("ETag")
                if 200 <= code < 300 and method.upper() in IDEMPOTENT_METHODS:
                    names.append("Idempotent-Replayed")
                if code == 429 or (code == 409 and method.upper() in IDEMPOTENT_METHODS):
                    names.append("Retry-After")
                headers = response.setdefault("headers", {})
                for name, ref in _refs(names).items():
                    headers.setdefault(name, ref)
    return schema
