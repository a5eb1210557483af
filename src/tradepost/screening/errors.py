"""Errors raised by the banned-term services and access helpers (a `core.errors` family)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from tradepost.core.errors import DomainError, ErrorCode, ErrorKind, NotFound


class ScreeningErrorCode(ErrorCode):
    """Why a change to the banned-term list was refused, and how a client treats it."""

    INVALID = "invalid", ErrorKind.INVALID
    NOT_FOUND = "banned-term-not-found", ErrorKind.NOT_FOUND
    DUPLICATE = (
        "banned-term-duplicate",
        ErrorKind.CONFLICT,
        gettext_lazy("The term is on the list already"),
    )
    LIST_FULL = (
        "banned-terms-full",
        ErrorKind.CONFLICT,
        gettext_lazy("The list of banned terms is full"),
    )


class ScreeningError(DomainError):
    """A refused change to the banned-term list."""

    code: ScreeningErrorCode


class BannedTermNotFound(ScreeningError, NotFound):
    """No such banned term, or a user who may not read the list: both look the same (404)."""

    not_found_code = ScreeningErrorCode.NOT_FOUND
