"""Errors raised by the companies services and selectors (a `core.errors` family)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from tradepost.core.errors import DomainError, ErrorCode, ErrorKind, NotFound


class CompanyErrorCode(ErrorCode):
    """Why a request on a company was refused, and how a client treats it."""

    INVALID = "invalid", ErrorKind.INVALID
    NOT_FOUND = "company-not-found", ErrorKind.NOT_FOUND
    PERMISSION_DENIED = "company-permission-denied", ErrorKind.FORBIDDEN
    # The user acts for no company (`Actor.require_company`): the code and title every app's
    # `no-company` has.
    NO_COMPANY = "no-company", ErrorKind.FORBIDDEN, gettext_lazy("You do not act for a company")
    ALREADY_IN_COMPANY = "already-in-company", ErrorKind.CONFLICT
    INVITATION_INVALID = "invitation-invalid", ErrorKind.NOT_FOUND
    INVITATION_EXPIRED = "invitation-expired", ErrorKind.CONFLICT
    INVITATION_USED = "invitation-used", ErrorKind.CONFLICT
    INVITATION_WRONG_USER = "invitation-wrong-user", ErrorKind.FORBIDDEN
    INVITATION_LIMIT = "invitation-limit", ErrorKind.CONFLICT
    ALREADY_MEMBER = "already-member", ErrorKind.CONFLICT
    MEMBER_NOT_FOUND = "member-not-found", ErrorKind.NOT_FOUND
    CANNOT_CHANGE_OWNER = "cannot-change-owner", ErrorKind.CONFLICT
    INVALID_ROLE = "invalid-role", ErrorKind.INVALID
    LOGO_REJECTED = "logo-rejected", ErrorKind.INVALID


class CompanyError(DomainError):
    """A request the companies services refuse."""

    code: CompanyErrorCode


class CompanyNotFound(CompanyError, NotFound):
    """No such company, or not one the user may act on: the two look the same (404)."""

    not_found_code = CompanyErrorCode.NOT_FOUND


class CompanyPermissionDenied(CompanyError):
    """The user belongs to the company but their role does not allow this action."""
