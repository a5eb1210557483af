"""The JSON API under /api/v1/ (schema at /api/v1/openapi.json, docs at /api/v1/docs)."""

from __future__ import annotations

from typing import Any

from csp.decorators import csp_exempt
from django.http import Http404
from django.http.request import RawPostDataException
from django.utils.translation import gettext as _
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.operation import Operation

from tradepost.api import (
    accounts,
    alerts,
    imports,
    insights,
    membership,
    messaging,
    products,
    public,
    reports,
    reviews,
    screening,
    search,
    showcase,
    sourcing,
    trust,
    webhooks,
)
from tradepost.api.etags import conditional_get
from tradepost.api.field_errors import field_message
from tradepost.api.idempotency import idempotent
from tradepost.api.openapi import describe_errors
from tradepost.api.openapi_headers import describe_headers
from tradepost.api.operation_ids import OPERATION_IDS
from tradepost.api.parser import JsonObjectParser
from tradepost.api.problems import (
    ApiProblem,
    domain_problem,
    problem_response,
    render_problem,
    validation_problem,
)
from tradepost.api.ratelimits import rate_limited
from tradepost.core.errors import DomainError


class TradepostAPI(NinjaAPI):
    """The API, whose schema also describes every error an operation can answer and the
    headers every operation takes and answers."""

    def get_openapi_schema(self, **kwargs: Any) -> Any:
        return describe_headers(describe_errors(super().get_openapi_schema(**kwargs)))

    def get_openapi_operation_id(self, operation: Operation) -> str:
        """The hand-named id (`api.operation_ids`); the module and function's name for one
        not named yet (which the schema's test refuses)."""
        module = operation.view_func.__module__.removeprefix("tradepost.api.")
        key = f"{module}.{operation.view_func.__name__}"
        return OPERATION_IDS.get(key) or super().get_openapi_operation_id(operation)


api = TradepostAPI(
    # The interactive docs page loads Swagger UI from its CDN: the site's CSP would block it.
    docs_decorator=csp_exempt(),
    title="Tradepost API",
    version="1",
    urls_namespace="api",
    parser=JsonObjectParser(),
    description="Categories, companies and products of the Tradepost marketplace.",
)
# Around every operation, outermost last: ETags on GETs, Idempotency-Key on POST and PATCH,
# rate limits on all (docs/api.md; ADR 0029).
api.add_decorator(conditional_get, mode="view")
api.add_decorator(idempotent, mode="view")
api.add_decorator(rate_limited, mode="view")
api.add_router("/", public.router)
api.add_router("/search", search.router)
api.add_router("/requests", sourcing.router)
api.add_router("/alerts", alerts.router)
api.add_router("/conversations", messaging.router)
api.add_router("/notifications", messaging.notifications_router)
api.add_router("/me", accounts.router)
api.add_router("/me/products", products.router)
api.add_router("/me/imports", imports.router)
api.add_router("/me/catalogue", imports.catalogue_router)
api.add_router("/me/webhooks", webhooks.router)
api.add_router("/me/insights", insights.router)
api.add_router("/me/showcase", showcase.router)
api.add_router("/showcase", showcase.public_router)
api.add_router("/plans", membership.plans_router)
api.add_router("/me/subscription", membership.router)
api.add_router("/me/invoices", membership.invoices_router)
api.add_router("/operator", membership.operator_router)
api.add_router("/", trust.router)
api.add_router("/", reports.router)
api.add_router("/", reviews.router)
api.add_router("/operator", screening.router)


@api.exception_handler(ApiProblem)
def _api_problem(request, exc: ApiProblem):
    return render_problem(request, exc)


@api.exception_handler(DomainError)
def _refused(request, exc: DomainError):
    """Every app's refusal, the one place it becomes a problem document (ADR 0017)."""
    return render_problem(request, domain_problem(exc))


@api.exception_handler(ValidationError)
def _validation(request, exc: ValidationError):
    errors = []
    for error in exc.errors:
        loc = [str(part) for part in error.get("loc", [])]
        if loc[:1] == ["body"]:
            # ("body", the view's body parameter, the field's path): a field may itself be
            # called `query` (a trade alert's words) or `body` (a message's).
            location = loc[2:]
        else:
            location = [part for part in loc if part not in ("body", "payload", "query")]
        errors.append({"field": ".".join(location) or "body", "message": field_message(error)})
    return render_problem(request, validation_problem(errors))


@api.exception_handler(AuthenticationError)
def _unauthenticated(request, exc):
    return problem_response(
        request,
        status=401,
        code="unauthenticated",
        title=_("Authentication required"),
        detail=_("Send a valid API token as 'Authorization: Bearer <token>'."),
    )


@api.exception_handler(Http404)
def _not_found(request, exc):
    return problem_response(request, status=404, code="not-found", title=_("Not found"))


@api.exception_handler(RawPostDataException)
def _form_to_json_endpoint(request, exc):
    """A multipart form sent to an endpoint that reads a JSON body: the form was read already
    (for the checks of `UnstorableTextMiddleware` and `Idempotency-Key`), so its raw bytes are
    gone; the answer is the one any other body that is not JSON gets."""
    return render_problem(request, JsonObjectParser.not_json())


@api.exception_handler(HttpError)
def _http_error(request, exc: HttpError):
    if isinstance(exc.__cause__, ApiProblem):
        # django-ninja wraps whatever reading the body raised (`JsonObjectParser`).
        return render_problem(request, exc.__cause__)
    return problem_response(request, status=exc.status_code, code="error", title=str(exc))
