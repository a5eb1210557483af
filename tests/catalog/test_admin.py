"""The catalogue in the operators' admin: every page a product has answers (read-only)."""

from __future__ import annotations

import pytest

from tests.factories.accounts import make_operator, make_user
from tests.factories.catalog import make_product
from tests.factories.companies import make_company
from tests.factories.images import image_upload
from tradepost.catalog import services
from tradepost.catalog.models import Product

pytestmark = pytest.mark.django_db


def test_a_product_with_pictures_and_translations_opens_in_the_admin(client):
    owner = make_user()
    product = make_product(company=make_company(owner=owner), title="Steel bar")
    services.product_image_add(actor=owner, product=product, upload=image_upload())
    services.product_translation_set(
        actor=owner, product=product, language="zh-hans", title="钢条", description=""
    )
    client.force_login(make_operator())
    for url in (
        "/admin/catalog/product/",
        f"/admin/catalog/product/{product.pk}/change/",
        "/admin/catalog/category/",
        "/admin/catalog/hscode/",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
    page = client.get(f"/admin/catalog/product/{product.pk}/change/").content.decode()
    assert "钢条" in page
    # Read-only: a post changes nothing.
    before = Product.objects.values().get(pk=product.pk)
    client.post(f"/admin/catalog/product/{product.pk}/change/", {"title": "Changed"})
    assert Product.objects.values().get(pk=product.pk) == before
