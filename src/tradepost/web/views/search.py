"""The search results page: products (default tab), companies or buying requests, with
facets, sort and pages.

The view parses the request, calls the search service once and renders what it returns;
the only work done here is building the links that add or remove one facet value while
keeping every other parameter of the current search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from tradepost.catalog.showcase_selectors import search_showcase
from tradepost.core.languages import normalise_ui_language
from tradepost.insights.counting import mark_search_impressions
from tradepost.search import selectors as search
from tradepost.search.selectors import Facet
from tradepost.web.badges import gold_ids
from tradepost.web.pagination import Page, cut_page, page_number

TABS = ("products", "companies", "requests")
#: Longer queries are cut here (nobody types more; the service copes either way).
MAX_QUERY_LENGTH = 200
#: Facets where several values may be selected at once (any of them matches).
MULTI_VALUE = frozenset({"country", "language", "incoterm", "business_type", "destination"})
#: Parameters a facet link may change; every other one is kept as it is.
FACET_PARAMS = (
    "category",
    "country",
    "verified",
    "language",
    "incoterm",
    "moq_max",
    "price_min",
    "price_max",
    "lead_time_max",
    "business_type",
    "destination",
    "quantity_min",
    "quantity_max",
    "posted_within",
)
#: Ranges: their two ends count as one filter.
RANGE_PAIRS = (frozenset({"price_min", "price_max"}), frozenset({"quantity_min", "quantity_max"}))
RANGE_PARAMS = frozenset().union(*RANGE_PAIRS)
#: Parameters kept in links (anything else in the URL is dropped).
KEPT_PARAMS = ("q", "tab", "sort", *FACET_PARAMS)


@dataclass
class FacetLink:
    label: str
    count: int
    selected: bool
    href: str


@dataclass
class FacetView:
    name: str
    label: str
    options: list[FacetLink]


@dataclass
class Crumb:
    label: str
    href: str


def _language() -> str:
    return normalise_ui_language(get_language())


def _clean_text(value: str) -> str:
    """The query as a visitor can see it again: no control characters (a browser turns
    them into nothing or garbage), cut to a sane length."""
    cleaned = "".join(ch for ch in value if ch.isprintable() or ch == " ")
    return cleaned.strip()[:MAX_QUERY_LENGTH]


def _current(request: HttpRequest) -> dict[str, list[str]]:
    """The search's parameters as lists of values (comma-separated values split)."""
    current: dict[str, list[str]] = {}
    for name in KEPT_PARAMS:
        values: list[str] = []
        for raw in request.GET.getlist(name)[:20]:
            if name in MULTI_VALUE:
                values.extend(part.strip() for part in raw.split(",") if part.strip())
            elif raw.strip():
                values.append(raw.strip())
        if name in MULTI_VALUE:
            current[name] = list(dict.fromkeys(values))[:20]
        elif values:
            current[name] = values[:1]
    return {name: values for name, values in current.items() if values}


def _href(params: dict[str, list[str]]) -> str:
    pairs = [(name, value) for name, values in params.items() for value in values]
    return "?" + urlencode(pairs) if pairs else "?"


def _toggle(current: dict[str, list[str]], option: search.FacetOption) -> str:
    """The link that selects `option` (or unselects it when it is selected)."""
    params = {name: list(values) for name, values in current.items()}
    params.pop("page", None)
    if option.selected:
        for name, value in option.params.items():
            if name in MULTI_VALUE:
                params[name] = [v for v in params.get(name, []) if v.upper() != value.upper()]
            else:
                params.pop(name, None)
        # A price band sets both bounds; unselecting it clears both.
        if "price_min" in option.params or "price_max" in option.params:
            params.pop("price_min", None)
            params.pop("price_max", None)
    else:
        if "price_min" in option.params or "price_max" in option.params:
            params.pop("price_min", None)
            params.pop("price_max", None)
        for name, value in option.params.items():
            if name in MULTI_VALUE:
                params[name] = [*params.get(name, []), value]
            else:
                params[name] = [value]
    return _href({name: values for name, values in params.items() if values})


def _facet_views(facets: list[Facet], current: dict[str, list[str]]) -> list[FacetView]:
    return [
        FacetView(
            name=facet.name,
            label=facet.label,
            options=[
                FacetLink(
                    label=option.label,
                    count=option.count,
                    selected=option.selected,
                    href=_toggle(current, option),
                )
                for option in facet.options
            ],
        )
        for facet in facets
        if facet.options
    ]


def _without(current: dict[str, list[str]], *names: str) -> str:
    return _href({name: values for name, values in current.items() if name not in names})


def _category_path(
    current: dict[str, list[str]], category_id: int | None, language: str
) -> list[Crumb]:
    """The selected category and its ancestors as links (each narrows to that level)."""
    if category_id is None:
        return []
    tree = search.category_tree(must_have=[category_id])
    crumbs = []
    for node in tree.lineage(category_id):
        params = {name: values for name, values in current.items() if name != "category"}
        params["category"] = [str(node.id)]
        crumbs.append(Crumb(label=node.name_for(language), href=_href(params)))
    return crumbs


def _pages(result: Any, current: dict[str, list[str]], asked: int) -> Page[Any]:
    """The result's page for the shared pagination links (and, past the end, the way back),
    which keep the search's other parameters."""
    return cut_page(
        result.hits,
        number=asked,
        count=result.total,
        per_page=result.per_page,
        max_page=search.MAX_PAGE,
        params=[(name, value) for name, values in current.items() for value in values],
    )


