"""A product shown in the public catalogue and taken back: publishing refuses near-duplicates
(ADR 0024) and holds a listing whose texts hold banned terms for review (ADR 0023)."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from tradepost.accounts.models import User
from tradepost.accounts.selectors import is_operator, user_can_publish
from tradepost.catalog.duplicate_listings import refuse_likely_duplicates
from tradepost.catalog.errors import ProductError, ProductErrorCode
from tradepost.catalog.listing_screening import screen_listing
from tradepost.catalog.models import Product, ProductStatus
from tradepost.catalog.services._common import (
    _changed,
    _hold_for_review,
    _locked_to_manage,
    _publish_now,
)
from tradepost.companies.selectors import standing_refusal
from tradepost.core.cleaning import FieldErrors


@transaction.atomic
def product_publish(*, actor: User, product: Product, allow_duplicate: bool = False) -> Product:
    """Show a product in the public catalogue. Refused (`LIKELY_DUPLICATE`, naming them)
    while the company has published listings much like it, unless `allow_duplicate`."""
    locked = _locked_to_manage(actor, product)
    if locked.status == ProductStatus.HIDDEN and not is_operator(actor):
        raise ProductError(
            ProductErrorCode.HIDDEN_BY_MODERATION,
            _("This product was hidden by moderation and cannot be published."),
        )
    suspended = standing_refusal(locked.company)
    if suspended:
        raise ProductError(ProductErrorCode.COMPANY_SUSPENDED, suspended)
    if not user_can_publish(actor):
        raise ProductError(
            ProductErrorCode.EMAIL_NOT_VERIFIED,
            _("Confirm your email address before publishing products."),
        )
    errors = FieldErrors()
    if not locked.title.strip():
        errors.add("title", _("Give the product a title before publishing it."))
    if not locked.category.is_leaf:
        errors.add(
            "category_id",
            _("Choose the most specific category, one without sub-categories."),
        )
    if locked.moq is None or locked.moq <= 0:
        errors.add("moq", _("Enter a minimum order quantity greater than zero."))
    errors.raise_if_any(ProductError, ProductErrorCode.NOT_PUBLISHABLE)
    if locked.status == ProductStatus.PUBLISHED:
        return locked
    if allow_duplicate is not True:
        refuse_likely_duplicates(locked)  # near-duplicates within the company (ADR 0024)
    screening_verdict = screen_listing(locked)  # banned terms hold it for review (ADR 0023)
    if screening_verdict.held:
        return _hold_for_review(actor, locked, screening_verdict)
    _publish_now(locked)
    return locked


@transaction.atomic
def product_unpublish(*, actor: User, product: Product) -> Product:
    """Take a published product back to draft (or one held for review: withdrawn)."""
    locked = _locked_to_manage(actor, product)
    if locked.status == ProductStatus.HIDDEN:
        raise ProductError(
            ProductErrorCode.HIDDEN_BY_MODERATION, _("This product was hidden by moderation.")
        )
    if locked.status in (ProductStatus.PUBLISHED, ProductStatus.HELD):
        locked.status = ProductStatus.DRAFT
        locked.save(update_fields=["status", "updated_at"])
        _changed(locked)
    return locked
