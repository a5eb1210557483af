"""The API's schema says which operations need a token and every error each can answer.

django-ninja describes the success responses and the security of each operation. This adds,
from the conventions every endpoint follows (docs/api.md):

- `security` with an empty requirement (`{}`) where an endpoint also answers visitors without a
  token (`PUBLIC_AUTH`): the token is optional there, and the schema says so;
- the error responses, each an `application/problem+json` document (the `Problem` component):
  400 (a NUL character in the address, a body that is not JSON), 414 and 431 (an address or
  headers longer than the HTTP server reads) and 500 for every operation; 401 where a token is
  required; 403 for writes that need a role, for operators' operations and for the reads of
  the caller's own company (COMPANY_READS: 403 `no-company` without one); 404 where the path
  names an object (a missing object and another company's look the same); 409 for writes on
  an object whose state may forbid them (STATEFUL_WRITES: the caller's own, unnamed in the
  path); 422 for operations with parameters or a body; 429 for every operation (the API's
  rate limits; writing messages, inquiries, questions and reports has limits of its own). POST
  and PATCH answer 409 and 422 for their `Idempotency-Key` too (400 for a malformed one; ADR
  0029; the headers themselves: `openapi_headers`).
"""

from __future__ import annotations

from typing import Any

PROBLEM_MEDIA_TYPE = "application/problem+json"

PROBLEM_SCHEMA: dict[str, Any] = {
    "title": "Problem",
    "type": "object",
    "description": "RFC 9457 problem details, in the request's language.",
    "properties": {
        "type": {"type": "string", "format": "uri"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "instance": {"type": "string"},
        "errors": {
            "type": "array",
            "description": "Invalid fields, for 422.",
            "items": {
                "type": "object",
                "properties": {"field": {"type": "string"}, "message": {"type": "string"}},
                "required": ["field", "message"],
            },
        },
        "duplicates": {
            "type": "array",
            "description": (
                "For 409 `likely-duplicate` (publishing a product): the company's published "
                "listings most like it, most similar first."
            ),
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "title": {"type": "string"},
                    "url": {"type": "string", "description": "The path of its public page"},
                    "similarity": {"type": "number", "description": "0 to 1"},
                },
                "required": ["id", "title", "url", "similarity"],
            },
        },
    },
    "required": ["type", "title", "status"],
}

ERROR_DESCRIPTIONS = {
    400: (
        "A NUL character in the path or a parameter, a body that is not JSON, or an "
        "Idempotency-Key that is not 1 to 255 visible ASCII characters."
    ),
    401: "No valid token (or session) was sent.",
    403: (
        "The user acts for no company (`no-company`), their role in the company does not allow "
        "this, or the operation is for operators."
    ),
    404: "No such object, or not one this user may see (the two look the same).",
    409: (
        "The object's state forbids this now (already published, closed, awarded...), or a "
        "request with the same Idempotency-Key is still being answered (with Retry-After)."
    ),
    422: (
        "Invalid parameters or fields, listed in `errors`; or an Idempotency-Key already sent "
        "with another request."
    ),
    414: "The address (path and parameters) is longer than the server reads.",
    429: (
        "Too many requests in a minute (Retry-After says how long to wait), or too many "
        "messages or reports in a short time."
    ),
    431: "The request's headers are larger than the server reads.",
    500: "An unexpected error on the server's side (nothing of it is disclosed).",
}

#: Paths of writes whose object's state may forbid them though the path names no object (the
#: caller's company's verification: one request waits at a time, only a waiting one is withdrawn;
#: its subscription).
STATEFUL_WRITES = frozenset(
    {
        "/api/v1/me/verification",
        "/api/v1/me/verification/withdraw",
        "/api/v1/me/subscription",  # nothing to cancel, a change already waiting for payment
        "/api/v1/me/showcase",  # every slot in use, a product that is not published
    }
)
#: Reads of the caller's own company: a caller who acts for none is refused (403 `no-company`,
#: `companies.actors.Actor.require_company`), and so, for the webhooks, is a plain member.
COMPANY_READS = frozenset(
    {
        "/api/v1/requests/mine",
        "/api/v1/requests/matching",
        "/api/v1/alerts",
        "/api/v1/me/products",
        "/api/v1/me/imports",
        "/api/v1/me/catalogue/export",
        "/api/v1/me/webhooks",
        "/api/v1/me/insights",
        "/api/v1/me/showcase",
        "/api/v1/me/subscription",
        "/api/v1/me/invoices",
        "/api/v1/me/verification",
        "/api/v1/me/verification/requests",
    }
)
#: Operations for operators only: everybody else is refused (403), reads included.
OPERATORS_ONLY = "/api/v1/operator/"
WRITE_METHODS = frozenset({"post", "put", "patch", "delete"})
#: Writes that take an Idempotency-Key (`tradepost.api.idempotency`).
IDEMPOTENT_WRITES = frozenset({"post", "patch"})


def _problem_response(status: int) -> dict[str, Any]:
    return {
        "description": ERROR_DESCRIPTIONS[status],
        "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }


def _statuses(path: str, method: str, operation: dict[str, Any]) -> list[int]:
    security = operation.get("security") or []
    needs_token = bool(security) and {} not in security
    has_object = "{" in path
    is_write = method in WRITE_METHODS
    statuses = [400, 414, 431, 500]
    if needs_token:
        statuses.append(401)
    if needs_token and (is_write or path.startswith(OPERATORS_ONLY) or path in COMPANY_READS):
        statuses.append(403)
    if has_object or needs_token:
        statuses.append(404)
    idempotent = method in IDEMPOTENT_WRITES  # Idempotency-Key: in progress, reused
    if idempotent or (is_write and (has_object or path in STATEFUL_WRITES)):
        statuses.append(409)
    if idempotent or operation.get("parameters") or operation.get("requestBody"):
        statuses.append(422)
    statuses.append(429)  # the API's rate limits (messages, reports... have their own too)
    return sorted(statuses)


def describe_errors(schema: dict[str, Any]) -> dict[str, Any]:
    """Add the Problem component and every operation's error responses to `schema`."""
    schema.setdefault("components", {}).setdefault("schemas", {})["Problem"] = PROBLEM_SCHEMA
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            for status in _statuses(path, method, operation):
                responses.setdefault(status, _problem_response(status))
    return schema
