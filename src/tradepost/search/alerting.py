"""Whether a new listing clearly matches a saved search (trade alerts; ADR 0037).

A saved search is a query and filters of one kind (products, buying requests, suppliers).
A document reaches it when two things hold, both decided on the live index, one document at
a time:

1. **It is among the search's results, run now**: the search the results page runs (the same
   analysis, lexicon expansion, spelling variants and filters), restricted to this document,
   at the breadth the page would reach (`engine.find`: the narrow pass, widened while the
   search as a whole finds few).
2. **It matches clearly** (the page is forgiving; an alert must not be): the query's units
   it matches carry at least CLEAR_SHARE of the query's specificity (each unit weighs its
   inverse document frequency among documents of the kind; a unit no document holds yet
   weighs the most: it is what the searcher waits for), or, for a query of three Chinese
   characters or more, its title holds at least CHARACTERS_CLEAR of them (what a title
   shares with the query whatever the segmenter made of either).

Spelling variants never make a match clear: a misspelt word weighs like a word nobody
holds. The constants were chosen on the judged real queries of `../shared/data/relevance/`
(`tradepost bench alerts`).

The rule is stated here on the index (`compile_saved`, `clearly_matches`: the reference the
benchmark checks against) and decided at scale on token sets by `search.sketches`; whether a
document is shown now is always asked of the index (`compile_shown`, `shown_now`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tantivy import Query, Searcher

from tradepost.search.companies import _company_filter_clauses
from tradepost.search.engine import (
    COMPANIES,
    PRODUCTS,
    REQUESTS,
    DocumentKind,
    TextSearch,
    category_tree,
    combine,
    now_us,
    text_total,
)
from tradepost.search.filters import (
    CompanyFilters,
    ProductFilters,
    RequestFilters,
    parse_company_filters,
    parse_product_filters,
    parse_request_filters,
)
from tradepost.search.index import KIND_COMPANY, KIND_PRODUCT, KIND_REQUEST, Snapshot
from tradepost.search.products import _product_filter_clauses
from tradepost.search.querying import (
    NARROW,
    WIDEN_BELOW,
    all_of,
    any_of,
    filter_clause,
    term,
    unit_clauses,
    usable,
    widen,
)
from tradepost.search.requests import _request_filter_clauses
from tradepost.search.sketches import CHARACTERS_CLEAR, CLEAR_SHARE

#: The request parameters each kind of saved search keeps (the search page's filters).
FILTER_PARAMS: dict[str, tuple[str, ...]] = {
    KIND_PRODUCT: (
        "category",
        "country",
        "verified",
        "language",
        "incoterm",
        "moq_max",
        "price_min",
        "price_max",
        "lead_time_max",
    ),
    KIND_REQUEST: ("category", "destination", "quantity_min", "quantity_max"),
    KIND_COMPANY: ("country", "verified", "business_type"),
}

_KINDS: dict[str, DocumentKind] = {
    KIND_PRODUCT: PRODUCTS,
    KIND_REQUEST: REQUESTS,
    KIND_COMPANY: COMPANIES,
}


def parse_filters(kind: str, params: Mapping[str, Any]) -> Any:
    """The search's filters from saved parameters, parsed as the results page parses them."""
    if kind == KIND_PRODUCT:
        return parse_product_filters(params)
    if kind == KIND_REQUEST:
        return parse_request_filters(params)
    return parse_company_filters(params)


def _filter_clauses(kind: str, filters: Any) -> list[Query]:
    if kind == KIND_PRODUCT:
        return _product_filter_clauses(filters, category_tree(must_have=_category(filters)))
    if kind == KIND_REQUEST:
        return _request_filter_clauses(
            filters, category_tree(must_have=_category(filters)), now_us()
        )
    return _company_filter_clauses(filters)


def _unfiltered(kind: str, filters: Any) -> list[Query] | None:
    empty = {KIND_PRODUCT: ProductFilters, KIND_REQUEST: RequestFilters}.get(kind, CompanyFilters)()
    if filters == empty:
        return None
    return _filter_clauses(kind, empty)


def _category(filters: Any) -> list[int]:
    category_id = getattr(filters, "category_id", None)
    return [category_id] if category_id is not None else []


