"""Errors raised by the webhooks services and access helpers (a `core.errors` family)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from tradepost.core.errors import DomainError, ErrorCode, ErrorKind, NotFound


class WebhookErrorCode(ErrorCode):
    """Why a webhook endpoint or delivery action was refused, and how a client treats it."""

    INVALID = "webhook-invalid", ErrorKind.INVALID
    NOT_FOUND = "webhook-not-found", ErrorKind.NOT_FOUND
    # A plain member (not the owner or an admin), or somebody acting for no company.
    PERMISSION_DENIED = "webhook-permission-denied", ErrorKind.FORBIDDEN
    TOO_MANY_ENDPOINTS = (
        "webhook-too-many-endpoints",
        ErrorKind.CONFLICT,
        gettext_lazy("Too many webhook endpoints"),
    )
    # Sending to an endpoint that is switched off (a test event, a redelivery).
    ENDPOINT_DISABLED = (
        "webhook-endpoint-disabled",
        ErrorKind.CONFLICT,
        gettext_lazy("The endpoint is switched off"),
    )
    COMPANY_SUSPENDED = "webhook-company-suspended", ErrorKind.FORBIDDEN


class WebhookError(DomainError):
    """A request the webhooks services refuse."""

    code: WebhookErrorCode


class WebhookNotFound(WebhookError, NotFound):
    """No such endpoint or delivery, or another company's: both look the same (404)."""

    not_found_code = WebhookErrorCode.NOT_FOUND
    default_message = gettext_lazy("No such webhook endpoint.")
