"""Company search: suppliers whose names, main products or descriptions match a query."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from django.utils import timezone, translation
from django.utils.translation import gettext as _
from tantivy import Query

from tradepost.core.languages import (
    normalise_ui_language,
)
from tradepost.search import sources
from tradepost.search.engine import (
    COMPANIES,
    NO_MARKS,
    CardMarks,
    TextSearch,
    aggregate,
    any_term,
    find,
)
from tradepost.search.facets import country_options, term_options, verified_facet
from tradepost.search.filters import DEFAULT_PER_PAGE, CompanyFilters, bounded_page
from tradepost.search.highlight import highlight_html
from tradepost.search.index import (
    KIND_COMPANY,
    snapshot,
)
from tradepost.search.querying import (
    term,
)
from tradepost.search.results import CompanyHit, CompanySearchResult, Facet


# Companies.
def _company_filter_clauses(filters: CompanyFilters) -> list[Query]:
    clauses = [term("kind", KIND_COMPANY)]
    if filters.countries:
        clauses.append(any_term("country", filters.countries))
    if filters.verified_only:
        clauses.append(term("verified", True))
    if filters.business_types:
        clauses.append(any_term("business_types", filters.business_types))
    return clauses


def _company_facets(
    aggregation: Mapping[str, Any], filters: CompanyFilters, language: str
) -> list[Facet]:
    type_labels = sources.companies().business_types()
    business_types = term_options(
        aggregation,
        "business_types",
        selected=filters.business_types,
        param="business_type",
        label=lambda code: type_labels.get(code, code),
    )
    countries = country_options(aggregation, "country", filters.countries, "country", language)
    return [
        Facet(name="country", label=_("Country"), options=countries),
        verified_facet(aggregation, filters.verified_only),
        Facet(name="business_type", label=_("Business type"), options=business_types),
    ]


#: The company facets: counted on the search itself.
COMPANY_AGGREGATIONS = {
    "country": {"terms": {"field": "country", "size": 300}},
    "verified": {"terms": {"field": "verified", "size": 2}},
    "business_types": {"terms": {"field": "business_types", "size": 20}},
}


def search_companies(
    *,
    query: str,
    language: str,
    filters: CompanyFilters | None = None,
    page: int = 1,
    per_page: int = DEFAULT_PER_PAGE,
    with_facets: bool = True,
) -> CompanySearchResult:
    """Companies whose names, main products or descriptions match `query`."""
    started = time.perf_counter()
    language = normalise_ui_language(language)
    filters = filters or CompanyFilters()
    page, per_page = bounded_page(page, per_page)
    snap = snapshot()
    text = TextSearch.prepare(query, COMPANIES, snap)
    found = find(
        snap,
        text,
        filters=_company_filter_clauses(filters),
        unfiltered=None
        if filters == CompanyFilters()
        else _company_filter_clauses(CompanyFilters()),
        sort="relevance",
        limit=per_page,
        offset=(page - 1) * per_page,
    )
    unmatched = text.unmatched(snap.searcher, found, page=page, sort="relevance")
    with translation.override(language):
        facets: list[Facet] = []
        if with_facets:
            aggregation = aggregate(snap, found.search_query, COMPANY_AGGREGATIONS)
            facets = _company_facets(aggregation, filters, language)
        hits = _company_hits(found.ranked, found.marks, language, text.highlight_terms())
    return CompanySearchResult(
        page=page,
        per_page=per_page,
        hits=hits,
        facets=facets,
        **text.page_fields(found, unmatched, started),
    )


def _company_hits(
    ranked: list[tuple[float, int]],
    marks: dict[int, CardMarks],
    language: str,
    terms: set[str],
) -> list[CompanyHit]:
    """The page's companies in rank order (any deleted since they were indexed skipped),
    each with its badge as the index holds it."""
    by_id = sources.companies().objects([doc_id for _score, doc_id in ranked])
    today = timezone.localdate()
    return [
        CompanyHit(
            company=by_id[doc_id],
            score=score,
            name_html=highlight_html(by_id[doc_id].name_for(language), terms),
            gold_badge=marks.get(doc_id, NO_MARKS).gold_badge(today),
        )
        for score, doc_id in ranked
        if doc_id in by_id
    ]
