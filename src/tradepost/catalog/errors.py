"""Errors raised by the catalogue's services and access helpers (a `core.errors` family)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from tradepost.core.errors import DomainError, ErrorCode, ErrorKind, NotFound


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
    # Publishing a listing much like one the company has published (search.fingerprints):
    LIKELY_DUPLICATE = (
        "likely-duplicate",
        ErrorKind.CONFLICT,
        gettext_lazy("Looks like a listing you already published"),
    )
    # The review of listings held for banned terms (catalog.listing_screening, ADR 0023):
    NOT_HELD = "not-held", ErrorKind.CONFLICT, gettext_lazy("Not held for review")
    # The paid showcase (catalog.showcase_services):
    SHOWCASE_MANAGERS_ONLY = (
        "showcase-managers-only",
        ErrorKind.FORBIDDEN,
        gettext_lazy("Only the company's owner and admins choose its showcase"),
    )
    SHOWCASE_NO_SLOTS = (
        "showcase-no-slots",
        ErrorKind.FORBIDDEN,
        gettext_lazy("The company's plan has no showcase slots"),
    )
    SHOWCASE_FULL = (
        "showcase-full",
        ErrorKind.CONFLICT,
        gettext_lazy("Every showcase slot is in use"),
    )
    SHOWCASE_NOT_PUBLISHED = (
        "showcase-not-published",
        ErrorKind.CONFLICT,
        gettext_lazy("Only published products can be showcased"),
    )


class ProductError(DomainError):
    """A refused product write; messages under `NON_FIELD` concern the product as a whole."""

    code: ProductErrorCode


class ProductNotFound(ProductError, NotFound):
    """No such product, or not one the user may manage: both look the same from outside."""

    not_found_code = ProductErrorCode.NOT_FOUND
