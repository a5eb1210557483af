"""The publish button when the company has published a listing much like the product: a
page names and links the likely duplicates, offers to edit one instead, and publishes
anyway on confirmation (ADR 0024)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from tests.duplicate_listings import FLASK
from tests.factories.catalog import product_fields
from tradepost.catalog import services
from tradepost.catalog.models import Product, ProductStatus

pytestmark = pytest.mark.django_db


def publish_url(product: Product, language: str = "en") -> str:
    with translation.override(language):
        return reverse("products:publish", kwargs={"pk": product.pk})


def test_the_supplier_is_shown_the_likely_duplicate(client, cast, original, copy):
    client.force_login(cast.actor("member"))
    response = client.post(publish_url(copy))
    assert response.status_code == 409
    page = response.content.decode()
    assert "Publish a listing like one you already have?" in page
    assert FLASK in page
    with translation.override("en"):
        assert original.get_absolute_url() in page
        assert reverse("products:update", kwargs={"pk": original.pk}) in page
    assert 'name="allow_duplicate"' in page and "Publish anyway" in page
    copy.refresh_from_db()
    assert copy.status == ProductStatus.DRAFT


def test_publish_anyway(client, cast, original, copy):
    client.force_login(cast.actor("member"))
    response = client.post(publish_url(copy), {"allow_duplicate": "on"})
    assert response.status_code == 302
    copy.refresh_from_db()
    assert copy.status == ProductStatus.PUBLISHED


def test_a_product_unlike_the_others_is_published_at_once(client, cast, original):
    lamp = services.product_create(
        actor=cast.actor("owner"),
        company=cast.company,
        **product_fields(title="LED desk lamp with USB charging port", attributes=[]),
    )
    client.force_login(cast.actor("member"))
    assert client.post(publish_url(lamp)).status_code == 302
    lamp.refresh_from_db()
    assert lamp.status == ProductStatus.PUBLISHED


@pytest.mark.parametrize(
    ("language", "heading"),
    [
        ("zh-hans", "要发布一个与已有产品相似的产品吗？"),
        ("zh-hant", "要發布一個與已有產品相似的產品嗎？"),
    ],
)
def test_the_page_in_chinese(client, cast, original, copy, language, heading):
    client.force_login(cast.actor("member"))
    response = client.post(publish_url(copy, language))
    assert response.status_code == 409
    assert heading in response.content.decode()
