"""The public read API: categories, companies and published products. No authentication.

Lists of companies and products are paged with an opaque cursor: pass the `next` value of a
page as `cursor` to get the following one; `next` is null on the last page.
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime
from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _
from ninja import Path, Query, Router, Schema

from tradepost.api.problems import not_found, validation_problem
from tradepost.catalog.company_selectors import (
    api_companies,
    certification_names,
    get_public_company,
)
from tradepost.catalog.models import Category, Product
from tradepost.catalog.selectors import (
    all_categories,
    api_products,
    get_category,
    incoterm_codes,
    product_attributes,
    published_products,
    subtree_q,
)
from tradepost.companies.models import BusinessType, Company
from tradepost.core.countries import is_country
from tradepost.core.numbers import decimal_text

router = Router(tags=["public"])

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
MAX_ID = 2**63 - 1


# --- schemas ------------------------------------------------------------------------------


class PublicCategory(Schema):
    id: int
    slug: str
    parent_id: int | None
    depth: int
    is_leaf: bool
    names: dict[str, str]
    hs_codes: list[str]
    url: str


class PublicCategoryList(Schema):
    items: list[PublicCategory]


class PublicCategoryDetail(PublicCategory):
    ancestors: list[PublicCategory]
    children: list[PublicCategory]
    product_count: int


class PublicCompany(Schema):
    slug: str
    legal_name: str
    english_name: str
    original_language: str
    country: str
    province: str
    city: str
    business_types: list[str]
    year_established: int | None
    employee_range: str
    main_markets: list[str]
    main_products: str
    certifications: list[str]
    export_share: int | None
    website: str
    logo_url: str | None
    description: str
    is_verified: bool
    url: str
    updated_at: datetime


class PublicCompanyPage(Schema):
    items: list[PublicCompany]
    next: str | None
    next_url: str | None


class PublicCompanyRef(Schema):
    slug: str
    name: str
    english_name: str
    country: str
    is_verified: bool
    url: str


class PublicCategoryRef(Schema):
    id: int
    slug: str
    names: dict[str, str]


class PublicImage(Schema):
    url: str
    thumbnail_url: str
    width: int
    height: int


class PublicTranslation(Schema):
    language: str
    title: str
    description: str


class PublicAttribute(Schema):
    name: str
    value: str


class PublicTerms(Schema):
    moq: str
    moq_unit: str
    price_min: str | None
    price_max: str | None
    currency: str
    incoterms: list[str]
    port_of_loading: str
    payment_terms: list[str]
    lead_time_days: int | None
    supply_capacity: str | None
    supply_capacity_unit: str
    hs_code: str
    origin_country: str


class PublicProduct(Schema):
    id: int
    url: str
    original_language: str
    title: str
    description: str
    translations: list[PublicTranslation]
    category: PublicCategoryRef
    company: PublicCompanyRef
    images: list[PublicImage]
    terms: PublicTerms
    attributes: list[PublicAttribute]
    published_at: datetime | None
    updated_at: datetime


class PublicProductPage(Schema):
    items: list[PublicProduct]
    next: str | None
    next_url: str | None


# --- cursors ------------------------------------------------------------------------------


def encode_cursor(last_id: int) -> str:
    raw = json.dumps({"v": 1, "id": last_id}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> int | None:
    """The id a page starts after; a cursor that is not one of ours is a 422 problem."""
    if cursor is None or cursor == "":
        return None
    try:
        if len(cursor) > 200:
            raise ValueError
        padded = cursor + "=" * (-len(cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
        last_id = data["id"]
        if data.get("v") != 1 or not isinstance(last_id, int) or isinstance(last_id, bool):
            raise ValueError
        if not 1 <= last_id <= MAX_ID:
            raise ValueError
    except (ValueError, TypeError, KeyError, AttributeError, binascii.Error, UnicodeError):
        raise validation_problem(
            [
                {
                    "field": "cursor",
                    "message": _("This cursor is not valid: pass the 'next' value of a page."),
                }
            ]
        ) from None
    return last_id


def _page(
    request: HttpRequest, rows: list[Any], limit: int
) -> tuple[list[Any], str | None, str | None]:
    if len(rows) <= limit:
        return rows, None, None
    rows = rows[:limit]
    token = encode_cursor(rows[-1].pk)
    query = request.GET.copy()
    query["cursor"] = token
    return rows, token, request.build_absolute_uri(f"{request.path}?{query.urlencode()}")


def _country_filter(country: str | None) -> str | None:
    if country is None or country == "":
        return None
    code = country.strip().upper()
    if not is_country(code):
        raise validation_problem(
            [{"field": "country", "message": _("Use a two-letter ISO 3166 country code.")}]
        )
    return code


# --- serialisation ------------------------------------------------------------------------


def _names(category: Category) -> dict[str, str]:
    return {
        "en": category.name_en,
        "zh-hans": category.name_zh_hans,
        "zh-hant": category.name_zh_hant,
    }


def _category(request: HttpRequest, category: Category) -> dict[str, Any]:
    return {
        "id": category.pk,
        "slug": category.slug,
        "parent_id": category.parent_id,
        "depth": category.depth,
        "is_leaf": category.is_leaf,
        "names": _names(category),
        "hs_codes": [str(c) for c in category.hs_codes or []],
        "url": request.build_absolute_uri(reverse("catalog:category_detail", args=[category.slug])),
    }


def _company(request: HttpRequest, company: Company) -> dict[str, Any]:
    return {
        "slug": company.slug,
        "legal_name": company.legal_name,
        "english_name": company.english_name,
        "original_language": company.original_language,
        "country": company.country,
        "province": company.province,
        "city": company.city,
        "business_types": [str(t) for t in company.business_types or []],
        "year_established": company.year_established,
        "employee_range": company.employee_range,
        "main_markets": [str(m) for m in company.main_markets or []],
        "main_products": company.main_products,
        "certifications": certification_names(company.certifications),
        "export_share": company.export_share,
        "website": company.website,
        "logo_url": request.build_absolute_uri(company.logo.url) if company.logo else None,
        "description": company.description,
        "is_verified": company.is_verified,
        "url": request.build_absolute_uri(reverse("catalog:company_detail", args=[company.slug])),
        "updated_at": company.updated_at,
    }


def _product(request: HttpRequest, product: Product) -> dict[str, Any]:
    company = product.company
    images = []
    for image in product.images.all():
        if not image.image:
            continue
        full = request.build_absolute_uri(image.image.url)
        thumb = request.build_absolute_uri(image.thumbnail.url) if image.thumbnail else full
        images.append(
            {"url": full, "thumbnail_url": thumb, "width": image.width, "height": image.height}
        )
    return {
        "id": product.pk,
        "url": request.build_absolute_uri(product.get_absolute_url()),
        "original_language": product.original_language,
        "title": product.title,
        "description": product.description,
        "translations": [
            {"language": t.language, "title": t.title, "description": t.description}
            for t in product.translations.all()
        ],
        "category": {
            "id": product.category.pk,
            "slug": product.category.slug,
            "names": _names(product.category),
        },
        "company": {
            "slug": company.slug,
            "name": company.legal_name,
            "english_name": company.english_name,
            "country": company.country,
            "is_verified": company.is_verified,
            "url": request.build_absolute_uri(
                reverse("catalog:company_detail", args=[company.slug])
            ),
        },
        "images": images,
        "terms": {
            "moq": decimal_text(product.moq),
            "moq_unit": product.moq_unit,
            "price_min": decimal_text(product.price_min, min_decimals=2),
            "price_max": decimal_text(product.price_max, min_decimals=2),
            "currency": product.currency,
            "incoterms": incoterm_codes(product.incoterms),
            "port_of_loading": product.port_of_loading,
            "payment_terms": [str(t) for t in product.payment_terms or [] if isinstance(t, str)],
            "lead_time_days": product.lead_time_days,
            "supply_capacity": decimal_text(product.supply_capacity),
            "supply_capacity_unit": product.supply_capacity_unit,
            "hs_code": product.hs_code,
            "origin_country": product.origin_country,
        },
        "attributes": [
            {"name": name, "value": value} for name, value in product_attributes(product.attributes)
        ],
        "published_at": product.published_at,
        "updated_at": product.updated_at,
    }


# --- endpoints ----------------------------------------------------------------------------


@router.get("/categories", response=PublicCategoryList, summary="The category tree (flat)")
def list_categories(request: HttpRequest):
    """Every category, in tree order (a parent before its children), with names in English,
    Simplified and Traditional Chinese."""
    return {"items": [_category(request, c) for c in all_categories()]}


@router.get("/categories/{slug}", response=PublicCategoryDetail, summary="One category")
def get_category_detail(request: HttpRequest, slug: str):
    category = get_category(slug)
    if category is None:
        raise not_found(_("There is no category with this slug."))
    parts = category.path.split(".")
    ancestors = Category.objects.filter(
        path__in=[".".join(parts[:i]) for i in range(1, len(parts))]
    ).order_by("depth")
    data = _category(request, category)
    data["ancestors"] = [_category(request, c) for c in ancestors]
    data["children"] = [_category(request, c) for c in category.children.order_by("path")]
    data["product_count"] = (
        published_products().filter(subtree_q(category, prefix="category__")).count()
    )
    return data


@router.get("/companies", response=PublicCompanyPage, summary="Companies")
def list_companies(
    request: HttpRequest,
    country: str | None = Query(None, max_length=10, description="ISO 3166 alpha-2 code"),
    business_type: str | None = Query(
        None, max_length=40, description="One of: " + ", ".join(BusinessType.values)
    ),
    cursor: str | None = Query(None, max_length=200),
    limit: int = Query(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT),
):
    """Companies, newest first."""
    code = _country_filter(country)
    if business_type and business_type not in BusinessType.values:
        raise validation_problem(
            [{"field": "business_type", "message": _("This business type is not known.")}]
        )
    after = decode_cursor(cursor)
    rows = list(
        api_companies(country=code, business_type=business_type, after_id=after)[: limit + 1]
    )
    rows, token, url = _page(request, rows, limit)
    return {"items": [_company(request, c) for c in rows], "next": token, "next_url": url}


@router.get("/companies/{slug}", response=PublicCompany, summary="One company")
def get_company_detail(request: HttpRequest, slug: str):
    company = get_public_company(slug)
    if company is None:
        raise not_found(_("There is no company with this slug."))
    return _company(request, company)


@router.get("/products", response=PublicProductPage, summary="Published products")
def list_products(
    request: HttpRequest,
    category: str | None = Query(None, max_length=120, description="Category slug (subtree)"),
    country: str | None = Query(None, max_length=10, description="Supplier's country"),
    company: str | None = Query(None, max_length=80, description="Supplier's slug"),
    cursor: str | None = Query(None, max_length=200),
    limit: int = Query(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT),
):
    """Published products, newest first, with their translations, images and terms."""
    code = _country_filter(country)
    category_obj = None
    if category:
        category_obj = get_category(category)
        if category_obj is None:
            raise validation_problem(
                [{"field": "category", "message": _("There is no category with this slug.")}]
            )
    company_id = None
    if company:
        company_obj = get_public_company(company)
        if company_obj is None:
            raise validation_problem(
                [{"field": "company", "message": _("There is no company with this slug.")}]
            )
        company_id = company_obj.pk
    after = decode_cursor(cursor)
    products = api_products(
        category=category_obj, country=code, company_id=company_id, after_id=after
    )
    rows, token, url = _page(request, list(products[: limit + 1]), limit)
    return {"items": [_product(request, p) for p in rows], "next": token, "next_url": url}


@router.get("/products/{product_id}", response=PublicProduct, summary="One published product")
def get_product_detail(request: HttpRequest, product_id: int = Path(..., ge=1, le=MAX_ID)):
    product = api_products().filter(pk=product_id).first()
    if product is None:
        raise not_found(_("There is no published product with this id."))
    return _product(request, product)
