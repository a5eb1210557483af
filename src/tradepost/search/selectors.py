"""Search reads, as the web pages and the API call them: products, companies and buying
requests with filters, facets and sorts; suggestions.

The index answers which ids match, how many, and the facet counts; the database then gives
the objects of the page (rank order kept), so what is shown is always the database's current
state. Listings the index still holds but the database no longer publishes are skipped.

The pieces live in their own modules: `filters` (parameters, sorts, page bounds), `engine`
(what every search shares: caches, expansion, running a page, widening, facet counting),
`facets` (facet labels), `products`, `companies`, `requests` (one pipeline each over
`engine.TextSearch`), `suggest` and `results` (what a search returns).
"""

from __future__ import annotations

from tradepost.search.companies import search_companies
from tradepost.search.documents import CategoryInfo
from tradepost.search.engine import category_tree, clear_caches, expand, forget_facet_counts
from tradepost.search.filters import (
    DEFAULT_PER_PAGE,
    MAX_PAGE,
    MAX_PER_PAGE,
    POSTED_WITHIN_DAYS,
    REQUEST_SORTS,
    SORTS,
    CompanyFilters,
    ProductFilters,
    RequestFilters,
    normalise_request_sort,
    normalise_sort,
    parse_company_filters,
    parse_product_filters,
    parse_request_filters,
)
from tradepost.search.products import product_search_requests, search_products
from tradepost.search.requests import search_requests
from tradepost.search.results import (
    CompanyHit,
    CompanySearchResult,
    Facet,
    FacetOption,
    ProductHit,
    ProductSearchResult,
    RequestHit,
    RequestSearchResult,
    SearchPage,
)
from tradepost.search.suggest import suggest


def warm_up() -> None:
    """Load the analysers, the glossary and the index now rather than on the first search
    (a serving process can call this once it starts)."""
    search_products(query="warm up 预热", language="en", per_page=1)
    suggest("wa", "en")


__all__ = [
    "DEFAULT_PER_PAGE",
    "MAX_PAGE",
    "MAX_PER_PAGE",
    "POSTED_WITHIN_DAYS",
    "REQUEST_SORTS",
    "SORTS",
    "CategoryInfo",
    "CompanyFilters",
    "CompanyHit",
    "CompanySearchResult",
    "Facet",
    "FacetOption",
    "ProductFilters",
    "ProductHit",
    "ProductSearchResult",
    "RequestFilters",
    "RequestHit",
    "RequestSearchResult",
    "SearchPage",
    "category_tree",
    "clear_caches",
    "expand",
    "forget_facet_counts",
    "normalise_request_sort",
    "normalise_sort",
    "parse_company_filters",
    "parse_product_filters",
    "parse_request_filters",
    "product_search_requests",
    "search_companies",
    "search_products",
    "search_requests",
    "suggest",
    "warm_up",
]
