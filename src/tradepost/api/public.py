"""The public read API: categories, companies and published products. No authentication.

Lists of companies and products are paged like every list of the API: `page` and `page_size`
(`tradepost.api.pagination`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _
from ninja import Field, Path, Query, Router, Schema

from tradepost.api.pagination import Rows, paged
from tradepost.api.problems import not_found, validation_problem
from tradepost.api.profiles import CompanyProfileOut
from tradepost.catalog.machine_texts import attach_all_machine_listings
from tradepost.catalog.models import Category, Product
from tradepost.catalog.public_companies import (
    api_companies,
    certification_names,
    get_public_company,
)
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
from tradepost.core.currencies import currency_digits
from tradepost.core.numbers import decimal_text
from tradepost.membership.badges import gold_badge_companies, shows_gold_badge
from tradepost.money.display import AS_LISTED, converted_price, display_currencies

router = Router(tags=["public"])

MAX_ID = 2**63 - 1
CURRENCY_PARAMETER = (
    "Also give each price converted into this currency (ISO 4217, one the site has an "
    "exchange rate for), in `terms.converted`"
)


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


class PublicCompany(CompanyProfileOut):
    is_verified: bool
    gold_supplier: bool = Field(
        description="Carries the Gold Supplier badge: verified, and on a plan that gives the "
        "badge (the membership is bought; the verification is Tradepost's check)"
    )
    review_count: int = Field(description="Published reviews by buyers that awarded it orders")
    review_average: float | None = Field(
        description="Their average rating (1-5, one decimal place); null with no reviews"
    )
    url: str
    updated_at: datetime


class PublicCompanyRef(Schema):
    slug: str
    name: str
    english_name: str
    country: str
    is_verified: bool
    gold_supplier: bool = Field(description="Carries the Gold Supplier badge")
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


class PublicAttribute(Schema):
    name: str
    value: str


class PublicTranslation(Schema):
    language: str
    title: str
    description: str = Field(description="HTML (sanitised)")
    machine_translated: bool = Field(
        description="Written by machine translation (false: by the supplier, whose "
        "translations always come first)"
    )
    keywords: str = Field("", description="A machine translation's keywords")
    attributes: list[PublicAttribute] = Field(
        default_factory=list, description="A machine translation's attributes, in order"
    )


class PublicConvertedPrice(Schema):
    price_min: str | None
    price_max: str | None
    currency: str
    rates_as_of: date


class PublicTerms(Schema):
    moq: str
    moq_unit: str
    price_min: str | None
    price_max: str | None
    currency: str
    converted: PublicConvertedPrice | None = Field(
        None,
        description="With `?currency=`: the price in that currency, approximately, by the "
        "site's exchange rates of `rates_as_of`; null when the listing is priced in it, has no "
        "price or the table lacks a rate for its currency.",
    )
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


def _company(
    request: HttpRequest, company: Company, *, gold: set[int] | None = None
) -> dict[str, Any]:
    """A company; `gold`: the ids of a list page's companies with the Gold Supplier badge
    (read once for the page), else read for this company."""
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
        "gold_supplier": _gold(company, gold),
        "review_count": company.review_count,
        "review_average": None if company.review_average is None else float(company.review_average),
        "url": request.build_absolute_uri(reverse("catalog:company_detail", args=[company.slug])),
        "updated_at": company.updated_at,
    }


def _display_currency(currency: str | None) -> str:
    """The `currency` parameter as a code of the exchange-rate table; AS_LISTED when absent."""
    if currency is None or currency == "":
        return AS_LISTED
    code = currency.strip().upper()
    if code not in display_currencies():
        raise validation_problem(
            {"currency": [_("Not a currency this site knows (ISO 4217 codes such as USD, EUR).")]}
        )
    return code


def _converted(product: Product, display: str) -> dict[str, Any] | None:
    converted = converted_price(
        product.price_min, product.price_max, currency=product.currency, display=display
    )
    if converted is None:
        return None
    digits = currency_digits(converted.currency)
    return {
        "price_min": decimal_text(converted.low, min_decimals=digits),
        "price_max": decimal_text(converted.high, min_decimals=digits),
        "currency": converted.currency,
        "rates_as_of": converted.as_of,
    }


def _gold(company: Company, gold: set[int] | None) -> bool:
    return company.pk in gold if gold is not None else shows_gold_badge(company)


class _GoldOfPage:
    """The ids of a list page's companies with the Gold Supplier badge, read once for the
    page (`Rows.prepare`) from its rows' companies."""

    def __init__(self, company_of: Callable[[Any], Company]) -> None:
        self.company_of = company_of
        self.ids: set[int] = set()

    def __call__(self, rows: list[Any]) -> None:
        self.ids = gold_badge_companies(self.company_of(row) for row in rows)