@dataclass
class SavedQuery:
    """A saved search made ready to test documents against (`compile_saved`)."""

    kind: str
    text: TextSearch
    filters: list[Query]
    unfiltered: list[Query] | None
    #: (clause, weight) of each unit, for the clear-match share.
    units: list[tuple[Query, float]]
    total_weight: float
    characters: Query | None

    @property
    def matches_everything(self) -> bool:
        """A search without words: every new document of the kind within the filters."""
        return self.text.analyzed.is_empty


def _count(s: Searcher, query: Query) -> int:
    found = s.search(query, 1, True)
    return int(found.count or 0)  # type: ignore[attr-defined]  # missing from the stubs


def compile_saved(kind: str, query: str, params: Mapping[str, Any], snap: Snapshot) -> SavedQuery:
    """`query` and the saved filter `params` of a saved search of `kind`, analysed as the
    results page analyses them, with each unit weighed on this snapshot of the index."""
    document_kind = _KINDS[kind]
    text = TextSearch.prepare(query, document_kind, snap, common_terms=kind == KIND_PRODUCT)
    filters = parse_filters(kind, params)
    clauses = _filter_clauses(kind, filters)
    only_kind = [term("kind", kind)]
    s = snap.searcher
    word_fields, gram_fields = naming_fields(document_kind)
    units = unit_clauses(
        text.analyzed.words,
        word_fields,
        gram_fields,
        expansion=text.expansion,
        too_common=text.too_common,
    )
    weighed: list[tuple[Query, float]] = []
    if units:
        documents = _count(s, all_of(only_kind))
        for _unit, clause in units:
            held = _count(s, combine(only_kind, clause))
            weighed.append((clause, math.log(1 + documents / (1 + held))))
    characters = [g for g in usable(text.analyzed.grams) if len(g) == 1]
    title_grams = next(iter(document_kind.gram_fields))
    characters_clause = (
        any_of(
            [term(title_grams, c) for c in characters],
            math.ceil(CHARACTERS_CLEAR * len(characters)),
        )
        if len(characters) >= 3
        else None
    )
    return SavedQuery(
        kind=kind,
        text=text,
        filters=clauses,
        unfiltered=_unfiltered(kind, filters),
        units=weighed,
        total_weight=sum(weight for _clause, weight in weighed),
        characters=characters_clause,
    )


#: Where a document says what it is, not where it describes it: the clear-match rule counts
#: a unit found in these fields only (a word only in a description is not a clear match).
_DESCRIBING_FIELDS = frozenset(
    {"desc_words", "cdesc_words", "body_grams", "cproducts_grams", "cdesc_grams"}
)


def naming_fields(kind: DocumentKind) -> tuple[dict[str, float], dict[str, float]]:
    """The word and gram fields of `kind` the clear-match rule looks in."""
    words = {n: w for n, w in kind.word_fields.items() if n not in _DESCRIBING_FIELDS}
    grams = {n: w for n, w in kind.gram_fields.items() if n not in _DESCRIBING_FIELDS}
    return words, grams


def _key(kind: str, object_id: int) -> str:
    return _KINDS[kind].key(object_id)


def clearly_matches(saved: SavedQuery, object_id: int, snap: Snapshot) -> bool:
    """Whether the document `object_id` of the saved search's kind is among its results,
    run now, and matches it clearly (see the module's docstring)."""
    s = snap.searcher
    document = term("key", _key(saved.kind, object_id))
    within = [document, *saved.filters]
    if not saved.matches_everything and not _clear(saved, s, within):
        return False
    return _shown(saved, s, document)


@dataclass
class ShownQuery:
    """What the results page would run for a saved search (`compile_shown`); its text
    query at each breadth made once."""

    kind: str
    text: TextSearch
    filters: list[Query]
    unfiltered: list[Query] | None
    made: dict[int, Query | None] = field(default_factory=dict)
    #: When the search was last found to have WIDEN_BELOW candidates or more at the narrow
    #: breadth (time.monotonic()): it does not widen, and counting it again is skipped for
    #: BROAD_SECONDS (a broad search stays broad as listings are added).
    broad_at: float | None = None
    #: (snapshot generation, the breadth the page reaches on it).
    breadth: tuple[int, int] | None = None

    def scored(self, breadth: int) -> Query | None:
        if breadth not in self.made:
            self.made[breadth] = self.text.scored(breadth)
        return self.made[breadth]


