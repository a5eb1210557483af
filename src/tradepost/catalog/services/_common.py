"""What the catalogue's write services share: the model's validation with the input's field
names, the product row locked for an actor who may manage it, the search index and webhooks
told of a change, a listing made public, and a listing held for review when banned terms come
into it (ADR 0023)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from tradepost.accounts.models import User
from tradepost.audit.services import audit_record
from tradepost.catalog.duplicate_listings import fingerprint_sync
from tradepost.catalog.errors import ProductError, ProductErrorCode, ProductNotFound
from tradepost.catalog.listing_screening import screen_listing
from tradepost.catalog.models import Product, ProductStatus
from tradepost.catalog.tasks import translate_products
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company
from tradepost.core.events import EventType, emit
from tradepost.core.queueing import enqueue_on_commit
from tradepost.screening.selectors import Verdict
from tradepost.screening.services import tell_listing_review
from tradepost.search.outbox import OutboxKind, record_change

_MODEL_TO_INPUT = {"category": "category_id"}


def _full_clean(obj: Any, **options: Any) -> None:
    ProductError.clean_model(obj, code=ProductErrorCode.INVALID, rename=_MODEL_TO_INPUT, **options)


def _ensure_can_manage(actor: User, company: Company) -> None:
    if not actor_for(actor).works_for(company):
        raise ProductError(
            ProductErrorCode.NOT_ALLOWED, _("You may not manage this company's products.")
        )


def _locked(product: Product) -> Product:
    """A fresh copy of the product, row-locked for this transaction; deleted ones are gone."""
    locked = (
        Product.objects.select_for_update()
        .select_related("company", "category")
        .filter(pk=product.pk)
        .exclude(status=ProductStatus.DELETED)
        .first()
    )
    if locked is None:
        raise ProductNotFound()
    return locked


def _locked_to_manage(actor: User, product: Product) -> Product:
    """The product row-locked (`_locked`), once the actor may manage its company's products."""
    locked = _locked(product)
    _ensure_can_manage(actor, locked.company)
    return locked


def _emit_published(product: Product) -> None:
    """Tell the company's webhooks that a listing went public (docs/webhooks.md), in the
    transaction that publishes it."""
    emit(
        EventType.PRODUCT_PUBLISHED,
        company_id=product.company_id,
        payload={
            "product": {
                "id": product.pk,
                "sku": product.sku,
                "title": product.title,
                "published_at": product.published_at,
            }
        },
    )


def _changed(product: Product) -> None:
    """Tell the search index, in this transaction, that the product changed (and keep its
    duplicate-detection fingerprint in step: only published products have one); a published
    one gets the machine translations of its new texts once this commits."""
    record_change(kind=OutboxKind.PRODUCT, object_id=product.pk)
    fingerprint_sync(product)
    if product.status == ProductStatus.PUBLISHED:
        enqueue_on_commit(translate_products, [product.pk])


def _publish_now(locked: Product) -> None:
    """Make the locked product public: published (first publication date kept), saved,
    re-indexed and announced to webhooks. Callers write their own audit entry and notice."""
    locked.status = ProductStatus.PUBLISHED
    if locked.published_at is None:
        locked.published_at = timezone.now()
    _full_clean(locked)
    locked.save(update_fields=["status", "published_at", "updated_at"])
    _changed(locked)
    _emit_published(locked)


def _hold_for_review(actor: User, locked: Product, verdict: Verdict) -> Product:
    """Hold a listing that is being published, and whose texts hold banned terms, for an
    operator's review: not public, not in search. The company is told (not which term);
    the audit log records the terms. A listing already held stays so, unannounced."""
    if locked.status == ProductStatus.HELD:
        return locked
    terms = [term.term for term in verdict.terms]
    changes: dict[str, list[Any]] = {
        "status": [locked.status, ProductStatus.HELD],
        "banned_terms": [None, terms],
    }
    audit_record(actor=actor, action="product.hold", target=locked, changes=changes)
    locked.status = ProductStatus.HELD
    _full_clean(locked)
    locked.save(update_fields=["status", "updated_at"])
    _changed(locked)
    tell_listing_review(
        company=locked.company,
        listing_title=locked.title,
        product_id=locked.pk,
        outcome="held",
        publisher=actor,
    )
    return locked


def _screened_if_public(product: Product) -> Verdict | None:
    """What screening finds in a published listing before an edit (None for the others)."""
    return screen_listing(product) if product.status == ProductStatus.PUBLISHED else None


def _hold_if_terms_added(actor: User, locked: Product, before: Verdict | None) -> Product:
    """Hold a published listing for review when an edit brought a banned term into it that
    was not there before (those it had were published, or approved, with it)."""
    if before is None:
        return locked
    after = screen_listing(locked)
    known = {term.pk for term in before.terms}
    if any(term.pk not in known for term in after.terms):
        return _hold_for_review(actor, locked, after)
    return locked
