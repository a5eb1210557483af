"""A product's title and description in the other interface languages: checked, written,
removed."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from tradepost.accounts.models import User
from tradepost.catalog.errors import ProductError, ProductErrorCode
from tradepost.catalog.models import Product, ProductTranslation
from tradepost.catalog.services._common import (
    _changed,
    _full_clean,
    _hold_if_terms_added,
    _locked_to_manage,
    _screened_if_public,
)
from tradepost.catalog.services.fields import _DESCRIPTION, _TITLE
from tradepost.core.cleaning import FieldErrors, clean_rich_text, clean_text, text_or_none
from tradepost.core.languages import UI_LANGUAGES


def _translation_language(product: Product, language: Any, errors: FieldErrors) -> str:
    code = (text_or_none(language) or "").lower()
    if code not in UI_LANGUAGES:
        errors.add(
            "language",
            _("Translations are written in English, Simplified Chinese or Traditional Chinese."),
        )
    elif code == product.original_language:
        errors.add("language", _("The product is written in this language already."))
    return code


def product_translation_check(
    *, product: Product, language: Any, title: Any, description: Any = ""
) -> tuple[str, str, str]:
    """The language code, title and description `product_translation_set` would store for
    `product`, checked as it checks them (`ProductError`); nothing is written (the catalogue
    import's preview checks a new product's translations with it, before the product is)."""
    errors = FieldErrors()
    code = _translation_language(product, language, errors)
    clean_title = errors.clean("title", clean_text, title, **_TITLE)
    clean_description = errors.clean("description", clean_rich_text, description, **_DESCRIPTION)
    errors.raise_if_any(ProductError, ProductErrorCode.INVALID)
    assert clean_title is not None and clean_description is not None  # else refused above
    return code, clean_title, clean_description


@transaction.atomic
def product_translation_set(
    *, actor: User, product: Product, language: str, title: str, description: str = ""
) -> ProductTranslation:
    """Write the product's title and description in another interface language."""
    locked = _locked_to_manage(actor, product)
    code, clean_title, clean_description = product_translation_check(
        product=locked, language=language, title=title, description=description
    )
    screened_before = _screened_if_public(locked)
    translation = ProductTranslation.objects.filter(product=locked, language=code).first()
    if translation is None:
        translation = ProductTranslation(product=locked, language=code)
    translation.title = clean_title
    translation.description = clean_description
    _full_clean(translation)
    translation.save()
    locked.save(update_fields=["updated_at"])
    _changed(locked)
    _hold_if_terms_added(actor, locked, screened_before)
    return translation


@transaction.atomic
def product_translation_remove(*, actor: User, product: Product, language: str) -> bool:
    """Remove the product's translation into `language`; False when there was none."""
    locked = _locked_to_manage(actor, product)
    deleted, _rows = ProductTranslation.objects.filter(product=locked, language=language).delete()
    if deleted:
        locked.save(update_fields=["updated_at"])
        _changed(locked)
    return bool(deleted)
