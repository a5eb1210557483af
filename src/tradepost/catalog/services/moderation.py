"""Operators' decisions on listings: hide and restore (moderation, ADR 0022), approve or reject
a listing held for review (banned terms, ADR 0023); each audited."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from tradepost.accounts.models import User
from tradepost.accounts.selectors import require_operator
from tradepost.audit.services import audit_record
from tradepost.catalog.errors import ProductError, ProductErrorCode
from tradepost.catalog.listing_screening import screen_listing
from tradepost.catalog.models import Product, ProductStatus
from tradepost.catalog.services._common import _changed, _locked, _publish_now
from tradepost.companies.selectors import standing_refusal
from tradepost.core.cleaning import FieldErrors, clean_text
from tradepost.screening.services import tell_listing_review

#: The longest reason a held listing is rejected with (told to its company).
REVIEW_REASON_MAX_LENGTH = 1000


def _moderate(
    actor: User, product: Product, *, status: str, action: str, only_from: str | None = None
) -> Product:
    """The product locked and given `status` by an operator, with its audit entry
    (`product.<action>`); nothing is written when it has that status already, or (with
    `only_from`) when it is in another status than that one."""
    locked = _locked(product)
    if locked.status == status or (only_from is not None and locked.status != only_from):
        return locked
    changes = {"status": [locked.status, status]}
    audit_record(actor=actor, action=f"product.{action}", target=locked, changes=changes)
    locked.status = status
    locked.save(update_fields=["status", "updated_at"])
    _changed(locked)
    return locked


@transaction.atomic
def product_hide(*, actor: User, product: Product) -> Product:
    """Hide a listing from the catalogue by moderation; the supplier cannot publish it again."""
    require_operator(actor)
    return _moderate(actor, product, status=ProductStatus.HIDDEN, action="hide")


@transaction.atomic
def product_restore(*, actor: User, product: Product) -> Product:
    """Lift a moderation hide: the listing goes back to draft for the supplier to publish."""
    require_operator(actor)
    return _moderate(
        actor,
        product,
        status=ProductStatus.DRAFT,
        action="restore",
        only_from=ProductStatus.HIDDEN,
    )


def _locked_held(product: Product) -> Product:
    locked = _locked(product)
    if locked.status != ProductStatus.HELD:
        raise ProductError(
            ProductErrorCode.NOT_HELD,
            _("This listing is no longer held for review: it is “%(status)s”.")
            % {"status": locked.get_status_display()},
        )
    return locked


@transaction.atomic
def product_review_approve(*, actor: User, product: Product) -> Product:
    """Publish a listing held for review (operators): what screening found is accepted for
    it. The company is told in its language; audited with the terms found."""
    require_operator(actor)
    locked = _locked_held(product)
    suspended = standing_refusal(locked.company)
    if suspended:
        raise ProductError(ProductErrorCode.COMPANY_SUSPENDED, suspended)
    terms = [term.term for term in screen_listing(locked).terms]
    changes: dict[str, list[Any]] = {
        "status": [locked.status, ProductStatus.PUBLISHED],
        "banned_terms": [None, terms],
    }
    audit_record(actor=actor, action="product.review_approve", target=locked, changes=changes)
    _publish_now(locked)
    tell_listing_review(
        company=locked.company, listing_title=locked.title, product_id=locked.pk, outcome="approved"
    )
    return locked


@transaction.atomic
def product_review_reject(*, actor: User, product: Product, reason: Any) -> Product:
    """Refuse to publish a listing held for review (operators): it goes back to the
    company's drafts, to be corrected and published again (screened again then). `reason`
    (at most 1,000 characters, in the company's language) is told to the company; audited."""
    require_operator(actor)
    errors = FieldErrors()
    why = errors.clean(
        "reason",
        clean_text,
        reason,
        max_length=REVIEW_REASON_MAX_LENGTH,
        required=True,
        single_line=False,
    )
    errors.raise_if_any(ProductError, ProductErrorCode.INVALID)
    locked = _locked_held(product)
    terms = [term.term for term in screen_listing(locked).terms]
    changes: dict[str, list[Any]] = {
        "status": [locked.status, ProductStatus.DRAFT],
        "reason": [None, why],
        "banned_terms": [None, terms],
    }
    audit_record(actor=actor, action="product.review_reject", target=locked, changes=changes)
    locked.status = ProductStatus.DRAFT
    locked.save(update_fields=["status", "updated_at"])
    _changed(locked)
    tell_listing_review(
        company=locked.company,
        listing_title=locked.title,
        product_id=locked.pk,
        outcome="rejected",
        reason=why or "",
    )
    return locked
