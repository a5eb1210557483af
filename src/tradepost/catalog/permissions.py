"""Who may manage which products, and the only way to fetch a product on a user's behalf.

Every member of a company (owner, admin or member) manages the company's products; operators
manage every company's products. A product the user may not manage looks exactly like one that
does not exist (`ProductNotFound`, a 404).
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from tradepost.accounts.selectors import is_operator
from tradepost.catalog.errors import ProductNotFound
from tradepost.catalog.models import Product, ProductImage, ProductStatus
from tradepost.companies.models import Company, Role
from tradepost.companies.selectors import acting_company, membership_for
from tradepost.core.ids import parse_id

PRODUCT_ROLES = frozenset({Role.OWNER, Role.ADMIN, Role.MEMBER})


def can_manage_products(user: Any, company: Company) -> bool:
    """True when `user` may create, edit, publish and delete `company`'s products."""
    if is_operator(user):
        return True
    membership = membership_for(user)
    return (
        membership is not None
        and membership.company_id == company.pk
        and membership.role in PRODUCT_ROLES
    )


def company_for_new_product(user: Any, company_id: int | None = None) -> Company | None:
    """The company a new product of `user` belongs to.

    Without `company_id`, the user's own company. Operators may name any company; anyone
    else naming a company other than their own gets None, as for a company that is missing.
    """
    if company_id is None:
        company = acting_company(user)
        return company if company is not None and can_manage_products(user, company) else None
    company = Company.objects.filter(pk=company_id).first()
    if company is None or not can_manage_products(user, company):
        return None
    return company


def managed_products(company: Company, *, status: str | None = None) -> QuerySet[Product]:
    """A company's products as its dashboard lists them (deleted ones left out)."""
    products = (
        Product.objects.filter(company=company)
        .exclude(status=ProductStatus.DELETED)
        .select_related("category")
        .prefetch_related("images")
        .order_by("-updated_at", "-id")
    )
    if status:
        products = products.filter(status=status)
    return products


def access_product(*, user: Any, product_id: Any) -> Product:
    """The product `product_id` if `user` may manage it; else `ProductNotFound`."""
    pk = parse_id(product_id)
    product = (
        Product.objects.select_related("company", "category")
        .filter(pk=pk)
        .exclude(status=ProductStatus.DELETED)
        .first()
        if pk is not None
        else None
    )
    if product is None or not can_manage_products(user, product.company):
        raise ProductNotFound()
    return product


def access_product_image(*, user: Any, product_id: Any, image_id: Any) -> ProductImage:
    """Image `image_id` of a product `user` may manage; else `ProductNotFound`."""
    product = access_product(user=user, product_id=product_id)
    pk = parse_id(image_id)
    image = ProductImage.objects.filter(pk=pk, product=product).first() if pk is not None else None
    if image is None:
        raise ProductNotFound()
    image.product = product
    return image
