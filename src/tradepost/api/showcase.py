"""The paid showcase: /api/v1/me/showcase (the company's choice) and /api/v1/showcase (the
labelled block a page shows, public).

Any member reads the company's showcase; choosing and removing need its owner or an admin
(403). Another company's product, and a product that is not showcased, answer like a
missing one (404). A plan without slots answers 403; every slot in use, or a product that
is not published, 409 (docs/adr/0026-showcase-and-first-look.md).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import get_language, override
from django.utils.translation import gettext as _
from ninja import Query, Router, Schema, Status
from pydantic import Field

from tradepost.api.auth import API_AUTH, PUBLIC_AUTH, PUBLIC_OPENAPI, caller, caller_actor
from tradepost.api.bodies import JsonBody, QueryInt
from tradepost.catalog.selectors import ProductCard
from tradepost.catalog.showcase_selectors import ShowcaseEntry, company_showcase, public_showcase
from tradepost.catalog.showcase_services import showcase_add, showcase_remove
from tradepost.companies.models import Company
from tradepost.core.languages import UI_LANGUAGES, normalise_ui_language
from tradepost.core.numbers import decimal_text

router = Router(auth=API_AUTH, tags=["showcase"])
public_router = Router(tags=["showcase"])

MAX_ID = 2**63 - 1


# --- schemas ---------------------------------------------------------------------------------


class ShowcaseIn(JsonBody):
    product_id: int = Field(description="One of your company's published products", ge=1, le=MAX_ID)


class ShowcaseItemOut(Schema):
    product_id: int
    title: str
    product_status: str
    since: datetime
    state: str = Field(
        description="showing; waiting (over the plan's slots: the oldest choices show); "
        "not_listed (the product is not published); suspended (the company is)"
    )
    state_label: str


class ShowcaseOut(Schema):
    slots: int = Field(description="Showcased products the company's plan allows")
    used: int
    showing: int
    can_choose: bool = Field(description="Whether you may add and remove (owner or admin)")
    items: list[ShowcaseItemOut] = Field(description="Oldest choice first")


class SponsoredSupplierOut(Schema):
    slug: str
    name: str
    country: str
    verified: bool
    url: str


class SponsoredItemOut(Schema):
    id: int
    title: str
    language: str
    url: str
    thumbnail_url: str | None
    category: str
    supplier: SponsoredSupplierOut
    price_min: str | None
    price_max: str | None
    currency: str
    moq: str | None
    moq_unit: str
    sponsored: bool = Field(True, description="Always true: a paid placement")


class SponsoredBlockOut(Schema):
    label: str = Field(description="The label a page shows above the block, in the language")
    about_url: str = Field(description="The page that explains paid placement")
    items: list[SponsoredItemOut]


class SponsoredQuery(Schema):
    q: str = Field("", max_length=200, description="A search's words (empty: none)")
    category: QueryInt | None = Field(
        None, ge=1, le=MAX_ID, description="A category's id (the search's `category`)"
    )
    language: str | None = Field(None, description="en, zh-hans or zh-hant")


# --- helpers ---------------------------------------------------------------------------------


def _company(request: HttpRequest) -> Company:
    return caller_actor(request).require_company()


def _item_out(entry: ShowcaseEntry) -> dict[str, Any]:
    return {
        "product_id": entry.product.pk,
        "title": entry.product.title,
        "product_status": entry.product.status,
        "since": entry.showcase.created_at,
        "state": entry.state,
        "state_label": entry.state_label,
    }


def _showcase_out(request: HttpRequest, company: Company) -> dict[str, Any]:
    showcase = company_showcase(company)
    return {
        "slots": showcase.slots,
        "used": showcase.used,
        "showing": showcase.showing,
        "can_choose": caller_actor(request).manages(company),
        "items": [_item_out(entry) for entry in showcase.entries],
    }


def _absolute(request: HttpRequest, path: str) -> str:
    return request.build_absolute_uri(path)


def _sponsored_item(request: HttpRequest, card: ProductCard, language: str) -> dict[str, Any]:
    product, company = card.product, card.product.company
    with override(language):
        product_path = product.get_absolute_url()
        company_path = reverse("catalog:company_detail", args=[company.slug])
    return {
        "id": product.pk,
        "title": card.text.title,
        "language": card.text.lang_tag,
        "url": _absolute(request, product_path),
        "thumbnail_url": _absolute(request, card.thumbnail_url) if card.thumbnail_url else None,
        "category": card.category_name,
        "supplier": {
            "slug": company.slug,
            "name": card.company_name,
            "country": company.country,
            "verified": company.is_verified,
            "url": _absolute(request, company_path),
        },
        "price_min": decimal_text(product.price_min, min_decimals=2),
        "price_max": decimal_text(product.price_max, min_decimals=2),
        "currency": product.currency,
        "moq": decimal_text(product.moq),
        "moq_unit": product.moq_unit,
        "sponsored": True,
    }


# --- endpoints -------------------------------------------------------------------------------


@router.get("", response=ShowcaseOut, summary="My company's showcase: its slots and choices")
def my_showcase(request: HttpRequest) -> dict[str, Any]:
    return _showcase_out(request, _company(request))


@router.post(
    "",
    response={201: ShowcaseOut, 200: ShowcaseOut},
    summary="Showcase one of my company's published products (owner or admin)",
)
def add_to_showcase(request: HttpRequest, payload: ShowcaseIn) -> Any:
    company = _company(request)
    before = company_showcase(company).used
    showcase_add(actor=caller(request), **payload.dict())
    out = _showcase_out(request, company)
    return Status(201 if out["used"] > before else 200, out)


@router.delete(
    "/{int:product_id}",
    response={204: None},
    summary="Take a product out of my company's showcase (owner or admin)",
)
def remove_from_showcase(request: HttpRequest, product_id: int) -> Any:
    _company(request)
    showcase_remove(actor=caller(request), product_id=product_id)
    return Status(204, None)


@public_router.get(
    "",
    response=SponsoredBlockOut,
    auth=PUBLIC_AUTH,
    openapi_extra=PUBLIC_OPENAPI,
    summary="The sponsored block a page shows (paid placement, public)",
    description=(
        "The showcased products a product search with these words and this category shows "
        "above its results, or the home page's when neither is given. Paid placement: shown "
        "apart from the results, labelled, and never changing their order."
    ),
)
def sponsored_block(request: HttpRequest, query: Query[SponsoredQuery]) -> dict[str, Any]:
    asked = (query.language or "").lower()
    language = normalise_ui_language(asked if asked in UI_LANGUAGES else get_language())
    cards = public_showcase(language=language, query=query.q, category_id=query.category)
    with override(language):
        label = _("Sponsored · Paid supplier showcase")
        about = reverse("web:sponsored")
    return {
        "label": label,
        "about_url": _absolute(request, about),
        "items": [_sponsored_item(request, card, language) for card in cards],
    }
