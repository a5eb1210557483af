"""RFC 9457 problem details for every API error.

Errors are answered as `application/problem+json` with `type`, `title`, `status`, `detail`
and, for validation errors, `errors`: a list of {"field", "message"} in the request's language.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _

PROBLEM_BASE = "https://tradepost.example/problems/"


class ApiProblem(Exception):
    """Raise from an endpoint to answer with a problem document."""

    def __init__(
        self,
        status: int,
        code: str,
        title: str,
        detail: str = "",
        errors: list[dict[str, str]] | None = None,
    ):
        super().__init__(detail or title)
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.errors = errors or []


def problem_response(
    request: HttpRequest,
    *,
    status: int,
    code: str,
    title: str,
    detail: str = "",
    errors: list[dict[str, str]] | None = None,
) -> HttpResponse:
    body: dict[str, Any] = {
        "type": PROBLEM_BASE + code,
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


def render_problem(request: HttpRequest, problem: ApiProblem) -> HttpResponse:
    """The response for a raised (or built) problem."""
    return problem_response(
        request,
        status=problem.status,
        code=problem.code,
        title=problem.title,
        detail=problem.detail,
        errors=problem.errors,
    )
