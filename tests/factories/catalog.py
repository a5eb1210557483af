"""Categories, products (stored directly, as published or draft listings; no outbox rows),
their pictures and translations, and the fields a supplier's product form sends."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import factory
from django.core.files.base import ContentFile
from django.utils import timezone

from tests.factories.companies import CompanyFactory
from tests.factories.images import png_bytes
from tradepost.catalog.models import (
    Category,
    HSCode,
    Product,
    ProductImage,
    ProductStatus,
    ProductTranslation,
    Showcase,
)
from tradepost.catalog.showcase_services import showcase_add
from tradepost.core.images import process_image


class CategoryFactory(factory.django.DjangoModelFactory):
    """A category under `parent` (a root without one); the parent stops being a leaf."""

    class Meta:
        model = Category

    parent = None
    slug = factory.Sequence(lambda n: f"test-category-{n}")
    path = factory.LazyAttributeSequence(
        lambda o, n: f"{o.parent.path}.{n:04d}" if o.parent else f"9{n:03d}"
    )
    depth = factory.LazyAttribute(lambda o: o.parent.depth + 1 if o.parent else 0)
    name_en = factory.Sequence(lambda n: f"Test category {n}")
    name_zh_hans = factory.Sequence(lambda n: f"测试类目{n}")
    name_zh_hant = factory.Sequence(lambda n: f"測試類目{n}")

    @classmethod
    def _create(cls, model_class: type[Category], *args: Any, **fields: Any) -> Category:
        parent = fields.get("parent")
        if parent is not None and parent.is_leaf:
            parent.is_leaf = False
            parent.save(update_fields=["is_leaf"])
        return super()._create(model_class, *args, **fields)


def make_category(**fields: Any) -> Category:
    return CategoryFactory(**fields)


def named_category(name_en: str, hans: str, hant: str, parent: Category | None = None) -> Category:
    """A category named in English, simplified and traditional Chinese."""
    return make_category(parent=parent, name_en=name_en, name_zh_hans=hans, name_zh_hant=hant)


def leaf_category() -> Category:
    """A leaf of the shipped tree when it is loaded, else a fresh test leaf."""
    leaf = Category.objects.filter(is_leaf=True, depth__gt=0).order_by("path").first()
    return leaf or make_category(parent=make_category())


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


class ProductFactory(factory.django.DjangoModelFactory):
    """A listing stored as it is, published unless told otherwise, in a leaf category."""

    class Meta:
        model = Product

    company = factory.SubFactory(CompanyFactory)
    slug = "product"
    title = factory.Sequence(lambda n: f"Stainless steel vacuum flask {n}")
    category = factory.LazyFunction(leaf_category)
    moq = Decimal("100")
    moq_unit = "pieces"
    price_min = Decimal("2.50")
    price_max = Decimal("3.80")
    currency = "USD"
    status = ProductStatus.PUBLISHED
    published_at = factory.LazyAttribute(
        lambda o: timezone.now() if o.status == ProductStatus.PUBLISHED else None
    )


def make_product(**fields: Any) -> Product:
    """A `ProductFactory` listing; `company=None` or `category=None` mean a fresh one."""
    for name in ("company", "category"):
        if fields.get(name, ...) is None:
            del fields[name]
    return ProductFactory(**fields)


def flask_category() -> Category:
    """The vacuum-flasks leaf of the reference categories (the data migration installs it)."""
    return Category.objects.get(slug="home-garden-vacuum-flasks")


def make_flask(
    company: Any, title: str, language: str, prices: tuple[str, str] | None = None, **fields: Any
) -> Product:
    """A `make_product` listing of `company` in the reference flasks category, written in
    `language`; `prices` the lowest and highest price as written ("18", "25")."""
    if prices is not None:
        fields.update(price_min=Decimal(prices[0]), price_max=Decimal(prices[1]))
    return make_product(
        company=company,
        category=flask_category(),
        title=title,
        original_language=language,
        **fields,
    )


def add_image(product: Product, *, position: int = 0, colour: str = "red") -> ProductImage:
    """A picture stored as an upload is (re-encoded, with its thumbnail)."""
    processed = process_image(ContentFile(png_bytes(40, 30, colour=colour), name="photo.png"))
    return ProductImage.objects.create(
        product=product,
        image=processed.image,
        thumbnail=processed.thumbnail,
        position=position,
    )


#: The interface languages (URL prefixes), and how pages name them in hreflang links.
LANGUAGES = ["en", "zh-hans", "zh-hant"]
HREFLANG = {"en": "en", "zh-hans": "zh-Hans", "zh-hant": "zh-Hant"}


def translate(product: Product, language: str, title: str, description: str = "") -> None:
    ProductTranslation.objects.create(
        product=product, language=language, title=title, description=description
    )


def ensure_hs_code(code: str = "961730") -> str:
    """An HS code the reference table knows (added when the shipped list is not loaded)."""
    for length in (2, 4, 6):
        part = code[:length]
        HSCode.objects.get_or_create(
            code=part,
            defaults={
                "description": f"Test heading {part}",
                "level": length,
                "parent_id": code[: length - 2] if length > 2 else None,
            },
        )
    return code


class ProductFieldsFactory(factory.DictFactory):
    """What a supplier's product form sends, all valid."""

    title = "Stainless steel vacuum flask 500 ml"
    description = "<p>Double wall, keeps drinks hot for 12 hours.</p>"
    category_id = factory.LazyFunction(lambda: leaf_category().pk)
    keywords = "thermos, bottle"
    attributes = factory.LazyFunction(lambda: [{"name": "Material", "value": "304 steel"}])
    moq = Decimal("500")
    moq_unit = "pieces"
    price_min = Decimal("2.10")
    price_max = Decimal("3.40")
    currency = "USD"
    incoterms = factory.LazyFunction(lambda: ["FOB", "EXW"])
    port_of_loading = "Ningbo"
    payment_terms = factory.LazyFunction(lambda: ["tt", "lc"])
    lead_time_days = 30
    hs_code = ""
    origin_country = "CN"
    original_language = "en"


def product_fields(**overrides: Any) -> dict[str, Any]:
    return ProductFieldsFactory(**overrides)


def snapshot(product: Product) -> dict[str, Any]:
    """Everything stored about a product, to compare before and after a refused write."""
    fresh = Product.objects.get(pk=product.pk)
    data = {f.attname: getattr(fresh, f.attname) for f in Product._meta.concrete_fields}
    data["images"] = sorted(fresh.images.values_list("id", "position", "image"))
    data["translations"] = sorted(fresh.translations.values_list("language", "title"))
    return data


def showcase(product: Product, *, actor: Any) -> Showcase:
    """`actor` (an owner or admin of the product's company) puts `product` in its paid
    showcase, as the showcase page does."""
    return showcase_add(actor=actor, product_id=product.pk)
