"""Errors raised by the catalogue's services and access helpers."""

from __future__ import annotations

from enum import StrEnum

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.http import Http404


class ProductErrorCode(StrEnum):
    """Why a write on a product was refused; the API uses these as problem types."""

    INVALID = "invalid"
    NOT_ALLOWED = "not-allowed"
    NO_COMPANY = "no-company"
    EMAIL_NOT_VERIFIED = "email-not-verified"
    HIDDEN_BY_MODERATION = "hidden-by-moderation"
    NOT_PUBLISHABLE = "not-publishable"
    TOO_MANY_IMAGES = "too-many-images"
    IMAGE_REJECTED = "image-rejected"


class ProductError(ValidationError):
    """A refused product write, with messages per field (`message_dict`) and one `code`.

    Messages under `NON_FIELD_ERRORS` ("__all__") concern the product as a whole.
    """

    def __init__(
        self,
        errors: dict[str, list[str]] | str,
        code: ProductErrorCode = ProductErrorCode.INVALID,
    ):
        if isinstance(errors, str):
            errors = {NON_FIELD_ERRORS: [errors]}
        super().__init__({field: list(messages) for field, messages in errors.items()})
        self.code = code

    @property
    def summary(self) -> str:
        """All messages in one line, for flash messages and problem details."""
        return " ".join(message for messages in self.message_dict.values() for message in messages)


class ProductNotFound(Http404):
    """No such product, or not one the user may manage: both look the same from outside."""
