"""Errors raised by the reviews services and access helpers (a `core.errors` family)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from tradepost.core.errors import DomainError, ErrorCode, ErrorKind, NotFound


class ReviewErrorCode(ErrorCode):
    """Why a review, a reply or a moderation of a review was refused, and how a client treats
    it."""

    INVALID = "invalid", ErrorKind.INVALID
    # A missing review and one the user may not see (or reply to) look the same.
    NOT_FOUND = "review-not-found", ErrorKind.NOT_FOUND
    # The quotation is not one of the user's company's requests (nor its own).
    NOT_ALLOWED = "not-allowed", ErrorKind.NOT_FOUND
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
    OWN_COMPANY = (
        "review-own-company",
        ErrorKind.FORBIDDEN,
        gettext_lazy("Your own company"),
    )
    # Replying (and moderating) needs a role the user does not have.
    PERMISSION_DENIED = "review-permission-denied", ErrorKind.FORBIDDEN
    NOT_AWARDED = (
        "review-not-awarded",
        ErrorKind.CONFLICT,
        gettext_lazy("Only an awarded supplier is reviewed"),
    )
    REVIEW_EXISTS = (
        "review-exists",
        ErrorKind.CONFLICT,
        gettext_lazy("Already reviewed"),
    )
    REPLY_LOCKED = (
        "reply-locked",
        ErrorKind.CONFLICT,
        gettext_lazy("The reply can no longer be changed"),
    )


class ReviewError(DomainError):
    """A request the reviews services refuse."""

    code: ReviewErrorCode


class ReviewNotFound(ReviewError, NotFound):
    """No such review, or not one the user may see (or reply to): both look the same (404)."""

    not_found_code = ReviewErrorCode.NOT_FOUND
