"""The company's webhook pages under /<lang>/dashboard/webhooks/ (docs/webhooks.md): the
endpoints and the form that adds one (its secret shown once, on the answer to that POST),
each endpoint's page (its events, the secret's last characters, rotate, switch off or on,
send a test event, delete) with its delivery log and "send again".

Only the company's owner and admins get here; an endpoint or delivery id of another company
answers 404 like a missing one (`access_webhook_endpoint`, `access_webhook_delivery`).
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from tradepost.companies.models import Company
from tradepost.web.guards import company_required
from tradepost.web.pagination import paginate
from tradepost.web.refusals import flash_refusal, show_on_form
from tradepost.web.views.accounts import AuthenticatedRequest
from tradepost.webhooks import selectors, services
from tradepost.webhooks.errors import WebhookError
from tradepost.webhooks.forms import EndpointForm, RotateSecretForm
from tradepost.webhooks.models import DeliveryStatus, WebhookEndpoint
from tradepost.webhooks.signing import TOLERANCE_SECONDS, secret_hint

#: Deliveries the log shows on a page.
LOG_PAGE_SIZE = 25


#: The guard of the pages: the owner and the admins of a company manage its webhooks (operators
#: too, only when that is their own role).
managers_only = company_required(
    gettext_lazy("Create your company profile first."),
    manage=gettext_lazy("Only the owner and the admins of a company manage its webhooks."),
    operators_manage=False,
)


def _secret_page(
    request: AuthenticatedRequest, result: services.EndpointWithSecret, *, created: bool
) -> HttpResponse:
    response = render(
        request,
        "webhooks/secret.html",
        {"endpoint": result.endpoint, "secret": result.secret, "created": created},
    )
    response["Cache-Control"] = "no-store"
    return response


@managers_only
def endpoints(request: AuthenticatedRequest, company: Company) -> HttpResponse:
    form = EndpointForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            result = services.webhook_endpoint_create(actor=request.user, **form.cleaned_data)
        except WebhookError as exc:
            show_on_form(form, exc)
        else:
            return _secret_page(request, result, created=True)
    listed = list(selectors.endpoints_of(company))
    context = {
        "company": company,
        "endpoints": [(endpoint, secret_hint(endpoint.secret_salt)) for endpoint in listed],
        "form": form,
        "event_types": selectors.event_type_choices(),
    }
    status = 400 if form.is_bound and form.errors else 200
    return render(request, "webhooks/list.html", context, status=status)


def _log_status(request: AuthenticatedRequest) -> str:
    status = request.GET.get("status", "")
    return status if status in DeliveryStatus.values else ""


@managers_only
def endpoint_detail(
    request: AuthenticatedRequest, endpoint_id: int, company: Company
) -> HttpResponse:
    endpoint = selectors.access_webhook_endpoint(user=request.user, endpoint_id=endpoint_id)
    posted = request.method == "POST"
    form = (
        EndpointForm(request.POST)
        if posted
        else EndpointForm(
            initial={
                "url": endpoint.url,
                "description": endpoint.description,
                "events": endpoint.events,
            }
        )
    )
    if posted and form.is_valid():
        try:
            services.webhook_endpoint_update(
                actor=request.user, endpoint=endpoint, **form.cleaned_data
            )
        except WebhookError as exc:
            show_on_form(form, exc)
        else:
            messages.success(request, _("The endpoint is saved."))
            return redirect("webhooks:detail", endpoint_id=endpoint.pk)
    status_filter = _log_status(request)
    log = paginate(request, selectors.deliveries_of(endpoint, status=status_filter), LOG_PAGE_SIZE)
    context = {
        "endpoint": endpoint,
        "form": form,
        "rotate_form": RotateSecretForm(),
        "secret_hint": secret_hint(endpoint.secret_salt),
        "previous_secret_until": (
            endpoint.previous_secret_expires_at
            if endpoint.previous_secret_salt
            and endpoint.previous_secret_expires_at
            and endpoint.previous_secret_expires_at > timezone.now()
            else None
        ),
        "page": log,
        "deliveries": [
            (delivery, selectors.event_type_label(delivery.event.type)) for delivery in log
        ],
        "statuses": DeliveryStatus.choices,
        "status_filter": status_filter,
        "tolerance_minutes": TOLERANCE_SECONDS // 60,
    }
    status = 400 if form.is_bound and form.errors else 200
    return render(request, "webhooks/detail.html", context, status=status)


def _endpoint_for_button(request: AuthenticatedRequest, endpoint_id: int) -> WebhookEndpoint:
    return selectors.access_webhook_endpoint(user=request.user, endpoint_id=endpoint_id)


@login_required
@require_POST
def endpoint_rotate(request: AuthenticatedRequest, endpoint_id: int) -> HttpResponse:
    endpoint = _endpoint_for_button(request, endpoint_id)
    form = RotateSecretForm(request.POST)
    keep_previous = form.cleaned_data["keep_previous"] if form.is_valid() else False
    try:
        result = services.webhook_endpoint_rotate_secret(
            actor=request.user, endpoint=endpoint, keep_previous=keep_previous
        )
    except WebhookError as exc:
        flash_refusal(request, exc)
        return redirect("webhooks:detail", endpoint_id=endpoint.pk)
    return _secret_page(request, result, created=False)


def _endpoint_button(
    request: AuthenticatedRequest,
    endpoint_id: int,
    act: Callable[[WebhookEndpoint], object],
    done: str,
) -> HttpResponse:
    """One of the endpoint page's buttons: `act` on the endpoint through its service, then
    back to the page with `done` or the service's refusal."""
    endpoint = _endpoint_for_button(request, endpoint_id)
    try:
        act(endpoint)
    except WebhookError as exc:
        flash_refusal(request, exc)
    else:
        messages.success(request, done)
    return redirect("webhooks:detail", endpoint_id=endpoint.pk)


