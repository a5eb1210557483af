"""Helpers for the tests of the public catalogue pages, sitemap and read API."""

from __future__ import annotations

import io

import pytest
from django.core.files.base import ContentFile
from PIL import Image

from tests.factories import make_category
from tradepost.catalog.models import Category, Product, ProductImage, ProductTranslation
from tradepost.core.images import process_image

LANGUAGES = ["en", "zh-hans", "zh-hant"]
HREFLANG = {"en": "en", "zh-hans": "zh-Hans", "zh-hant": "zh-Hant"}


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def add_image(product: Product, *, position: int = 0, colour: str = "red") -> ProductImage:
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), colour).save(buffer, format="PNG")
    processed = process_image(ContentFile(buffer.getvalue(), name="photo.png"))
    return ProductImage.objects.create(
        product=product,
        image=processed.image,
        thumbnail=processed.thumbnail,
        position=position,
    )


def translate(product: Product, language: str, title: str, description: str = "") -> None:
    ProductTranslation.objects.create(
        product=product, language=language, title=title, description=description
    )


def make_tree() -> tuple[Category, Category, Category, Category]:
    """root > (branch > leaf), root > other_leaf."""
    root = make_category(
        name_en="Home and Garden", name_zh_hans="家居园艺", name_zh_hant="家居園藝"
    )
    branch = make_category(parent=root, name_en="Kitchen", name_zh_hans="厨房", name_zh_hant="廚房")
    leaf = make_category(
        parent=branch, name_en="Drinkware", name_zh_hans="水具酒具", name_zh_hant="水具酒具"
    )
    other_leaf = make_category(parent=root, name_en="Garden tools")
    return root, branch, leaf, other_leaf