def _translations(product: Product) -> list[dict[str, Any]]:
    """The supplier's translations, then machine translations into the interface languages
    the supplier did not translate into (`catalog.machine_texts`)."""
    own = list(product.translations.all())
    rows = [
        {
            "language": t.language,
            "title": t.title,
            "description": t.description,
            "machine_translated": False,
        }
        for t in own
    ]
    written = {t.language.lower() for t in own}
    for language, listing in getattr(product, "machine_listings", {}).items():
        if language in written:
            continue
        rows.append(
            {
                "language": language,
                "title": listing.title,
                "description": listing.description_html,
                "machine_translated": True,
                "keywords": listing.keywords,
                "attributes": [
                    {"name": name, "value": value} for name, value in listing.attributes
                ],
            }
        )
    return rows


def _product(
    request: HttpRequest,
    product: Product,
    display: str = AS_LISTED,
    *,
    gold: set[int] | None = None,
) -> dict[str, Any]:
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
        "translations": _translations(product),
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
            "gold_supplier": _gold(company, gold),
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
            "converted": _converted(product, display),
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


@router.get("/companies", response=list[PublicCompany], summary="Companies")
@paged()
def list_companies(
    request: HttpRequest,
    country: str | None = Query(None, max_length=10, description="ISO 3166 alpha-2 code"),
    business_type: str | None = Query(
        None, max_length=40, description="One of: " + ", ".join(BusinessType.values)
    ),
) -> Rows:
    """Companies, newest first."""
    code = _country_filter(country)
    if business_type and business_type not in BusinessType.values:
        raise validation_problem(
            [{"field": "business_type", "message": _("This business type is not known.")}]
        )
    gold = _GoldOfPage(lambda company: company)
    return Rows(
        api_companies(country=code, business_type=business_type),
        render=lambda company: _company(request, company, gold=gold.ids),
        prepare=gold,
    )


@router.get("/companies/{slug}", response=PublicCompany, summary="One company")
def get_company_detail(request: HttpRequest, slug: str):
    company = get_public_company(slug)
    if company is None:
        raise not_found(_("There is no company with this slug."))
    return _company(request, company)


@router.get("/products", response=list[PublicProduct], summary="Published products")
@paged()
def list_products(
    request: HttpRequest,
    category: str | None = Query(None, max_length=120, description="Category slug (subtree)"),
    country: str | None = Query(None, max_length=10, description="Supplier's country"),
    company: str | None = Query(None, max_length=80, description="Supplier's slug"),
    currency: str | None = Query(None, max_length=3, description=CURRENCY_PARAMETER),
) -> Rows:
    """Published products, newest first, with their translations, images and terms."""
    display = _display_currency(currency)
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
    gold = _GoldOfPage(lambda product: product.company)

    def prepare(products: list[Product]) -> None:
        gold(products)
        attach_all_machine_listings(products)

    return Rows(
        api_products(category=category_obj, country=code, company_id=company_id),
        render=lambda product: _product(request, product, display, gold=gold.ids),
        prepare=prepare,
    )


@router.get("/products/{product_id}", response=PublicProduct, summary="One published product")
def get_product_detail(
    request: HttpRequest,
    product_id: int = Path(..., ge=1, le=MAX_ID),
    currency: str | None = Query(None, max_length=3, description=CURRENCY_PARAMETER),
):
    display = _display_currency(currency)
    product = api_products().filter(pk=product_id).first()
    if product is None:
        raise not_found(_("There is no published product with this id."))
    attach_all_machine_listings([product])
    return _product(request, product, display)
