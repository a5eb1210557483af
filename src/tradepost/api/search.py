"""The public search API: products, companies and open buying requests with facets, and
suggestions while typing.

The same service as the search page answers; filters are the page's parameters (a buying
request's are those of the board too: `tradepost.api.filters`). Results are paged like every
list of the API (`page`, `page_size`; `items`, `count`, `next_page`...), with what the search
did with the words and the facets beside them. A value
that cannot be a filter (an unknown country code, a negative price, text where a number
goes) is a 422 problem, so an integration learns of its mistake instead of getting results
it did not ask for.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal
from urllib.parse import quote

from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from ninja import Query, Router
from pydantic import BaseModel, Field

from tradepost.api.bodies import QueryFloat, QueryInt
from tradepost.api.filters import RequestFilterQuery, split_values
from tradepost.api.pagination import CutPage, Page, paged
from tradepost.api.problems import validation_problem
from tradepost.companies.models import BusinessType
from tradepost.core.countries import COUNTRY_CODES
from tradepost.core.incoterms import Incoterm
from tradepost.core.languages import LISTING_LANGUAGE_CODES, normalise_ui_language
from tradepost.core.numbers import decimal_text
from tradepost.search import selectors as search

router = Router(tags=["search"])

#: Longer queries are cut to this many characters.
MAX_QUERY_LENGTH = 200
MAX_PAGE_SIZE = 50
#: The engine pages itself: the view reads `page` and `page_size` as `paging`.
SEARCH_PAGING: dict[str, Any] = {
    "pass_parameter": "paging",
    "max_page": search.MAX_PAGE,
    "max_page_size": MAX_PAGE_SIZE,
}
UiLanguage = Literal["en", "zh-hans", "zh-hant"]
Sort = Literal["relevance", "newest", "price_asc", "price_desc"]


# --- schemas ------------------------------------------------------------------------------
# Plain pydantic models rather than ninja's `Schema`: the endpoints return dicts, and
# `Schema` wraps every nested dict in an attribute resolver before validating, which cost
# about as much as the search itself (a page of 20 hits with its facets is ~80 objects).


class Schema(BaseModel):
    pass


class FacetOptionOut(Schema):
    value: str
    label: str
    count: int
    selected: bool
    params: dict[str, str]


class FacetOut(Schema):
    name: str
    label: str
    options: list[FacetOptionOut]


class SupplierOut(Schema):
    slug: str
    name: str
    country: str
    verified: bool
    #: Carries the Gold Supplier badge (verified, on a plan that gives it), as indexed.
    gold_supplier: bool = False
    url: str
    #: Share of buyers' asks answered within 24 hours, in percent; None when nobody asked.
    response_rate_percent: int | None = None
    #: Published reviews and their average rating (1-5, one decimal; None with none).
    review_count: int = 0
    review_average: float | None = None


class ProductHitOut(Schema):
    id: int
    title: str
    title_html: str
    language: str
    machine_translated: bool = Field(
        description="The title is a machine translation into the page's language (the "
        "supplier wrote the listing in another one)"
    )
    original_html: str | None = Field(
        None,
        description="With a machine-translated title that the query did not match: the "
        "supplier's own title, HTML-escaped, with the matched words in <mark>",
    )
    url: str
    thumbnail_url: str | None
    category: str
    supplier: SupplierOut
    price_min: str | None
    price_max: str | None
    currency: str
    moq: str | None
    moq_unit: str
    incoterms: list[str]
    lead_time_days: int | None
    port_of_loading: str


class SearchPageOut(Page):
    """What every search answer holds besides its page of hits."""

    query: str
    expansions: list[str]
    fuzzy_used: bool
    #: Words no listing holds that the best result matches by similar spelling, as typed.
    respelled: list[str]
    #: Words of the query the best result does not match (it matches only part of it).
    unmatched: list[str]
    facets: list[FacetOut]


class ProductSearchOut(SearchPageOut):
    sort: str


class CompanyHitOut(Schema):
    slug: str
    name: str
    name_html: str
    country: str
    verified: bool
    #: Carries the Gold Supplier badge (verified, on a plan that gives it), as indexed.
    gold_supplier: bool = False
    business_types: list[str]
    main_products: str
    url: str
    review_count: int = 0
    review_average: float | None = None


class RequestHitBuyerOut(Schema):
    """What a request shows of its buyer: the name only when the buyer revealed it."""

    name: str | None
    country: str
    business_types: list[str]


class RequestHitOut(Schema):
    id: int
    title: str
    title_html: str
    language: str
    machine_translated: bool = Field(
        description="The title is a machine translation into the page's language (the "
        "buyer wrote the request in another one)"
    )
    original_html: str | None = Field(
        None,
        description="With a machine-translated title that the query did not match: the "
        "buyer's own title, HTML-escaped, with the matched words in <mark>",
    )
    url: str
    category: str
    category_id: int
    quantity: str
    unit: str
    destination_country: str
    posted_at: str
    deadline: str
    buyer: RequestHitBuyerOut


class RequestSearchOut(SearchPageOut):
    sort: str


class SuggestOut(Schema):
    suggestions: list[str]


# --- parameter checks ---------------------------------------------------------------------


def _check_codes(
    field: str, values: list[str], known: Any, message: str, *, upper: bool = True
) -> list[str]:
    cleaned = [v.upper() if upper else v.lower() for v in values]
    if len(cleaned) > 50 or any(v not in known for v in cleaned):
        raise validation_problem([{"field": field, "message": message}])
    return cleaned


def _query_text(q: str) -> str:
    return "".join(ch for ch in q if ch.isprintable() or ch == " ").strip()[:MAX_QUERY_LENGTH]


def _language(language: str | None) -> str:
    return normalise_ui_language(language or get_language())


def _page(result: search.SearchPage, items: list[dict[str, Any]], **extra: Any) -> CutPage:
    return CutPage(items, result.total, _about(result) | extra)


def _about(result: search.SearchPage) -> dict[str, Any]:
    return {
        "query": result.query,
        "expansions": result.expansions,
        "fuzzy_used": result.fuzzy_used,
        "respelled": result.respelled,
        "unmatched": result.unmatched,
        "facets": _facets(result.facets),
    }


def _facets(facets: list[search.Facet]) -> list[dict[str, Any]]:
    return [
        {
            "name": facet.name,
            "label": facet.label,
            "options": [
                {
                    "value": option.value,
                    "label": option.label,
                    "count": option.count,
                    "selected": option.selected,
                    "params": option.params,
                }
                for option in facet.options
            ],
        }
        for facet in facets
    ]


class _Links:
    """Absolute URLs of the hits of one response. `reverse` and `build_absolute_uri` cost
    tens of microseconds each; a page of 20 hits needs 60 of them, so the patterns are
    reversed once with placeholders and filled in (quoted the way `reverse` quotes)."""

    _ID = "2147483647"
    _SLUG = "placeholder-slug"

    def __init__(self, request: HttpRequest) -> None:
        self.origin = request.build_absolute_uri("/").rstrip("/")
        self.product = reverse("catalog:product_detail", args=[int(self._ID), self._SLUG])
        self.company = reverse("catalog:company_detail", args=[self._SLUG])

    @staticmethod
    def _quoted(value: str) -> str:
        return quote(value, safe=_URL_SAFE)

    def product_url(self, product_id: int, slug: str) -> str:
        path = self.product.replace(self._ID, str(product_id), 1).replace(
            self._SLUG, self._quoted(slug), 1
        )
        return self.origin + path

    def company_url(self, slug: str) -> str:
        return self.origin + self.company.replace(self._SLUG, self._quoted(slug), 1)

    def absolute(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            return path
        return self.origin + path if path.startswith("/") else self.origin + "/" + path


#: The characters `django.urls.reverse` leaves unquoted in a path argument.
_URL_SAFE = "!$&'()*+,;=/~:@"


def _product_hit(links: _Links, hit: search.ProductHit) -> dict[str, Any]:
    product = hit.product
    company = product.company
    card = hit.card
    return {
        "id": product.pk,
        "title": card.text.title,
        "title_html": str(hit.title_html),
        "language": card.text.lang_tag,
        "machine_translated": card.text.machine,
        "original_html": str(hit.original_html) if hit.original_html is not None else None,
        "url": links.product_url(product.pk, product.url_slug),
        "thumbnail_url": links.absolute(card.thumbnail_url) if card.thumbnail_url else None,
        "category": card.category_name,
        "supplier": {
            "slug": company.slug,
            "name": card.company_name,
            "country": company.country,
            "verified": company.is_verified,
            "gold_supplier": hit.gold_badge,
            "url": links.company_url(company.slug),
            "response_rate_percent": hit.response_rate_percent,
            "review_count": company.review_count,
            "review_average": _optional_float(company.review_average),
        },
        "price_min": decimal_text(product.price_min, min_decimals=2),
        "price_max": decimal_text(product.price_max, min_decimals=2),
        "currency": product.currency,
        "moq": decimal_text(product.moq),
        "moq_unit": product.moq_unit,
        "incoterms": [str(code) for code in product.incoterms or []],
        "lead_time_days": product.lead_time_days,
        "port_of_loading": product.port_of_loading,
    }


# --- endpoints ----------------------------------------------------------------------------


@router.get(
    "/products",
    response=list[ProductHitOut],
    summary="Search published products",
    url_name="search_products",
)
@paged(output=ProductSearchOut, **SEARCH_PAGING)
def search_products(
    request: HttpRequest,
    q: str = Query("", description="Words in any language or script; empty lists all"),
    lang: UiLanguage | None = Query(None, description="Language of labels and titles"),  # noqa: B008
    category: QueryInt | None = Query(  # noqa: B008
        None, ge=1, le=2**63 - 1, description="Category id (subtree)"
    ),
    country: list[str] | None = Query(None, description="Supplier countries (ISO 3166)"),  # noqa: B008
    verified: bool = Query(False, description="Verified suppliers only"),
    language: list[str] | None = Query(None, description="Listing languages (en, zh-hans...)"),  # noqa: B008
    incoterm: list[str] | None = Query(None, description="Incoterms offered"),  # noqa: B008
    moq_max: QueryFloat | None = Query(None, ge=0, le=1e15, description="MOQ at most"),  # noqa: B008
    price_min: QueryFloat | None = Query(None, ge=0, le=1e15, description="US dollars"),  # noqa: B008
    price_max: QueryFloat | None = Query(None, ge=0, le=1e15, description="US dollars"),  # noqa: B008
    lead_time_max: QueryInt | None = Query(None, ge=0, le=3650, description="Days"),  # noqa: B008
    company: QueryInt | None = Query(None, ge=1, le=2**63 - 1, description="Supplier company id"),  # noqa: B008
    sort: Sort = Query("relevance"),  # noqa: B008
    **kwargs: Any,
) -> CutPage:
    countries = _check_codes(
        "country",
        split_values(country),
        COUNTRY_CODES,
        _("Use two-letter ISO 3166 country codes."),
    )
    languages = _check_codes(
        "language",
        split_values(language),
        LISTING_LANGUAGE_CODES,
        _("Use the listing language codes of the API (for example en, zh-hans, zh-hant)."),
        upper=False,
    )
    incoterms = _check_codes(
        "incoterm",
        split_values(incoterm),
        set(Incoterm.values),
        _("Use Incoterms 2020 codes such as FOB, CIF or EXW."),
    )
    if price_min is not None and price_max is not None and price_min > price_max:
        raise validation_problem(
            [{"field": "price_max", "message": _("The highest price is below the lowest.")}]
        )
    filters = search.ProductFilters(
        category_id=category,
        countries=tuple(countries),
        verified_only=verified,
        languages=tuple(languages),
        incoterms=tuple(incoterms),
        moq_max=moq_max,
        price_min_usd=price_min,
        price_max_usd=price_max,
        lead_time_max=lead_time_max,
        company_id=company,
    )
    result = search.search_products(
        query=_query_text(q),
        language=_language(lang),
        filters=filters,
        sort=sort,
        page=kwargs["paging"].page,
        per_page=kwargs["paging"].page_size,
    )
    links = _Links(request)
    return _page(result, [_product_hit(links, hit) for hit in result.hits], sort=result.sort)


@router.get(
    "/companies",
    response=list[CompanyHitOut],
    summary="Search companies",
    url_name="search_companies",
)
@paged(output=SearchPageOut, **SEARCH_PAGING)
def search_companies(
    request: HttpRequest,
    q: str = Query("", description="Words in any language or script; empty lists all"),
    lang: UiLanguage | None = Query(None, description="Language of labels and names"),  # noqa: B008
    country: list[str] | None = Query(None, description="Countries (ISO 3166)"),  # noqa: B008
    verified: bool = Query(False, description="Verified companies only"),
    business_type: list[str] | None = Query(None, description="Business types"),  # noqa: B008
    **kwargs: Any,
) -> CutPage:
    countries = _check_codes(
        "country", split_values(country), COUNTRY_CODES, _("Use two-letter ISO 3166 country codes.")
    )
    types = _check_codes(
        "business_type",
        split_values(business_type),
        set(BusinessType.values),
        _("Use the business types of the API (for example manufacturer, trading_company)."),
        upper=False,
    )
    ui_language = _language(lang)
    links = _Links(request)
    result = search.search_companies(
        query=_query_text(q),
        language=ui_language,
        filters=search.CompanyFilters(
            countries=tuple(countries), verified_only=verified, business_types=tuple(types)
        ),
        page=kwargs["paging"].page,
        per_page=kwargs["paging"].page_size,
    )
    return _page(
        result,
        [
            {
                "slug": hit.company.slug,
                "name": hit.company.name_for(ui_language),
                "name_html": str(hit.name_html),
                "country": hit.company.country,
                "verified": hit.company.is_verified,
                "gold_supplier": hit.gold_badge,
                "business_types": [str(t) for t in hit.company.business_types or []],
                "main_products": hit.company.main_products,
                "url": links.company_url(hit.company.slug),
                "review_count": hit.company.review_count,
                "review_average": _optional_float(hit.company.review_average),
            }
            for hit in result.hits
        ],
    )


def _optional_float(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


@router.get(
    "/requests",
    response=list[RequestHitOut],
    summary="Search open buying requests",
    url_name="search_requests",
)
@paged(output=RequestSearchOut, **SEARCH_PAGING)
def search_requests(
    request: HttpRequest,
    filters: Query[RequestFilterQuery],
    q: str = Query("", description="Words in any language or script; empty lists all"),
    lang: UiLanguage | None = Query(  # noqa: B008
        None, description="Language of labels, and of titles read by machine translation"
    ),
    sort: Literal["relevance", "newest"] = Query("relevance"),
    **kwargs: Any,
) -> CutPage:
    ui_language = _language(lang)
    result = search.search_requests(
        query=_query_text(q),
        language=ui_language,
        filters=search.RequestFilters(
            category_id=filters.category,
            destinations=filters.destinations(),
            quantity_min=_optional_float(filters.quantity_min),
            quantity_max=_optional_float(filters.quantity_max),
            posted_within_days=filters.posted_within,
        ),
        sort=sort,
        page=kwargs["paging"].page,
        per_page=kwargs["paging"].page_size,
    )
    origin = request.build_absolute_uri("/").rstrip("/")
    return _page(
        result,
        [
            {
                "id": hit.request.pk,
                "title": hit.request.text.title,
                "title_html": str(hit.title_html),
                "language": hit.request.text.lang_tag,
                "machine_translated": hit.request.text.machine,
                "original_html": str(hit.original_html) if hit.original_html is not None else None,
                "url": origin + reverse("sourcing:request_detail", args=[hit.request.pk]),
                "category": hit.category_name,
                "category_id": hit.request.category_id,
                "quantity": decimal_text(hit.request.quantity) or "0",
                "unit": hit.request.unit,
                "destination_country": hit.request.destination_country,
                "posted_at": hit.request.created_at.isoformat(),
                "deadline": hit.request.deadline.isoformat(),
                "buyer": {
                    "name": hit.buyer_name or None,
                    "country": hit.buyer_country,
                    "business_types": [str(t) for t in hit.request.buyer.business_types or []],
                },
            }
            for hit in result.hits
        ],
        sort=result.sort,
    )


@router.get(
    "/suggest",
    response=SuggestOut,
    summary="Completions of what is being typed",
    url_name="search_suggest",
)
def suggest(
    request: HttpRequest,
    q: str = Query("", description="The start of a product title, category or company name"),
    language: UiLanguage | None = Query(None, description="zh-hant gets traditional script"),  # noqa: B008
    limit: QueryInt = Query(8, ge=1, le=20),  # noqa: B008
):
    return {"suggestions": search.suggest(_query_text(q), _language(language), limit=limit)}
