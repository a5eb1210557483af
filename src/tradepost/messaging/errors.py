"""Error codes of the messaging app and the exceptions its services and selectors raise."""

from __future__ import annotations

from enum import StrEnum

from django.http import Http404


class MessagingErrorCode(StrEnum):
    NOT_FOUND = "conversation-not-found"
    NO_COMPANY = "no-company"
    OWN_COMPANY = "own-company"
    NOT_PARTICIPANT = "not-participant"
    EMPTY_BODY = "empty-body"
    BODY_TOO_LONG = "body-too-long"
    INVALID_QUANTITY = "invalid-quantity"
    INVALID_UNIT = "invalid-unit"
    INQUIRY_RATE_LIMIT = "inquiry-rate-limit"
    MESSAGE_RATE_LIMIT = "message-rate-limit"
    TARGET_NOT_FOUND = "inquiry-target-not-found"
    ATTACHMENT_REJECTED = "attachment-rejected"


class MessagingError(Exception):
    """A request the messaging services refuse; `message` is translated for the user."""

    def __init__(self, code: MessagingErrorCode, message: str, *, field: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field


class ConversationNotFound(MessagingError, Http404):
    """No such conversation, or one the user may not see: the two look the same (404)."""


class RateLimited(MessagingError):
    """Too many inquiries or messages from one person within the last hour."""
