"""Errors raised by the trade-alert services and access helpers (a `core.errors` family)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from tradepost.core.errors import DomainError, ErrorCode, ErrorKind, NotFound


class AlertErrorCode(ErrorCode):
    INVALID = "invalid", ErrorKind.INVALID
    ALERT_NOT_FOUND = "alert-not-found", ErrorKind.NOT_FOUND
    NO_COMPANY = "no-company", ErrorKind.FORBIDDEN, gettext_lazy("You do not act for a company")
    LIMIT_REACHED = (
        "alert-limit-reached",
        ErrorKind.CONFLICT,
        gettext_lazy("Your plan's alerts are all in use"),
    )


class AlertError(DomainError):
    """A refused write on a trade alert."""

    code: AlertErrorCode


class AlertNotFound(AlertError, NotFound):
    """No such alert, or another company's: both look the same."""

    not_found_code = AlertErrorCode.ALERT_NOT_FOUND
