"""Banned terms added through the screening services (by an operator), and listings held for
review by publishing them."""

from __future__ import annotations

from typing import Any

from tests.factories.accounts import make_operator
from tests.factories.catalog import product_fields
from tradepost.catalog import services as catalog_services
from tradepost.catalog.models import Product, ProductStatus
from tradepost.screening import services
from tradepost.screening.models import BannedTerm


def ban(term: str, *, actor: Any = None, **fields: Any) -> BannedTerm:
    """`term` on the list (added by `actor`, a fresh operator by default)."""
    return services.banned_term_create(actor=actor or make_operator(), term=term, **fields)


def held_product(actor: Any, company: Any, **fields: Any) -> Product:
    """A listing of `company` that `actor` published and screening held: its title holds
    a term put on the list for it ("ivory" unless the title is given with a listed term)."""
    if not BannedTerm.objects.filter(normalized="ivory").exists():
        ban("ivory")
    values = product_fields(**{"title": "Carved ivory figurine", **fields})
    product = catalog_services.product_create(actor=actor, company=company, **values)
    product = catalog_services.product_publish(actor=actor, product=product)
    assert product.status == ProductStatus.HELD
    return product
