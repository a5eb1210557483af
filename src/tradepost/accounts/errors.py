"""Error codes of the accounts app and the exception its services raise."""

from __future__ import annotations

from enum import StrEnum


class AccountErrorCode(StrEnum):
    EMAIL_TAKEN = "email-taken"
    EMAIL_UNCHANGED = "email-unchanged"
    LINK_INVALID = "link-invalid"
    LINK_EXPIRED = "link-expired"
    ALREADY_VERIFIED = "already-verified"
    WRONG_PASSWORD = "wrong-password"
    TOKEN_NAME_INVALID = "token-name-invalid"
    TOKEN_LIMIT = "token-limit"
    TOKEN_NOT_FOUND = "token-not-found"
    TOO_MANY_SIGNUPS = "too-many-signups"
    NOT_ALLOWED = "not-allowed"
    PASSWORD_REQUIRED = "password-required"


class AccountError(Exception):
    """A request the accounts services refuse; `message` is translated for the user."""

    def __init__(self, code: AccountErrorCode, message: str, *, field: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
