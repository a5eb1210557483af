"""Error codes of the companies app and the exceptions its services and selectors raise."""

from __future__ import annotations

from enum import StrEnum

from django.http import Http404


class CompanyErrorCode(StrEnum):
    NOT_FOUND = "company-not-found"
    PERMISSION_DENIED = "company-permission-denied"
    ALREADY_IN_COMPANY = "already-in-company"
    INVITATION_INVALID = "invitation-invalid"
    INVITATION_EXPIRED = "invitation-expired"
    INVITATION_USED = "invitation-used"
    INVITATION_WRONG_USER = "invitation-wrong-user"
    INVITATION_LIMIT = "invitation-limit"
    ALREADY_MEMBER = "already-member"
    MEMBER_NOT_FOUND = "member-not-found"
    CANNOT_CHANGE_OWNER = "cannot-change-owner"
    INVALID_ROLE = "invalid-role"
    LOGO_REJECTED = "logo-rejected"


class CompanyError(Exception):
    """A request the companies services refuse; `message` is translated for the user."""

    def __init__(self, code: CompanyErrorCode, message: str, *, field: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field


class CompanyNotFound(CompanyError, Http404):
    """No such company, or not one the user may act on: the two look the same (404)."""


class CompanyPermissionDenied(CompanyError):
    """The user belongs to the company but their role does not allow this action."""
