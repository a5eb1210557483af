"""A product's SKU (the supplier's own code): optional, unique per company among the products
that are not deleted, on the product form, the API and the supplier's list."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from tests.api_client import ApiClient
from tests.factories.catalog import leaf_category, make_product
from tradepost.catalog import services
from tradepost.catalog.errors import ProductError
from tradepost.catalog.models import ProductStatus

pytestmark = pytest.mark.django_db


def _fields(**changes):
    return {
        "title": "Vacuum flask",
        "category_id": leaf_category().pk,
        "moq": "100",
        "moq_unit": "pieces",
        **changes,
    }


def test_a_sku_is_unique_per_company_and_said_by_field(cast):
    services.product_create(actor=cast.owner, company=cast.company, **_fields(sku="VF-1"))
    with pytest.raises(ProductError) as refused:
        services.product_create(actor=cast.owner, company=cast.company, **_fields(sku="VF-1"))
    assert refused.value.message_dict == {"sku": ["Another of your products has this SKU."]}
    # Another company may use it; products without one are many.
    services.product_create(actor=cast.outsider, company=cast.other_company, **_fields(sku="VF-1"))
    services.product_create(actor=cast.owner, company=cast.company, **_fields())
    services.product_create(actor=cast.owner, company=cast.company, **_fields())


def test_a_deleted_products_sku_is_free_again(cast):
    first = services.product_create(actor=cast.owner, company=cast.company, **_fields(sku="VF-1"))
    services.product_delete(actor=cast.owner, product=first)
    services.product_create(actor=cast.owner, company=cast.company, **_fields(sku="VF-1"))


def test_the_database_holds_the_rule_too(cast):
    make_product(company=cast.company, sku="VF-9")
    with pytest.raises(IntegrityError), transaction.atomic():
        make_product(company=cast.company, sku="VF-9")
    make_product(company=cast.company, sku="VF-9", status=ProductStatus.DELETED)


def test_a_sku_longer_than_64_characters_is_refused(cast):
    with pytest.raises(ProductError) as refused:
        services.product_create(actor=cast.owner, company=cast.company, **_fields(sku="x" * 65))
    assert "sku" in refused.value.message_dict


def test_the_form_the_api_and_the_list_carry_the_sku(client, cast):
    product = make_product(company=cast.company, sku="VF-500", status=ProductStatus.DRAFT)
    client.force_login(cast.owner)
    assert (
        'value="VF-500"'
        in client.get(reverse("products:update", args=[product.pk])).content.decode()
    )
    assert "VF-500" in client.get(reverse("products:list")).content.decode()
    api = ApiClient(cast.owner)
    assert api.get(f"/api/v1/me/products/{product.pk}").json()["sku"] == "VF-500"
    changed = api.patch(f"/api/v1/me/products/{product.pk}", {"sku": "VF-501"})
    assert changed.status_code == 200 and changed.json()["sku"] == "VF-501"
