"""Writes of the paid showcase: a company's owner or an admin (or an operator) chooses which
of the company's published products show in the labelled "Sponsored" block of the home page
and of the search and category pages they match (`catalog.showcase_selectors`).

How many may be chosen is the plan's `showcase_slots` (membership reads it; Free has none):
choosing one more than the plan holds is refused. A plan that ends or gives fewer slots
deletes nothing: the oldest choices keep showing, the newer ones wait (the supplier desk
says so) and show again on a plan with more slots. A showcase never changes where a product
ranks (docs/adr/0026-showcase-and-first-look.md).
"""

from __future__ import annotations

from typing import Any, TypedDict, Unpack

from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from tradepost.accounts.selectors import is_operator
from tradepost.audit.services import audit_record
from tradepost.catalog.errors import ProductError, ProductErrorCode, ProductNotFound
from tradepost.catalog.models import Product, ProductStatus, Showcase
from tradepost.catalog.permissions import access_product
from tradepost.catalog.showcase_selectors import forget_showcase_cache, showcase_slots_used
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company
from tradepost.companies.selectors import standing_refusal
from tradepost.membership.selectors import benefit


class ShowcaseFields(TypedDict, total=False):
    """What choosing a showcased product takes: the web form and the API body send it."""

    product_id: Any


SHOWCASE_FIELDS = frozenset(ShowcaseFields.__annotations__)


def _locked_company(actor: Any, product: Product) -> Company:
    """The product's company, locked (one choice of the company's at a time, so two at once
    cannot both take the last slot), once the actor is seen to be one of its managers."""
    company = Company.objects.select_for_update().get(pk=product.company_id)
    if not actor_for(actor).manages(company):
        raise ProductError(
            ProductErrorCode.SHOWCASE_MANAGERS_ONLY,
            _("Only the company's owner and admins can choose what its showcase shows."),
        )
    return company


def _audit(actor: Any, action: str, product: Product) -> None:
    """Operators' choices are written to the audit log (a company's own are its business)."""
    if is_operator(actor):
        audit_record(
            actor=actor,
            action=action,
            target=product,
            label=f"{product.company_id}: {product.title}",
        )


@transaction.atomic
def showcase_add(*, actor: Any, **fields: Unpack[ShowcaseFields]) -> Showcase:
    """Show one of the company's published products in its paid showcase. The product
    comes through `access_product` (another company's id is not found); choosing a product
    already showcased changes nothing and answers its showcase."""
    product = access_product(user=actor, product_id=fields.get("product_id"))
    company = _locked_company(actor, product)
    suspended = standing_refusal(company)
    if suspended:
        raise ProductError(ProductErrorCode.COMPANY_SUSPENDED, suspended)
    existing = Showcase.objects.filter(product_id=product.pk).first()
    if existing is not None:
        return existing
    if product.status != ProductStatus.PUBLISHED:
        raise ProductError(
            ProductErrorCode.SHOWCASE_NOT_PUBLISHED,
            _("Only a published product can be showcased: publish it first."),
            field="product_id",
        )
    slots = int(benefit(company, "showcase_slots") or 0)
    if slots <= 0:
        raise ProductError(
            ProductErrorCode.SHOWCASE_NO_SLOTS,
            _(
                "Your company's plan has no showcase slots. Paid plans such as Gold Supplier "
                "include a few: see the membership plans (%(link)s)."
            )
            % {"link": reverse("membership:plans")},
        )
    if showcase_slots_used(company) >= slots:
        raise ProductError(
            ProductErrorCode.SHOWCASE_FULL,
            _(
                "All %(slots)d showcase slots of your plan are in use: remove a showcased "
                "product first."
            )
            % {"slots": slots},
        )
    showcase = Showcase(
        company=company, product=product, created_at=timezone.now(), created_by=actor
    )
    ProductError.clean_model(showcase, code=ProductErrorCode.INVALID)
    showcase.save()
    _audit(actor, "showcase.add", product)
    transaction.on_commit(forget_showcase_cache)
    return showcase


@transaction.atomic
def showcase_remove(*, actor: Any, product_id: Any) -> None:
    """Take a product out of the company's showcase (the product itself stays as it is). A
    product that is not showcased is not found, like another company's."""
    product = access_product(user=actor, product_id=product_id)
    _locked_company(actor, product)
    showcase = Showcase.objects.filter(product_id=product.pk).first()
    if showcase is None:
        raise ProductNotFound(_("This product is not in the showcase."))
    showcase.delete()
    _audit(actor, "showcase.remove", product)
    transaction.on_commit(forget_showcase_cache)
