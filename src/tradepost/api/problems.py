"""RFC 9457 problem details for every API error.

Errors are answered as `application/problem+json` with `type`, `title`, `status`, `detail`
and, for validation errors, `errors`: a list of {"field", "message"} in the request's language.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _

from tradepost.core.errors import NON_FIELD, DomainError, ErrorKind


def problem_type(code: str) -> str:
    """The `type` of a problem: an address on this site (`SITE_URL/problems/<code>`, which
    leads to the API's documentation), one per code (docs/api.md)."""
    return f"{settings.SITE_URL}/problems/{code}"


#: The status of each kind of refusal (`core.errors.ErrorKind`).
KIND_STATUS = {
    ErrorKind.INVALID: 422,
    ErrorKind.NOT_FOUND: 404,
    ErrorKind.FORBIDDEN: 403,
    ErrorKind.CONFLICT: 409,
    ErrorKind.RATE_LIMITED: 429,
}


class ApiProblem(Exception):
    """Raise from an endpoint to answer with a problem document."""

    def __init__(
        self,
        status: int,
        code: str,
        title: str,
        detail: str = "",
        errors: list[dict[str, str]] | None = None,
        extensions: dict[str, Any] | None = None,
    ):
        super().__init__(detail or title)
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.errors = errors or []
        #: Extension members of the problem document (RFC 9457), beside the standard ones.
        self.extensions = extensions or {}


def problem_response(
    request: HttpRequest,
    *,
    status: int,
    code: str,
    title: str,
    detail: str = "",
    errors: list[dict[str, str]] | None = None,
    extensions: dict[str, Any] | None = None,
) -> HttpResponse:
    body: dict[str, Any] = {
        **(extensions or {}),
        "type": problem_type(code),
        "title": title,
        "status": status,
        "detail": detail or title,
        "instance": request.path,
    }
    if errors:
        body["errors"] = errors
    return JsonResponse(
        body,
        status=status,
        content_type="application/problem+json",
        json_dumps_params={"ensure_ascii": False},
    )


def not_found(detail: str | None = None) -> ApiProblem:
    return ApiProblem(404, "not-found", _("Not found"), detail or _("No such object."))


def validation_problem(errors: dict[str, list[str]] | list[dict[str, str]]) -> ApiProblem:
    if isinstance(errors, dict):
        items = [
            {"field": field, "message": str(message)}
            for field, messages in errors.items()
            for message in messages
        ]
    else:
        items = errors
    return ApiProblem(
        422,
        "validation-error",
        _("The request has invalid fields"),
        _("Correct the fields listed in errors and send the request again."),
        items,
    )


def _field_list(errors: dict[str, list[str]]) -> list[dict[str, str]]:
    """{"field", "message"} items; messages about the request as a whole name the `body`."""
    return [
        {"field": "body" if field == NON_FIELD else field, "message": message}
        for field, messages in errors.items()
        for message in messages
    ]


def domain_problem(error: DomainError) -> ApiProblem:
    """The problem answering a service's refusal, the same for every app and endpoint.

    - invalid: 422 `validation-error`, every message in `errors`;
    - not found: 404 `not-found` and nothing more, whatever the reason: a missing object and
      another company's look the same;
    - forbidden, conflict, rate limited: 403, 409, 429 with the error's code as `type`, its
      title, and the messages as `detail`; or, when the messages name fields (a product not
      publishable yet, a request's fields locked after quotations), in `errors`;
    - the error's `extensions` (a likely duplicate listing...) as members of the document.
    """
    kind = error.kind
    if kind is ErrorKind.NOT_FOUND:
        return not_found()
    if kind is ErrorKind.INVALID:
        return validation_problem(_field_list(error.message_dict))
    if error.field_errors:
        problem = validation_problem(_field_list(error.message_dict))
        problem.status, problem.code, problem.title = (
            KIND_STATUS[kind],
            str(error.code),
            error.title,
        )
        problem.extensions = error.extensions
        return problem
    return ApiProblem(
        KIND_STATUS[kind],
        str(error.code),
        error.title,
        error.message,
        extensions=error.extensions,
    )


def render_problem(request: HttpRequest, problem: ApiProblem) -> HttpResponse:
    """The response for a raised (or built) problem."""
    return problem_response(
        request,
        status=problem.status,
        code=problem.code,
        title=problem.title,
        detail=problem.detail,
        errors=problem.errors,
        extensions=problem.extensions,
    )
