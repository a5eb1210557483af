"""Product search: published listings matching a query in any language or script, with
filters, facets and sorts; the page's cards loaded from the database.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from tantivy import FieldType, Query, Searcher

from tradepost.core.languages import (
    normalise_ui_language,
)
from tradepost.search import sources
from tradepost.search.documents import MAX_CATEGORY_DEPTH, CategoryTree
from tradepost.search.engine import (
    NO_MARKS,
    PRODUCTS,
    CardMarks,
    PendingCounts,
    TextSearch,
    any_term,
    bucket_counts,
    card_marks,
    category_facet_field,
    category_tree,
    combine,
    find,
    float_range,
)
from tradepost.search.facetkeys import (
    EPSILON,
    LEAD_TIME_LIMITS,
    MOQ_LIMITS,
    PRICE_BANDS,
    key_aggregations,
)
from tradepost.search.facets import (
    category_facet,
    country_options,
    cumulative_options,
    language_names,
    price_label,
    term_options,
    verified_facet,
)
from tradepost.search.filters import (
    DEFAULT_PER_PAGE,
    ProductFilters,
    bounded_page,
    normalise_sort,
)
from tradepost.search.highlight import highlight_html, matched_original
from tradepost.search.index import (
    CATEGORY_FIELDS,
    KIND_PRODUCT,
    Snapshot,
    product_key,
    schema,
    snapshot,
)
from tradepost.search.querying import (
    any_of,
    term,
)
from tradepost.search.results import Facet, FacetOption, ProductHit, ProductSearchResult

if TYPE_CHECKING:  # the catalogue's card, for the checker only (the engine imports no app)
    from tradepost.catalog.selectors import ProductCard

#: Facets where a search may select several values at once (any of them matches), and the
#: filter each one counts without ("disjunctive" facets: with Taiwan selected, the other
#: countries still show how many listings adding them would bring). Every other filter
#: still applies to their counts. The category facet lists the subcategories of the
#: selected category, which all lie inside it: its counts are the same with or without
#: the category filter, so it needs no search of its own.
DISJUNCTIVE_FACETS = {"country": "countries", "language": "languages", "incoterms": "incoterms"}


def _product_filter_clauses(
    filters: ProductFilters, tree: CategoryTree, *, leave_out: str | None = None
) -> list[Query]:
    """The clauses of `filters`; `leave_out` names a DISJUNCTIVE_FACETS facet whose own
    filter is not applied (to count that facet's options)."""
    if leave_out == "country":
        filters = replace(filters, countries=())
    elif leave_out == "language":
        filters = replace(filters, languages=())
    elif leave_out == "incoterms":
        filters = replace(filters, incoterms=())
    clauses = [term("kind", KIND_PRODUCT)]
    if filters.category_id is not None:
        node = tree.nodes.get(filters.category_id)
        if node is None or node.depth > MAX_CATEGORY_DEPTH:
            clauses.append(Query.empty_query())
        else:
            clauses.append(term(CATEGORY_FIELDS[node.depth], node.id))
    if filters.company_id is not None:
        clauses.append(term("company_id", filters.company_id))
    if filters.countries:
        clauses.append(any_term("country", filters.countries))
    if filters.verified_only:
        clauses.append(term("verified", True))
    if filters.languages:
        clauses.append(any_term("language", filters.languages))
    if filters.incoterms:
        clauses.append(any_term("incoterms", filters.incoterms))
    if filters.moq_max is not None:
        clauses.append(float_range("moq", None, filters.moq_max + EPSILON))
    if filters.price_min_usd is not None:
        clauses.append(float_range("price_max_usd", filters.price_min_usd, None))
    if filters.price_max_usd is not None:
        clauses.append(float_range("price_min_usd", None, filters.price_max_usd + EPSILON))
    if filters.lead_time_max is not None:
        clauses.append(
            Query.range_query(
                schema(), "lead_time", FieldType.Unsigned, None, max(0, filters.lead_time_max)
            )
        )
    return clauses


def _product_aggregations(category_field: str | None) -> dict[str, Any]:
    aggs: dict[str, Any] = {
        "country": {"terms": {"field": "country", "size": 300}},
        "verified": {"terms": {"field": "verified", "size": 2}},
        "language": {"terms": {"field": "language", "size": 40}},
        **key_aggregations(["incoterms", "moq", "price", "lead_time"]),
    }
    if category_field is not None:
        aggs["category"] = {"terms": {"field": category_field, "size": 500}}
    return aggs


def _product_facets(
    aggregation: Mapping[str, Any],
    filters: ProductFilters,
    tree: CategoryTree,
    language: str,
) -> list[Facet]:
    facets: list[Facet] = []
    if "category" in aggregation:
        facets.append(
            category_facet(
                bucket_counts(aggregation, "category"), tree, language, filters.category_id
            )
        )
    countries = country_options(aggregation, "country", filters.countries, "country", language)
    facets.append(Facet(name="country", label=_("Supplier country"), options=countries))
    facets.append(verified_facet(aggregation, filters.verified_only))
    names = language_names()
    languages = term_options(
        aggregation,
        "language",
        selected=filters.languages,
        param="language",
        label=lambda code: names.get(code, code),
    )
    facets.append(Facet(name="language", label=_("Listing language"), options=languages))
    incoterms = term_options(
        aggregation, "incoterms", selected=filters.incoterms, param="incoterm", label=str
    )
    incoterms.sort(key=lambda option: option.value)
    facets.append(Facet(name="incoterm", label=_("Incoterms"), options=incoterms))

    facets.append(_moq_facet(aggregation, filters))
    facets.append(_price_facet(aggregation, filters))
    facets.append(_lead_time_facet(aggregation, filters))
    return facets


def _moq_facet(aggregation: Mapping[str, Any], filters: ProductFilters) -> Facet:
    """ "At most N" minimum orders: each option counts every listing at or under it."""
    options = cumulative_options(
        aggregation,
        "moq",
        MOQ_LIMITS,
        selected=None if filters.moq_max is None else float(filters.moq_max),
        param="moq_max",
        label=lambda limit: _("At most %(quantity)s") % {"quantity": f"{limit:,}"},
    )
    return Facet(name="moq_max", label=_("Minimum order"), options=options)


def _price_facet(aggregation: Mapping[str, Any], filters: ProductFilters) -> Facet:
    options = []
    for (low, high), (_key, count) in zip(
        PRICE_BANDS, bucket_counts(aggregation, "price"), strict=False
    ):
        if count <= 0:
            continue
        params = {}
        if low is not None:
            params["price_min"] = f"{low:g}"
        if high is not None:
            params["price_max"] = f"{high:g}"
        options.append(
            FacetOption(
                value=f"{'' if low is None else f'{low:g}'}-{'' if high is None else f'{high:g}'}",
                label=price_label(low, high),
                count=count,
                selected=filters.price_min_usd == low and filters.price_max_usd == high,
                params=params,
            )
        )
    return Facet(name="price", label=_("Price (US$)"), options=options)


def _lead_time_facet(aggregation: Mapping[str, Any], filters: ProductFilters) -> Facet:
    """ "Within N days": each option counts every listing shipping in that time or less."""
    options = cumulative_options(
        aggregation,
        "lead_time",
        LEAD_TIME_LIMITS,
        selected=filters.lead_time_max,
        param="lead_time_max",
        label=lambda days: (
            ngettext("Within %(days)d day", "Within %(days)d days", days) % {"days": days}
        ),
    )
    return Facet(name="lead_time_max", label=_("Lead time"), options=options)


def _hydrate_products(
    ranked: list[tuple[float, int]], language: str
) -> list[tuple[float, ProductCard]]:
    """The page's cards, in rank order; listings the index still holds but the database no
    longer publishes are skipped (`sources.ProductSource.cards`)."""
    if not ranked:
        return []
    cards = sources.products().cards([doc_id for _score, doc_id in ranked], language)
    return [(score, cards[doc_id]) for score, doc_id in ranked if doc_id in cards]


def _product_facet_requests(
    search_query: Query, scored: Query | None, filters: ProductFilters, tree: CategoryTree
) -> list[tuple[Query, dict[str, Any]]]:
    """The aggregations that count a product search's facets, each with its query. A facet
    whose filter is set and that may take several values (DISJUNCTIVE_FACETS) is counted by
    a search without its own filter; the others are counted on the search itself."""
    aggregations = _product_aggregations(category_facet_field(filters.category_id, tree))
    selected = [
        name for name, attribute in DISJUNCTIVE_FACETS.items() if getattr(filters, attribute)
    ]
    requests = [
        (search_query, {name: spec for name, spec in aggregations.items() if name not in selected})
    ]
    for name in selected:
        query = combine(_product_filter_clauses(filters, tree, leave_out=name), scored)
        requests.append((query, {name: aggregations[name]}))
    return requests


@dataclass
class _ProductPlan:
    """A product search turned into index queries (before anything runs)."""

    text: TextSearch
    filters: ProductFilters
    tree: CategoryTree
    snap: Snapshot
    filter_clauses: list[Query]

    def unfiltered(self) -> list[Query] | None:
        """The clauses that only say "a published product" when the user set a filter."""
        if self.filters == ProductFilters():
            return None
        return _product_filter_clauses(ProductFilters(), self.tree)


def _plan_products(query: Any, filters: ProductFilters) -> _ProductPlan:
    must_have = [filters.category_id] if filters.category_id is not None else []
    tree = category_tree(must_have=must_have)
    snap = snapshot()
    return _ProductPlan(
        text=TextSearch.prepare(query, PRODUCTS, snap, common_terms=True),
        filters=filters,
        tree=tree,
        snap=snap,
        filter_clauses=_product_filter_clauses(filters, tree),
    )


def product_search_requests(
    query: str, filters: ProductFilters | None = None
) -> tuple[Query, list[tuple[Query, dict[str, Any]]]]:
    """What `search_products` (relevance order, with facets) asks the index for `query`: the
    search query and each facet aggregation with its query. The benchmark runs these
    straight on tantivy as its reference."""
    plan = _plan_products(query, filters or ProductFilters())
    scored = plan.text.scored()
    search_query = combine(plan.filter_clauses, scored)
    return search_query, _product_facet_requests(search_query, scored, plan.filters, plan.tree)


def search_products(
    *,
    query: str,
    language: str,
    filters: ProductFilters | None = None,
    sort: str = "relevance",
    page: int = 1,
    per_page: int = DEFAULT_PER_PAGE,
    with_facets: bool = True,
) -> ProductSearchResult:
    """Published products matching `query` (any language or script; empty = all) within
    `filters`, one page in `sort` order, with facet counts and labels in `language`. The
    facets are counted beside the search (`PendingCounts`) while the page is found and
    loaded."""
    started = time.perf_counter()
    language = normalise_ui_language(language)
    filters = filters or ProductFilters()
    sort = normalise_sort(sort)
    page, per_page = bounded_page(page, per_page)
    plan = _plan_products(query, filters)
    pending: list[PendingCounts] = []

    def count_facets(search_query: Query, scored: Query | None) -> None:
        if with_facets:
            requests = _product_facet_requests(search_query, scored, filters, plan.tree)
            pending[:] = [PendingCounts(plan.snap, requests)]

    found = find(
        plan.snap,
        plan.text,
        filters=plan.filter_clauses,
        unfiltered=plan.unfiltered(),
        sort=sort,
        limit=per_page,
        offset=(page - 1) * per_page,
        before_run=count_facets,
    )
    unmatched = plan.text.unmatched(plan.snap.searcher, found, page=page, sort=sort)
    with translation.override(language):
        terms = plan.text.highlight_terms()
        hits = [
            ProductHit(
                product=card.product,
                card=card,
                score=score,
                title_html=highlight_html(card.text.title, terms),
                original_html=matched_original(
                    card.text.title,
                    card.product.title,
                    terms,
                    machine=getattr(card.text, "machine", False),
                ),
            )
            for score, card in _hydrate_products(found.ranked, language)
        ]
        _attach_marks(plan.snap.searcher, hits, found.marks)
        facets = [
            facet
            for counts in pending
            for facet in _product_facets(counts.result(), filters, plan.tree, language)
        ]
    return ProductSearchResult(
        page=page,
        per_page=per_page,
        sort=sort,
        hits=hits,
        facets=facets,
        **plan.text.page_fields(found, unmatched, started),
    )


def _attach_marks(s: Searcher, hits: list[ProductHit], known: dict[int, CardMarks]) -> None:
    """The suppliers' response rates and Gold Supplier badges for the page's cards, as the
    index holds them (the rate is the value that ranked them; no database query): read with
    the page's ids, else (the "newest" order) looked up by each listing's unique key."""
    if not hits:
        return
    marks = dict(known)
    missing = [hit.product.pk for hit in hits if hit.product.pk not in marks]
    if missing:
        query = any_of([term("key", product_key(pk)) for pk in missing])
        found = s.search(query, len(missing) * 2, False).hits
        marks.update(card_marks(s, [address for _score, address in found])[1])
    today = timezone.localdate()
    for hit in hits:
        mark = marks.get(hit.product.pk, NO_MARKS)
        rate = mark.response_rate
        hit.response_rate_percent = None if rate is None else round(float(rate) * 100)
        hit.gold_badge = mark.gold_badge(today)
