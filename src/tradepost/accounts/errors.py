"""Errors raised by the accounts services (a `core.errors` family)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from tradepost.core.errors import DomainError, ErrorCode, ErrorKind


class AccountErrorCode(ErrorCode):
    """Why a request on an account was refused, and how a client treats it."""

    INVALID = "invalid", ErrorKind.INVALID
    EMAIL_TAKEN = "email-taken", ErrorKind.INVALID
    EMAIL_UNCHANGED = "email-unchanged", ErrorKind.INVALID
    LINK_INVALID = "link-invalid", ErrorKind.INVALID
    LINK_EXPIRED = "link-expired", ErrorKind.INVALID
    ALREADY_VERIFIED = "already-verified", ErrorKind.CONFLICT
    WRONG_PASSWORD = "wrong-password", ErrorKind.INVALID
    TOKEN_NAME_INVALID = "token-name-invalid", ErrorKind.INVALID
    TOKEN_LIMIT = "token-limit", ErrorKind.CONFLICT
    TOKEN_NOT_FOUND = "token-not-found", ErrorKind.NOT_FOUND
    TOO_MANY_SIGNUPS = "too-many-signups", ErrorKind.RATE_LIMITED
    NOT_ALLOWED = "not-allowed", ErrorKind.FORBIDDEN
    PASSWORD_REQUIRED = "password-required", ErrorKind.INVALID
    OPERATORS_ONLY = "operators-only", ErrorKind.FORBIDDEN, gettext_lazy("Operators only")


class AccountError(DomainError):
    """A request the accounts services refuse."""

    code: AccountErrorCode
