"""Who may manage which products, and the only way to fetch a product on a user's behalf.

Every member of a company (owner, admin or member) manages the company's products; operators
manage every company's products. A product the user may not manage looks exactly like one that
does not exist (`ProductNotFound`, a 404).
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from tradepost.catalog.errors import ProductError, ProductErrorCode, ProductNotFound
from tradepost.catalog.models import Product, ProductImage, ProductStatus
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company
from tradepost.core.ids import parse_id


def products_company(*, user: Any, company_id: Any = None) -> Company:
    """The company whose products `user` creates and lists.

    Without `company_id`, the company they act for; without one, `ProductError` (no-company,
    403). Named by `company_id`, a company they work for (operators: any company); any other
    looks like one that does not exist (`ProductNotFound`).
    """
    actor = actor_for(user)
    if company_id is None:
        if actor.company is None:
            raise ProductError(
                ProductErrorCode.NO_COMPANY, _("Create a company profile before adding products.")
            )
        return actor.company
    pk = parse_id(company_id)
    company = Company.objects.filter(pk=pk).first() if pk is not None else None
    if company is None or not actor.works_for(company):
        raise ProductNotFound(_("No such company."))
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
    if product is None or not actor_for(user).works_for(product.company):
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
