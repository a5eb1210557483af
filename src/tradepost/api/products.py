"""The signed-in supplier's products: /api/v1/me/products.

Another company's product answers exactly like a missing one (404). Refused input answers 422
with one entry per field in `errors`. The services' refusals (`ProductError`) become problem
documents in one place, `api/urls.py`.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from django.http import HttpRequest
from ninja import File, Query, Router, Schema, Status
from ninja.files import UploadedFile
from pydantic import Field

from tradepost.api.auth import API_AUTH, caller
from tradepost.api.bodies import JsonBody, JsonDecimal, QueryInt
from tradepost.api.pagination import Rows, paged
from tradepost.api.problems import not_found
from tradepost.catalog import services
from tradepost.catalog.models import Product, ProductImage, ProductTranslation
from tradepost.catalog.permissions import (
    access_product,
    managed_products,
    products_company,
)

router = Router(auth=API_AUTH, tags=["my products"])

# --- schemas ---------------------------------------------------------------------------------


class Attribute(JsonBody):
    name: str
    value: str


class ProductWrite(JsonBody):
    """Fields of a product. On PATCH, only the fields sent are changed."""

    title: str | None = None
    original_language: str | None = Field(None, description="Language code, e.g. en, zh-hans")
    sku: str | None = Field(
        None,
        description="The supplier's own product code (at most 64 characters), unique among "
        "the company's products; a catalogue import finds the product by it",
    )
    category_id: int | None = Field(None, description="A leaf category's id")
    description: str | None = Field(None, description="HTML; scripts and styles are removed")
    attributes: list[Attribute] | None = None
    keywords: str | None = None
    moq: JsonDecimal | None = Field(None, description="Minimum order quantity, greater than zero")
    moq_unit: str | None = None
    price_min: JsonDecimal | None = None
    price_max: JsonDecimal | None = None
    currency: str | None = Field(None, description="ISO 4217 code")
    incoterms: list[str] | None = None
    port_of_loading: str | None = None
    payment_terms: list[str] | None = None
    lead_time_days: int | None = None
    supply_capacity: JsonDecimal | None = None
    supply_capacity_unit: str | None = None
    hs_code: str | None = None
    origin_country: str | None = Field(None, description="ISO 3166 alpha-2 code")


class ProductCreate(ProductWrite):
    company_id: int | None = Field(
        None, description="Operators only: the company the product belongs to"
    )


class ImageOut(Schema):
    id: int
    url: str
    thumbnail_url: str
    width: int
    height: int
    position: int


class TranslationIn(JsonBody):
    title: str
    description: str = ""


class TranslationOut(Schema):
    language: str
    title: str
    description: str


class ImageOrder(JsonBody):
    image_ids: list[int]


class ProductPublish(JsonBody):
    """Publishing a product (the body is optional: without it, `allow_duplicate` is false)."""

    allow_duplicate: bool = Field(
        False,
        description="Publish although the company has published a listing much like this one "
        "(without it such a publication answers 409 `likely-duplicate`, listing them in "
        "`duplicates`)",
    )


class ProductOut(Schema):
    id: int
    company_id: int
    status: str = Field(
        description="draft, published, hidden (by moderation) or held (for review: its text "
        "contains a banned term; not public until an operator approves it)"
    )
    slug: str
    original_language: str
    sku: str
    title: str
    description: str
    category_id: int
    keywords: str
    attributes: list[Attribute]
    moq: Decimal
    moq_unit: str
    price_min: Decimal | None
    price_max: Decimal | None
    currency: str
    incoterms: list[str]
    port_of_loading: str
    payment_terms: list[str]
    lead_time_days: int | None
    supply_capacity: Decimal | None
    supply_capacity_unit: str
    hs_code: str
    origin_country: str
    published_at: datetime | None
    created_at: datetime
    updated_at: datetime
    images: list[ImageOut]
    translations: list[TranslationOut]


class ProductListQuery(Schema):
    status: Literal["draft", "published", "hidden", "held"] | None = None
    company_id: QueryInt | None = Field(None, description="Operators only")


# --- helpers ---------------------------------------------------------------------------------


def _image_out(request: HttpRequest, image: ProductImage) -> dict[str, Any]:
    return {
        "id": image.pk,
        "url": request.build_absolute_uri(image.image.url),
        "thumbnail_url": request.build_absolute_uri(image.thumbnail.url),
        "width": image.width,
        "height": image.height,
        "position": image.position,
    }


def _translation_out(translation: ProductTranslation) -> dict[str, Any]:
    return {
        "language": translation.language,
        "title": translation.title,
        "description": translation.description,
    }


def _product_out(request: HttpRequest, product: Product) -> dict[str, Any]:
    data = {
        name: getattr(product, name) for name in ProductOut.model_fields if hasattr(product, name)
    }
    data["attributes"] = [item for item in product.attributes or [] if isinstance(item, dict)]
    data["images"] = [_image_out(request, image) for image in product.images.all()]
    data["translations"] = [_translation_out(t) for t in product.translations.all()]
    return data


def _reload(product_id: int) -> Product:
    return Product.objects.prefetch_related("images", "translations").get(pk=product_id)


# --- endpoints -------------------------------------------------------------------------------


@router.get("", response=list[ProductOut], summary="List my company's products")
@paged()
def list_products(request: HttpRequest, query: Query[ProductListQuery]) -> Rows:
    company = products_company(user=caller(request), company_id=query.company_id)
    products = managed_products(company, status=query.status).prefetch_related("translations")
    return Rows(products, render=lambda product: _product_out(request, product))


@router.post("", response={201: ProductOut}, summary="Create a draft product")
def create_product(request: HttpRequest, payload: ProductCreate) -> Status[dict[str, Any]]:
    user = caller(request)
    company = products_company(user=user, company_id=payload.company_id)
    fields = payload.model_dump(exclude_unset=True, exclude={"company_id"})
    product = services.product_create(actor=user, company=company, **fields)
    return Status(201, _product_out(request, _reload(product.pk)))


@router.get("/{int:product_id}", response=ProductOut, summary="One of my company's products")
def get_product(request: HttpRequest, product_id: int) -> dict[str, Any]:
    product = access_product(user=caller(request), product_id=product_id)
    return _product_out(request, _reload(product.pk))


@router.patch("/{int:product_id}", response=ProductOut, summary="Change a product")
def update_product(request: HttpRequest, product_id: int, payload: ProductWrite) -> dict[str, Any]:
    user = caller(request)
    product = access_product(user=user, product_id=product_id)
    product = services.product_update(
        actor=user, product=product, **payload.model_dump(exclude_unset=True)
    )
    return _product_out(request, _reload(product.pk))


@router.delete("/{int:product_id}", response={204: None}, summary="Delete a product")
def delete_product(request: HttpRequest, product_id: int) -> Status[None]:
    user = caller(request)
    product = access_product(user=user, product_id=product_id)
    services.product_delete(actor=user, product=product)
    return Status(204, None)


@router.post("/{int:product_id}/publish", response=ProductOut, summary="Publish a product")
def publish_product(
    request: HttpRequest, product_id: int, payload: ProductPublish | None = None
) -> dict[str, Any]:
    user = caller(request)
    product = access_product(user=user, product_id=product_id)
    product = services.product_publish(
        actor=user, product=product, **(payload.model_dump() if payload else {})
    )
    return _product_out(request, _reload(product.pk))


@router.post(
    "/{int:product_id}/unpublish", response=ProductOut, summary="Take a product back to draft"
)
def unpublish_product(request: HttpRequest, product_id: int) -> dict[str, Any]:
    user = caller(request)
    product = access_product(user=user, product_id=product_id)
    product = services.product_unpublish(actor=user, product=product)
    return _product_out(request, _reload(product.pk))


@router.post(
    "/{int:product_id}/images", response={201: ImageOut}, summary="Add a photo (multipart)"
)
def add_image(
    request: HttpRequest, product_id: int, image: File[UploadedFile]
) -> Status[dict[str, Any]]:
    user = caller(request)
    product = access_product(user=user, product_id=product_id)
    added = services.product_image_add(actor=user, product=product, upload=image)
    return Status(201, _image_out(request, added))


@router.put("/{int:product_id}/images/order", response=list[ImageOut], summary="Reorder the photos")
def reorder_images(
    request: HttpRequest, product_id: int, payload: ImageOrder
) -> list[dict[str, Any]]:
    user = caller(request)
    product = access_product(user=user, product_id=product_id)
    services.product_image_reorder(actor=user, product=product, image_ids=payload.image_ids)
    return [_image_out(request, image) for image in product.images.all()]


@router.delete(
    "/{int:product_id}/images/{int:image_id}", response={204: None}, summary="Remove a photo"
)
def remove_image(request: HttpRequest, product_id: int, image_id: int) -> Status[None]:
    user = caller(request)
    product = access_product(user=user, product_id=product_id)
    services.product_image_remove(actor=user, product=product, image_id=image_id)
    return Status(204, None)


@router.put(
    "/{int:product_id}/translations/{language}",
    response=TranslationOut,
    summary="Write the title and description in another language",
)
def set_translation(
    request: HttpRequest, product_id: int, language: str, payload: TranslationIn
) -> dict[str, Any]:
    user = caller(request)
    product = access_product(user=user, product_id=product_id)
    translation = services.product_translation_set(
        actor=user,
        product=product,
        language=language,
        title=payload.title,
        description=payload.description,
    )
    return _translation_out(translation)


@router.delete(
    "/{int:product_id}/translations/{language}",
    response={204: None},
    summary="Remove a translation",
)
def remove_translation(request: HttpRequest, product_id: int, language: str) -> Status[None]:
    user = caller(request)
    product = access_product(user=user, product_id=product_id)
    if not services.product_translation_remove(actor=user, product=product, language=language):
        raise not_found()
    return Status(204, None)