def search_page(request: HttpRequest) -> HttpResponse:
    language = _language()
    query = _clean_text(request.GET.get("q", ""))
    tab = request.GET.get("tab", "products")
    tab = tab if tab in TABS else "products"
    current = _current(request)
    if query:
        current["q"] = [query]
    else:
        current.pop("q", None)
    # Past the end the engine answers no hits and the total; it serves search.MAX_PAGE pages.
    asked = page_number(request)
    page = min(asked, search.MAX_PAGE)
    context: dict[str, Any] = {"search_query": query, "search_tab": tab}

    searches = {
        "requests": _request_results,
        "companies": _company_results,
        "products": _product_results,
    }
    result, tab_context = searches[tab](
        request, query=query, language=language, page=page, current=current
    )
    if asked > result.page:
        # Above the deepest page the engine serves it answers that page: this one is past
        # the end (web.pagination), it shows no hits.
        result.hits = []
    context.update(tab_context)
    context.update(
        {
            "result": result,
            "selected_filter_count": _selected_filter_count(current),
            "facets": _facet_views(result.facets, current),
            "pages": _pages(result, current, asked),
            **_tab_links(query),
        }
    )
    context["keyword_page"] = _keyword_page(request, query=query, tab=tab, total=result.total)
    response = render(request, "search/results.html", context)
    if not context["keyword_page"]:
        response["X-Robots-Tag"] = "noindex"
    if tab == "products":
        # The words of the query count for each company whose listings this page shows.
        mark_search_impressions(
            response,
            company_ids=[hit.product.company_id for hit in result.hits],
            query=query,
        )
    return response


def _tab_links(query: str) -> dict[str, str]:
    """The same search on each tab."""
    words = {"q": [query]} if query else {}
    return {
        "products_tab_url": _href(words),
        "companies_tab_url": _href({**words, "tab": ["companies"]}),
        "requests_tab_url": _href({**words, "tab": ["requests"]}),
    }


def _request_results(request: HttpRequest, **common: Any) -> tuple[Any, dict[str, Any]]:
    return _sorted_results(
        search.parse_request_filters(request.GET),
        sort=search.normalise_request_sort(request.GET.get("sort")),
        run=search.search_requests,
        sort_options=_sort_labels()[:2],
        kept=("q", "tab", "sort"),
        **common,
    )


def _company_results(
    request: HttpRequest,
    *,
    query: str,
    language: str,
    page: int,
    current: dict[str, list[str]],
) -> tuple[Any, dict[str, Any]]:
    filters = search.parse_company_filters(request.GET)
    result = search.search_companies(query=query, language=language, filters=filters, page=page)
    context = {
        "clear_filters_url": _href(
            {name: current[name] for name in ("q", "tab") if name in current}
        ),
        "has_filters": filters != search.CompanyFilters(),
    }
    return result, context


def _product_results(request: HttpRequest, **common: Any) -> tuple[Any, dict[str, Any]]:
    filters = search.parse_product_filters(request.GET)
    result, context = _sorted_results(
        filters,
        sort=search.normalise_sort(request.GET.get("sort")),
        run=search.search_products,
        sort_options=_sort_labels(),
        kept=("q", "sort"),
        **common,
    )
    if result.page == 1:
        # The paid showcase: its own labelled block above the results, which it leaves as
        # they are (ADR 0026).
        context["showcase_cards"] = search_showcase(
            language=common["language"], query=common["query"], category_id=filters.category_id
        )
        context["gold_ids"] = gold_ids(cards=context["showcase_cards"])
    return result, context


def _sorted_results(
    filters: search.ProductFilters | search.RequestFilters,
    *,
    sort: str,
    run: Callable[..., Any],
    sort_options: list[tuple[str, str]],
    kept: tuple[str, ...],
    query: str,
    language: str,
    page: int,
    current: dict[str, list[str]],
) -> tuple[Any, dict[str, Any]]:
    """The results of a tab that sorts and filters by category (products and requests), with
    its sort menu, category path and the links that clear filters."""
    result = run(query=query, language=language, filters=filters, sort=sort, page=page)
    context = {
        "sort": sort,
        "sort_options": sort_options,
        "sort_hidden": [
            (name, value)
            for name, values in current.items()
            if name not in ("sort", "page")
            for value in values
        ],
        "category_path": _category_path(current, filters.category_id, language),
        "clear_category_url": _without(current, "category"),
        "clear_filters_url": _href({name: current[name] for name in kept if name in current}),
        "has_filters": filters != type(filters)(),
    }
    return result, context


#: The longest words a keyword page is indexed for.
KEYWORD_PAGE_MAX_LENGTH = 60


def _keyword_page(request: HttpRequest, *, query: str, tab: str, total: int) -> str:
    """The words, when this page is the plain keyword page search engines may index (the
    products found for some words: no filter, sort or page number, at least one result);
    "" for every other search, which stays `noindex` (filter combinations are endless)."""
    plain = set(request.GET) == {"q"} and tab == "products"
    if plain and total > 0 and 0 < len(query) <= KEYWORD_PAGE_MAX_LENGTH:
        return query
    return ""


def _selected_filter_count(current: dict[str, list[str]]) -> int:
    """How many filters the search has (a price or quantity range counts once), for the
    "Filters (n selected)" disclosure."""
    names = {name for name in FACET_PARAMS if current.get(name)}
    count = sum(len(current[name]) for name in names - RANGE_PARAMS)
    return count + sum(1 for pair in RANGE_PAIRS if names & pair)


def _sort_labels() -> list[tuple[str, str]]:
    return [
        ("relevance", _("Best match")),
        ("newest", _("Newest")),
        ("price_asc", _("Price: low to high")),
        ("price_desc", _("Price: high to low")),
    ]
