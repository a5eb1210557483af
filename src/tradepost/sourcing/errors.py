"""Errors raised by the sourcing services and access helpers."""

from __future__ import annotations

from enum import StrEnum

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.http import Http404


class SourcingErrorCode(StrEnum):
    """Why a write on a request or quotation was refused; the API uses these as problem types."""

    INVALID = "invalid"
    NOT_ALLOWED = "not-allowed"
    NO_COMPANY = "no-company"
    EMAIL_NOT_VERIFIED = "email-not-verified"
    REQUEST_NOT_OPEN = "request-not-open"
    REQUEST_FULL = "request-full"
    QUOTA_EXCEEDED = "quota-exceeded"
    OWN_REQUEST = "own-request"
    LOCKED_AFTER_QUOTES = "locked-after-quotes"
    WRONG_STATE = "wrong-state"


class SourcingError(ValidationError):
    """A refused write, with messages per field (`message_dict`) and one `code`."""

    def __init__(
        self,
        errors: dict[str, list[str]] | str,
        code: SourcingErrorCode = SourcingErrorCode.INVALID,
    ):
        if isinstance(errors, str):
            errors = {NON_FIELD_ERRORS: [errors]}
        super().__init__({field: list(messages) for field, messages in errors.items()})
        self.code = code

    @property
    def summary(self) -> str:
        return " ".join(message for messages in self.message_dict.values() for message in messages)


class RequestNotFound(Http404):
    """No such buying request, or not one the user may see: both look the same."""


class QuotationNotFound(Http404):
    """No such quotation, or not one the user may see: both look the same."""


class AttachmentNotFound(Http404):
    """No such attachment, or not one the user may see: both look the same."""