def compile_shown(kind: str, query: str, params: Mapping[str, Any], snap: Snapshot) -> ShownQuery:
    """The saved search as the results page runs it, ready for `shown_now`."""
    text = TextSearch.prepare(query, _KINDS[kind], snap, common_terms=kind == KIND_PRODUCT)
    filters = parse_filters(kind, params)
    return ShownQuery(kind, text, _filter_clauses(kind, filters), _unfiltered(kind, filters))


def filter_clauses(kind: str, params: Mapping[str, Any]) -> list[Query]:
    """The index clauses of a saved search's filters (with the kind's own: a published
    product, an open request within its deadline)."""
    return _filter_clauses(kind, parse_filters(kind, params))


def within_filters(kind: str, clauses: list[Query], object_id: int, snap: Snapshot) -> bool:
    """Whether the document `object_id` passes these filter clauses now."""
    document = term("key", _key(kind, object_id))
    return bool(_count(snap.searcher, combine([document, *clauses], None)))


def shown_now(saved: ShownQuery, object_id: int, snap: Snapshot) -> bool:
    """Whether the saved search, run now, shows the document `object_id` among its results."""
    document = term("key", _key(saved.kind, object_id))
    scored = saved.scored(_breadth(saved, snap))
    return bool(_count(snap.searcher, combine([document, *saved.filters], scored)))


def _clear(saved: SavedQuery, s: Searcher, within: list[Query]) -> bool:
    if saved.units and saved.total_weight > 0:
        shares = any_of([Query.const_score_query(c, w) for c, w in saved.units])
        found = s.search(combine(within, shares), 1, False).hits
        if found and found[0][0] >= CLEAR_SHARE * saved.total_weight - 1e-6:
            return True
    if saved.characters is not None:
        return _count(s, combine(within, saved.characters)) > 0
    return False


#: How long a search found broad is taken to stay broad (see `ShownQuery.broad_at`).
BROAD_SECONDS = 3600.0


def _shown(saved: ShownQuery | SavedQuery, s: Searcher, document: Query) -> bool:
    """The page's breadths, as `engine.find` widens them, for this one document."""
    breadth = NARROW
    while True:
        scored = saved.text.scored(breadth)
        if _count(s, combine([document, *saved.filters], scored)):
            return True
        if scored is None:
            return False
        total = _count(s, combine(saved.filters, filter_clause(scored)))
        wider = widen(breadth, text_total(s, total, scored, saved.unfiltered), saved.text.analyzed)
        if wider is None:
            return False
        breadth = wider


def _breadth(saved: ShownQuery, snap: Snapshot) -> int:
    """The breadth the results page reaches for this search on this snapshot (`engine.find`:
    widened while it finds few); its candidates there are exactly its results. Found once
    per snapshot, and not counted again for an hour once the search was found broad."""
    if saved.breadth is not None and saved.breadth[0] == snap.generation:
        return saved.breadth[1]
    s = snap.searcher
    breadth = NARROW
    broad = saved.broad_at is not None and time.monotonic() - saved.broad_at < BROAD_SECONDS
    while not broad:
        scored = saved.scored(breadth)
        if scored is None:
            break
        total = text_total(
            s, _count(s, combine(saved.filters, filter_clause(scored))), scored, saved.unfiltered
        )
        if breadth == NARROW and total >= WIDEN_BELOW:
            saved.broad_at = time.monotonic()
        wider = widen(breadth, total, saved.text.analyzed)
        if wider is None:
            break
        breadth = wider
    saved.breadth = (snap.generation, breadth)
    return breadth


def matching_documents(saved: SavedQuery, snap: Snapshot, limit: int) -> list[int]:
    """Every document (up to `limit`) the saved search clearly matches now, by id: the
    saved search run over the whole index (the benchmark's reference and the check that
    percolation finds the same)."""
    s = snap.searcher
    found = s.search(combine(saved.filters, None), limit, False).hits
    ids = s.fast_field_values("id", [address for _score, address in found])
    return [int(i) for i in ids if i is not None and clearly_matches(saved, int(i), snap)]
