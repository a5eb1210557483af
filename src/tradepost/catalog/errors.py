"""Errors raised by the catalogue's services and access helpers (a `core.errors` family)."""

from __future__ import annotations

from django.http import Http404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tradepost.core.errors import DomainError, ErrorCode, ErrorKind


class ProductErrorCode(ErrorCode):
    """Why a write on a product was refused, and how a client treats it."""

    INVALID = "invalid", ErrorKind.INVALID
    # "Not yours" looks like "not there" (a 404), as the access helpers answer.
    NOT_ALLOWED = "not-allowed", ErrorKind.NOT_FOUND
    NOT_FOUND = "product-not-found", ErrorKind.NOT_FOUND
    NO_COMPANY = "no-company", ErrorKind.FORBIDDEN, gettext_lazy("You do not act for a company")
    EMAIL_NOT_VERIFIED = (
        "email-not-verified",
        ErrorKind.FORBIDDEN,
        gettext_lazy("Email address not confirmed"),
    )
    HIDDEN_BY_MODERATION = (
        "hidden-by-moderation",
        ErrorKind.CONFLICT,
        gettext_lazy("Hidden by moderation"),
    )
    COMPANY_SUSPENDED = (
        "company-suspended",
        ErrorKind.FORBIDDEN,
        gettext_lazy("The company is suspended"),
    )
    NOT_PUBLISHABLE = (
        "not-publishable",
        ErrorKind.CONFLICT,
        gettext_lazy("The product cannot be published yet"),
    )
    TOO_MANY_IMAGES = "too-many-images", ErrorKind.INVALID
    IMAGE_REJECTED = "image-rejected", ErrorKind.INVALID


class ProductError(DomainError):
    """A refused product write; messages under `NON_FIELD` concern the product as a whole."""

    code: ProductErrorCode


class ProductNotFound(ProductError, Http404):
    """No such product, or not one the user may manage: both look the same from outside."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(ProductErrorCode.NOT_FOUND, message or _("No such object."))
