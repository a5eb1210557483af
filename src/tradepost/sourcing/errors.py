"""Errors raised by the sourcing services and access helpers (a `core.errors` family)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from tradepost.core.errors import DomainError, ErrorCode, ErrorKind, NotFound


class SourcingErrorCode(ErrorCode):
    """Why a write on a request or quotation was refused, and how a client treats it."""

    INVALID = "invalid", ErrorKind.INVALID
    # "Not yours" looks like "not there" (a 404), as the access helpers answer.
    NOT_ALLOWED = "not-allowed", ErrorKind.NOT_FOUND
    REQUEST_NOT_FOUND = "request-not-found", ErrorKind.NOT_FOUND
    QUOTATION_NOT_FOUND = "quotation-not-found", ErrorKind.NOT_FOUND
    ATTACHMENT_NOT_FOUND = "attachment-not-found", ErrorKind.NOT_FOUND
    NO_COMPANY = "no-company", ErrorKind.FORBIDDEN, gettext_lazy("You do not act for a company")
    EMAIL_NOT_VERIFIED = (
        "email-not-verified",
        ErrorKind.FORBIDDEN,
        gettext_lazy("Email address not confirmed"),
    )
    COMPANY_SUSPENDED = (
        "company-suspended",
        ErrorKind.FORBIDDEN,
        gettext_lazy("The company is suspended"),
    )
    OWN_REQUEST = "own-request", ErrorKind.FORBIDDEN, gettext_lazy("Your own request")
    REQUEST_NOT_OPEN = "request-not-open", ErrorKind.CONFLICT
    REQUEST_FULL = "request-full", ErrorKind.CONFLICT, gettext_lazy("The request is full")
    QUOTA_EXCEEDED = "quota-exceeded", ErrorKind.CONFLICT, gettext_lazy("Monthly quota used up")
    # Fields that may no longer change once quotations arrived, each named.
    LOCKED_AFTER_QUOTES = (
        "locked-after-quotes",
        ErrorKind.CONFLICT,
        gettext_lazy("The request has invalid fields"),
    )
    WRONG_STATE = "wrong-state", ErrorKind.CONFLICT


class SourcingError(DomainError):
    """A refused write on a buying request, a quotation or a file."""

    code: SourcingErrorCode


class RequestNotFound(SourcingError, NotFound):
    """No such buying request, or not one the user may see: both look the same."""

    not_found_code = SourcingErrorCode.REQUEST_NOT_FOUND


class QuotationNotFound(SourcingError, NotFound):
    """No such quotation, or not one the user may see: both look the same."""

    not_found_code = SourcingErrorCode.QUOTATION_NOT_FOUND


class AttachmentNotFound(SourcingError, NotFound):
    """No such attachment, or not one the user may see: both look the same."""

    not_found_code = SourcingErrorCode.ATTACHMENT_NOT_FOUND
