"""The filters, sorts and page bounds of the three searches (products, companies, buying
requests), as the search page and the API parse them from a request's parameters.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from tradepost.core.countries import COUNTRY_CODES
from tradepost.core.incoterms import Incoterm
from tradepost.core.languages import (
    LISTING_LANGUAGE_CODES,
)
from tradepost.search import sources

SORTS = ("relevance", "newest", "price_asc", "price_desc")


DEFAULT_PER_PAGE = 20


MAX_PER_PAGE = 100


#: Pages beyond this are not served (a deeper offset costs more than it is worth).
MAX_PAGE = 100


# Filters.
@dataclass(frozen=True)
class ProductFilters:
    """What a product search is narrowed to. Every field is optional; several values of one
    field (countries, languages, Incoterms) mean any of them."""

    category_id: int | None = None
    countries: tuple[str, ...] = ()
    verified_only: bool = False
    languages: tuple[str, ...] = ()
    incoterms: tuple[str, ...] = ()
    moq_max: float | None = None
    price_min_usd: float | None = None
    price_max_usd: float | None = None
    lead_time_max: int | None = None
    company_id: int | None = None


@dataclass(frozen=True)
class CompanyFilters:
    countries: tuple[str, ...] = ()
    verified_only: bool = False
    business_types: tuple[str, ...] = ()


def param_values(params: Mapping[str, Any], name: str) -> list[str]:
    getlist = getattr(params, "getlist", None)
    raw = getlist(name) if getlist is not None else params.get(name)
    if raw is None:
        return []
    items = raw if isinstance(raw, list | tuple) else [raw]
    out: list[str] = []
    for item in items:
        if isinstance(item, str):
            out.extend(part.strip() for part in item.split(",") if part.strip())
    return out[:50]


def param_number(params: Mapping[str, Any], name: str) -> float | None:
    values = param_values(params, name)
    if not values:
        return None
    try:
        number = float(Decimal(values[0][:30]))
    except (InvalidOperation, ValueError):
        return None
    if not math.isfinite(number) or number < 0 or number > 1e15:
        return None
    return number


def param_identifier(params: Mapping[str, Any], name: str) -> int | None:
    values = param_values(params, name)
    if not values or not values[0].isdigit() or len(values[0]) > 18:
        return None
    return int(values[0])


def param_flag(params: Mapping[str, Any], name: str) -> bool:
    values = param_values(params, name)
    return bool(values) and values[0].lower() in {"1", "true", "yes", "on"}


def clean_countries(values: Sequence[Any]) -> tuple[str, ...]:
    codes = (v.upper() for v in values if isinstance(v, str))
    return tuple(dict.fromkeys(c for c in codes if c in COUNTRY_CODES))


def clean_languages(values: Sequence[Any]) -> tuple[str, ...]:
    codes = (v.lower() for v in values if isinstance(v, str))
    return tuple(dict.fromkeys(c for c in codes if c in LISTING_LANGUAGE_CODES))


def clean_incoterms(values: Sequence[Any]) -> tuple[str, ...]:
    codes = (v.upper() for v in values if isinstance(v, str))
    return tuple(dict.fromkeys(c for c in codes if c in Incoterm.values))


def clean_business_types(values: Sequence[Any]) -> tuple[str, ...]:
    known = sources.companies().business_types()
    return tuple(dict.fromkeys(v for v in values if isinstance(v, str) and v in known))


def parse_product_filters(params: Mapping[str, Any]) -> ProductFilters:
    """Filters from request parameters (a QueryDict or a dict). Unknown or malformed values
    are dropped, never an error: `category`, `country` (repeatable or comma separated),
    `verified`, `language`, `incoterm`, `moq_max`, `price_min`, `price_max` (US dollars),
    `lead_time_max` (days), `company`."""
    lead_time = param_number(params, "lead_time_max")
    return ProductFilters(
        category_id=param_identifier(params, "category"),
        countries=clean_countries(param_values(params, "country")),
        verified_only=param_flag(params, "verified"),
        languages=clean_languages(param_values(params, "language")),
        incoterms=clean_incoterms(param_values(params, "incoterm")),
        moq_max=param_number(params, "moq_max"),
        price_min_usd=param_number(params, "price_min"),
        price_max_usd=param_number(params, "price_max"),
        lead_time_max=int(lead_time) if lead_time is not None else None,
        company_id=param_identifier(params, "company"),
    )


def parse_company_filters(params: Mapping[str, Any]) -> CompanyFilters:
    """`country`, `verified`, `business_type` from request parameters."""
    return CompanyFilters(
        countries=clean_countries(param_values(params, "country")),
        verified_only=param_flag(params, "verified"),
        business_types=clean_business_types(param_values(params, "business_type")),
    )


def normalise_sort(sort: Any) -> str:
    return sort if isinstance(sort, str) and sort in SORTS else "relevance"


def bounded_page(page: Any, per_page: Any) -> tuple[int, int]:
    try:
        page = int(page)
    except (TypeError, ValueError):
        page = 1
    try:
        per_page = int(per_page)
    except (TypeError, ValueError):
        per_page = DEFAULT_PER_PAGE
    return min(max(page, 1), MAX_PAGE), min(max(per_page, 1), MAX_PER_PAGE)


def clean_query(query: Any) -> str:
    return query if isinstance(query, str) else ""


# Buying requests.
REQUEST_SORTS = ("relevance", "newest")


#: "Posted within N days" choices, and the most days asked (ten years: a larger value is that).
POSTED_WITHIN_DAYS = (1, 7, 30)
MAX_POSTED_WITHIN_DAYS = 3650


@dataclass(frozen=True)
class RequestFilters:
    """`category` (and its subcategories), `destination` countries (any of them), quantity
    between `quantity_min` and `quantity_max`, posted within `posted_within_days`."""

    category_id: int | None = None
    destinations: tuple[str, ...] = ()
    quantity_min: float | None = None
    quantity_max: float | None = None
    posted_within_days: int | None = None


def parse_request_filters(params: Mapping[str, Any]) -> RequestFilters:
    """Filters from request parameters; malformed values are dropped, never an error."""
    days = param_number(params, "posted_within")
    return RequestFilters(
        category_id=param_identifier(params, "category"),
        destinations=clean_countries(param_values(params, "destination")),
        quantity_min=param_number(params, "quantity_min"),
        quantity_max=param_number(params, "quantity_max"),
        posted_within_days=min(int(days), MAX_POSTED_WITHIN_DAYS) if days and days >= 1 else None,
    )


def normalise_request_sort(sort: Any) -> str:
    return sort if isinstance(sort, str) and sort in REQUEST_SORTS else "relevance"
