"""Errors raised by the trust services and access helpers (a `core.errors` family)."""

from __future__ import annotations

from django.http import Http404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tradepost.core.errors import DomainError, ErrorCode, ErrorKind


class TrustErrorCode(ErrorCode):
    """Why a verification request or decision was refused, and how a client treats it."""

    INVALID = "invalid", ErrorKind.INVALID
    DOCUMENT_REJECTED = "document-rejected", ErrorKind.INVALID
    NOT_FOUND = "verification-not-found", ErrorKind.NOT_FOUND
    PERMISSION_DENIED = "verification-permission-denied", ErrorKind.FORBIDDEN
    ALREADY_PENDING = (
        "verification-pending",
        ErrorKind.CONFLICT,
        gettext_lazy("A verification request is already waiting"),
    )
    NOTHING_PENDING = "verification-nothing-pending", ErrorKind.CONFLICT
    ALREADY_DECIDED = (
        "verification-decided",
        ErrorKind.CONFLICT,
        gettext_lazy("The request was already decided"),
    )


class TrustError(DomainError):
    """A request the trust services refuse."""

    code: TrustErrorCode


class VerificationNotFound(TrustError, Http404):
    """No such verification request or document, or not one the user may see: both look the
    same (404)."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(TrustErrorCode.NOT_FOUND, message or _("No such object."))
