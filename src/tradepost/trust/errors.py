"""Errors raised by the trust services and access helpers (a `core.errors` family):
verification, and reports and moderation."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from tradepost.core.errors import DomainError, ErrorCode, ErrorKind, NotFound


class TrustErrorCode(ErrorCode):
    """Why a verification request or decision, a report or a moderation action was refused,
    and how a client treats it."""

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

    REPORT_NOT_FOUND = "report-not-found", ErrorKind.NOT_FOUND
    # What a report names does not exist, or is not something the reporter can see.
    TARGET_NOT_FOUND = "report-target-not-found", ErrorKind.NOT_FOUND
    REPORT_OWN_COMPANY = (
        "report-own-company",
        ErrorKind.FORBIDDEN,
        gettext_lazy("Your own company's"),
    )
    REPORT_DUPLICATE = "report-duplicate", ErrorKind.CONFLICT, gettext_lazy("Already reported")
    REPORT_RATE_LIMIT = "report-rate-limit", ErrorKind.RATE_LIMITED
    REPORT_DECIDED = (
        "report-decided",
        ErrorKind.CONFLICT,
        gettext_lazy("The report was already decided"),
    )
    # The target's state forbids the action (a request no longer open cannot be hidden).
    MODERATION_REFUSED = "moderation-refused", ErrorKind.CONFLICT


class TrustError(DomainError):
    """A request the trust services refuse."""

    code: TrustErrorCode


class VerificationNotFound(TrustError, NotFound):
    """No such verification request or document, or not one the user may see: both look the
    same (404)."""

    not_found_code = TrustErrorCode.NOT_FOUND


class ReportNotFound(TrustError, NotFound):
    """No such report (or not one the user may read), or a report's target the reporter
    cannot see: all look the same (404)."""

    not_found_code = TrustErrorCode.REPORT_NOT_FOUND
