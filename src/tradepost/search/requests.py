"""Buying-request search: open requests (deadline ahead) matching a query across languages."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from tantivy import Query

from tradepost.core.countries import country_name
from tradepost.core.languages import (
    normalise_ui_language,
)
from tradepost.search import sources
from tradepost.search.documents import MAX_CATEGORY_DEPTH, CategoryTree
from tradepost.search.engine import (
    DAY_US,
    REQUESTS,
    Found,
    TextSearch,
    aggregate,
    any_term,
    bucket_counts,
    category_facet_field,
    category_tree,
    combine,
    find,
    float_range,
    int_range,
    now_us,
    range_spec,
)
from tradepost.search.facetkeys import (
    EPSILON,
)
from tradepost.search.facets import category_facet, country_options
from tradepost.search.filters import (
    DEFAULT_PER_PAGE,
    POSTED_WITHIN_DAYS,
    RequestFilters,
    bounded_page,
    normalise_request_sort,
)
from tradepost.search.highlight import highlight_html, matched_original
from tradepost.search.index import (
    CATEGORY_FIELDS,
    KIND_REQUEST,
    PUBLISHED_SORT_FIELD,
    Snapshot,
    snapshot,
)
from tradepost.search.querying import (
    term,
)
from tradepost.search.results import Facet, FacetOption, RequestHit, RequestSearchResult


def _request_filter_clauses(
    filters: RequestFilters, tree: CategoryTree, now_us: int, *, leave_out: str | None = None
) -> list[Query]:
    """Open requests whose deadline is ahead, narrowed by `filters`."""
    clauses = [term("kind", KIND_REQUEST), int_range("deadline_us", now_us + 1, None)]
    if filters.category_id is not None:
        node = tree.nodes.get(filters.category_id)
        if node is None or node.depth > MAX_CATEGORY_DEPTH:
            clauses.append(Query.empty_query())
        else:
            clauses.append(term(CATEGORY_FIELDS[node.depth], node.id))
    if filters.destinations and leave_out != "destination":
        clauses.append(any_term("country", filters.destinations))
    if filters.quantity_min is not None:
        clauses.append(float_range("quantity", filters.quantity_min - EPSILON, None))
    if filters.quantity_max is not None:
        clauses.append(float_range("quantity", None, filters.quantity_max + EPSILON))
    if filters.posted_within_days is not None:
        since = now_us - filters.posted_within_days * DAY_US
        clauses.append(int_range(PUBLISHED_SORT_FIELD, since, None))
    return clauses


def _request_facets(
    counts: Mapping[str, Any],
    filters: RequestFilters,
    tree: CategoryTree,
    language: str,
    now_us: int,
) -> list[Facet]:
    facets: list[Facet] = []
    if "category" in counts:
        category = category_facet(
            bucket_counts(counts, "category"), tree, language, filters.category_id
        )
        facets.append(category)
    destinations = country_options(
        counts, "destination", filters.destinations, "destination", language
    )
    destinations.sort(key=lambda option: (-option.count, option.label))
    facets.append(Facet(name="destination", label=_("Destination"), options=destinations))
    # Disjoint time buckets; "posted within N days" sums those starting at or after N
    # days ago.
    buckets = counts.get("posted", {}).get("buckets", [])
    options = []
    for days in POSTED_WITHIN_DAYS:
        since = now_us - days * DAY_US
        running = sum(
            int(bucket.get("doc_count", 0))
            for bucket in buckets
            if bucket.get("from") is not None and float(bucket["from"]) >= since - 1
        )
        if running or filters.posted_within_days == days:
            options.append(
                FacetOption(
                    value=str(days),
                    label=ngettext(
                        "Posted in the last day", "Posted in the last %(days)d days", days
                    )
                    % {"days": days},
                    count=running,
                    selected=filters.posted_within_days == days,
                    params={"posted_within": str(days)},
                )
            )
    facets.append(Facet(name="posted_within", label=_("Posted"), options=options))
    return facets


def _request_aggregations(category_field: str | None, now_us: int) -> dict[str, Any]:
    bounds: list[tuple[float | None, float | None]] = []
    high: float | None = None
    for days in POSTED_WITHIN_DAYS:
        low = float(now_us - days * DAY_US)
        bounds.append((low, high))
        high = low
    aggs: dict[str, Any] = {
        "destination": {"terms": {"field": "country", "size": 300}},
        "posted": range_spec(PUBLISHED_SORT_FIELD, bounds),
    }
    if category_field is not None:
        aggs["category"] = {"terms": {"field": category_field, "size": 500}}
    return aggs


def _hydrate_requests(
    ranked: list[tuple[float, int]], language: str, terms: set[str]
) -> list[RequestHit]:
    """The page's requests in rank order; any no longer open (or past the deadline) that
    the index still holds are skipped."""
    if not ranked:
        return []
    loaded = sources.requests().objects([doc_id for _score, doc_id in ranked], language)
    type_labels = sources.companies().business_types()
    hits = []
    for score, doc_id in ranked:
        found = loaded.get(doc_id)
        if found is None:
            continue
        buyer = found.buyer
        hits.append(
            RequestHit(
                request=found,
                score=score,
                title_html=highlight_html(found.text.title, terms),
                original_html=matched_original(
                    found.text.title, found.title, terms, machine=found.text.machine
                ),
                category_name=found.category.name_for(language),
                buyer_country=buyer.country,
                buyer_country_name=country_name(buyer.country, language),
                buyer_business_types=[
                    type_labels.get(str(t), str(t)) for t in buyer.business_types or []
                ],
                buyer_name=buyer.name_for(language) if found.reveal_identity else "",
            )
        )
    return hits


def search_requests(
    *,
    query: str,
    language: str,
    filters: RequestFilters | None = None,
    sort: str = "relevance",
    page: int = 1,
    per_page: int = DEFAULT_PER_PAGE,
    with_facets: bool = True,
) -> RequestSearchResult:
    """Open buying requests (deadline ahead) matching `query` in any language or script,
    across languages through the lexicon like products, one page in `sort` order
    ("relevance" or "newest"; without words, the newest first)."""
    started = time.perf_counter()
    language = normalise_ui_language(language)
    filters = filters or RequestFilters()
    sort = normalise_request_sort(sort)
    page, per_page = bounded_page(page, per_page)
    must_have = [filters.category_id] if filters.category_id is not None else []
    tree = category_tree(must_have=must_have)
    moment = now_us()
    snap = snapshot()
    text = TextSearch.prepare(query, REQUESTS, snap)
    found = find(
        snap,
        text,
        filters=_request_filter_clauses(filters, tree, moment),
        unfiltered=(
            None
            if filters == RequestFilters()
            else _request_filter_clauses(RequestFilters(), tree, moment)
        ),
        sort=sort,
        sort_without_text="newest",
        limit=per_page,
        offset=(page - 1) * per_page,
    )
    unmatched = text.unmatched(snap.searcher, found, page=page, sort=sort)
    with translation.override(language):
        facets: list[Facet] = []
        if with_facets:
            counts = _request_counts(snap, found, filters, tree, moment)
            facets = _request_facets(counts, filters, tree, language, moment)
        hits = _hydrate_requests(found.ranked, language, text.highlight_terms())
    return RequestSearchResult(
        page=page,
        per_page=per_page,
        sort=sort,
        hits=hits,
        facets=facets,
        **text.page_fields(found, unmatched, started),
    )


def _request_counts(
    snap: Snapshot, found: Found, filters: RequestFilters, tree: CategoryTree, moment: int
) -> dict[str, Any]:
    """The facet counts of a request search; destinations are counted without their own
    filter (any of them may be added)."""
    aggregations = _request_aggregations(category_facet_field(filters.category_id, tree), moment)
    counts = dict(
        aggregate(
            snap,
            found.search_query,
            {k: v for k, v in aggregations.items() if k != "destination"},
        )
    )
    destination_query = combine(
        _request_filter_clauses(filters, tree, moment, leave_out="destination"), found.scored
    )
    counts.update(aggregate(snap, destination_query, {"destination": aggregations["destination"]}))
    return counts