@login_required
@require_POST
def endpoint_disable(request: AuthenticatedRequest, endpoint_id: int) -> HttpResponse:
    return _endpoint_button(
        request,
        endpoint_id,
        lambda endpoint: services.webhook_endpoint_disable(actor=request.user, endpoint=endpoint),
        _("The endpoint is switched off: nothing is sent to it."),
    )


@login_required
@require_POST
def endpoint_enable(request: AuthenticatedRequest, endpoint_id: int) -> HttpResponse:
    return _endpoint_button(
        request,
        endpoint_id,
        lambda endpoint: services.webhook_endpoint_enable(actor=request.user, endpoint=endpoint),
        _("The endpoint is switched on."),
    )


@login_required
@require_POST
def endpoint_test(request: AuthenticatedRequest, endpoint_id: int) -> HttpResponse:
    return _endpoint_button(
        request,
        endpoint_id,
        lambda endpoint: services.webhook_endpoint_send_test(actor=request.user, endpoint=endpoint),
        _("A test event is on its way: its delivery shows in the log below."),
    )


@login_required
@require_POST
def endpoint_delete(request: AuthenticatedRequest, endpoint_id: int) -> HttpResponse:
    endpoint = _endpoint_for_button(request, endpoint_id)
    try:
        services.webhook_endpoint_delete(actor=request.user, endpoint=endpoint)
    except WebhookError as exc:
        flash_refusal(request, exc)
        return redirect("webhooks:detail", endpoint_id=endpoint.pk)
    messages.success(request, _("The endpoint and its delivery log are deleted."))
    return redirect("webhooks:list")


@login_required
@require_POST
def delivery_redeliver(
    request: AuthenticatedRequest, endpoint_id: int, delivery_id: int
) -> HttpResponse:
    delivery = selectors.access_webhook_delivery(
        user=request.user, endpoint_id=endpoint_id, delivery_id=delivery_id
    )
    try:
        services.webhook_delivery_redeliver(actor=request.user, delivery=delivery)
    except WebhookError as exc:
        flash_refusal(request, exc)
    else:
        messages.success(request, _("The event is sent again, with the same event id."))
    return redirect("webhooks:detail", endpoint_id=delivery.endpoint_id)
