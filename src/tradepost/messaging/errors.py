"""Errors raised by the messaging services and selectors (a `core.errors` family)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from tradepost.core.errors import DomainError, ErrorCode, ErrorKind, NotFound


class MessagingErrorCode(ErrorCode):
    """Why an inquiry or a message was refused, and how a client treats it."""

    NOT_FOUND = "conversation-not-found", ErrorKind.NOT_FOUND
    NO_COMPANY = "no-company", ErrorKind.FORBIDDEN, gettext_lazy("You do not act for a company")
    COMPANY_SUSPENDED = (
        "company-suspended",
        ErrorKind.FORBIDDEN,
        gettext_lazy("The company is suspended"),
    )
    OWN_COMPANY = "own-company", ErrorKind.FORBIDDEN
    NOT_PARTICIPANT = "not-participant", ErrorKind.FORBIDDEN
    EMPTY_BODY = "empty-body", ErrorKind.INVALID
    BODY_TOO_LONG = "body-too-long", ErrorKind.INVALID
    INVALID_QUANTITY = "invalid-quantity", ErrorKind.INVALID
    INVALID_UNIT = "invalid-unit", ErrorKind.INVALID
    INQUIRY_RATE_LIMIT = "inquiry-rate-limit", ErrorKind.RATE_LIMITED
    MESSAGE_RATE_LIMIT = "message-rate-limit", ErrorKind.RATE_LIMITED
    TARGET_NOT_FOUND = "inquiry-target-not-found", ErrorKind.NOT_FOUND
    ATTACHMENT_REJECTED = "attachment-rejected", ErrorKind.INVALID


class MessagingError(DomainError):
    """A request the messaging services refuse."""

    code: MessagingErrorCode


class ConversationNotFound(MessagingError, NotFound):
    """No such conversation, or one the user may not see: the two look the same (404)."""

    not_found_code = MessagingErrorCode.NOT_FOUND


class RateLimited(MessagingError):
    """Too many inquiries or messages from one person within the last hour."""
