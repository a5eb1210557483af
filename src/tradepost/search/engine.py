"""The pieces every search shares: the category tree and facet-count caches, the query's
cross-lingual expansion, running one page in an order (relevance, newest, price), the words
the best result lacks, and the facet counting beside the search.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date
from typing import Any

from tantivy import FieldType, Occur, Order, Query, Searcher

from tradepost.search.analysis import AnalyzedQuery, analyze_query
from tradepost.search.documents import MAX_CATEGORY_DEPTH, CategoryTree
from tradepost.search.facetkeys import (
    decode,
)
from tradepost.search.filters import clean_query
from tradepost.search.glossary import translate_words
from tradepost.search.index import (
    CATEGORY_FIELDS,
    COMPANY_GRAM_FIELDS,
    COMPANY_WORD_FIELDS,
    PRODUCT_GRAM_FIELDS,
    PRODUCT_WORD_FIELDS,
    PUBLISHED_SORT_FIELD,
    REQUEST_GRAM_FIELDS,
    REQUEST_WORD_FIELDS,
    Snapshot,
    company_key,
    product_key,
    request_key,
    schema,
)
from tradepost.search.querying import (
    NARROW,
    WIDEN_BELOW,
    CommonTerms,
    Expansion,
    FuzzyTerm,
    Translation,
    all_of,
    any_of,
    filter_clause,
    fuzzy_terms,
    term,
    text_query,
    unit_clauses,
    unit_label,
    usable,
    widen,
)

_tree_lock = threading.Lock()
_tree_cache: tuple[float, CategoryTree] | None = None


#: Seconds the in-process copy of the category tree is trusted (renames show up after this).
CATEGORY_TREE_TTL = 30.0


def category_tree(*, must_have: Sequence[int] = ()) -> CategoryTree:
    """The category tree, cached in this process; reloaded when older than the TTL or when
    it lacks one of `must_have`."""
    global _tree_cache
    cached = _tree_cache
    now = time.monotonic()
    if (
        cached is not None
        and now - cached[0] < CATEGORY_TREE_TTL
        and all(i in cached[1].nodes for i in must_have)
    ):
        return cached[1]
    with _tree_lock:
        tree = CategoryTree.load()
        _tree_cache = (now, tree)
    return tree


def clear_caches() -> None:
    global _tree_cache
    _tree_cache = None
    forget_facet_counts()


def forget_facet_counts() -> None:
    """Empty the facet-count cache (the benchmark times searches without it)."""
    with _facet_lock:
        _facet_cache.clear()


def expand(text: str, analyzed: AnalyzedQuery) -> Expansion:
    """The lexicon's cross-lingual expansion of the query, word by word: each word's
    translations are weighted alternatives to the word (never requirements), so a word
    with no translation, a brand or a model number, still matches as typed where it is
    written and vetoes nothing."""
    if analyzed.is_empty:
        return Expansion()
    words = usable(analyzed.words)
    found, labels = translate_words(words)
    return Expansion(
        translations={
            word: [Translation(tuple(t.terms), t.weight) for t in translations]
            for word, translations in found.items()
        },
        labels=labels,
    )


def respelled_words(
    analyzed: AnalyzedQuery, fuzzy: Mapping[str, FuzzyTerm], unmatched: Sequence[str]
) -> list[str]:
    """The words also matched by similar spelling, as typed, except those the best result
    lacks (nothing spelt like "zorblexian" was found, so the page does not say it was)."""
    labels = [unit_label(unit, analyzed) for unit in fuzzy]
    return [label for label in labels if label not in unmatched]


def missing_words(
    s: Searcher, analyzed: AnalyzedQuery, units: Sequence[tuple[str, Query]], key: str
) -> list[str]:
    """The units of the query that the document with this `key` does not match, as typed
    (one search of a single document per unit)."""
    if len(units) < 2:
        return []
    document = term("key", key)

    def holds(clause: Query) -> bool:
        found = s.search(all_of([document, clause]), 1, True)
        return bool(found.count)  # type: ignore[attr-defined]  # missing from the stubs

    # One search when the document has every unit (the usual case), one per unit otherwise.
    if holds(any_of([clause for _unit, clause in units], len(units))):
        return []
    return [unit_label(unit, analyzed) for unit, clause in units if not holds(clause)]


def highlight_terms(analyzed: AnalyzedQuery, expansion: Expansion) -> set[str]:
    terms = set(usable(analyzed.words))
    terms.update(g for g in analyzed.grams if len(g) == 2)
    for translations in expansion.translations.values():
        for alternative in translations:
            terms.update(alternative.tokens)
    return terms


def float_range(field_name: str, low: float | None, high: float | None) -> Query:
    return Query.range_query(schema(), field_name, FieldType.Float, low, high)


def any_term(field_name: str, values: Sequence[Any]) -> Query:
    if len(values) == 1:
        return term(field_name, values[0])
    return Query.term_set_query(schema(), field_name, list(values))


@dataclass(frozen=True)
class _Counted:
    generation: int
    at: float  # time.monotonic()
    seconds: float  # how long counting took
    counts: dict[str, Any]


#: Facet counts of recent searches: (query, aggregations) -> counts and when they were made.
_facet_cache: OrderedDict[tuple[str, str], _Counted] = OrderedDict()


_facet_lock = threading.Lock()


FACET_CACHE_SIZE = 512


#: Counts that took at least this long to make may be reused after later commits...
SLOW_FACETS_SECONDS = 0.05


#: ...for this long after they were made.
STALE_FACETS_SECONDS = 30.0


def aggregate(snap: Snapshot, query: Query, aggregations: dict[str, Any]) -> dict[str, Any]:
    """Facet counts for `query` on this snapshot of the index.

    Counting facets visits every matching listing (tens of milliseconds for a common word
    at a million listings, a tenth of a second for all of them), while the same searches
    come back again and again (the next page, another sort order, the same popular words,
    the page listing everything). Counts are kept and reused while the index is unchanged;
    after a commit they are counted again, except counts that took SLOW_FACETS_SECONDS or
    more, which are reused for up to STALE_FACETS_SECONDS after they were made: on a busy
    marketplace every new listing is a commit, and the broadest searches would otherwise be
    counted afresh for almost every visitor. Their counts may then lag behind the hits (a
    listing published a few seconds ago is found, and counted a little later). The caller
    must not modify the result.
    """
    key = (repr(query), json.dumps(aggregations, sort_keys=True))
    now = time.monotonic()
    with _facet_lock:
        found = _facet_cache.get(key)
        if found is not None and (
            found.generation == snap.generation
            or (found.seconds >= SLOW_FACETS_SECONDS and now - found.at <= STALE_FACETS_SECONDS)
        ):
            _facet_cache.move_to_end(key)
            return found.counts
    result: dict[str, Any] = snap.searcher.aggregate(query, aggregations)
    counted = _Counted(snap.generation, now, time.monotonic() - now, result)
    with _facet_lock:
        _facet_cache[key] = counted
        _facet_cache.move_to_end(key)
        while len(_facet_cache) > FACET_CACHE_SIZE:
            _facet_cache.popitem(last=False)
    return result


@dataclass(frozen=True)
class CardMarks:
    """What a result card shows straight from the index, without a database query: the
    supplier's response rate (0-1; None when nobody asked yet) and the last day (an
    ordinal) of its Gold Supplier badge (None: no badge)."""

    response_rate: float | None = None
    badge_until: int | None = None

    def gold_badge(self, today: date) -> bool:
        return self.badge_until is not None and self.badge_until >= today.toordinal()


NO_MARKS = CardMarks()


def card_marks(s: Searcher, addresses: list[Any]) -> tuple[list[Any], dict[int, CardMarks]]:
    """The ids of the documents at `addresses` (None for a gap) and their cards' marks."""
    if not addresses:
        return [], {}
    ids = s.fast_field_values("id", addresses)
    rates = s.fast_field_values("response_rate", addresses)
    badges = s.fast_field_values("badge_until", addresses)
    marks = {
        int(doc_id): CardMarks(
            None if rate is None else float(rate), None if badge is None else int(badge)
        )
        for doc_id, rate, badge in zip(ids, rates, badges, strict=True)
        if doc_id is not None
    }
    return ids, marks


#: A page of hits: (total, [(score, id)], {id: its card's marks}). The marks are read with
#: the ids (empty where not read: the "newest" order).
Page = tuple[int, list[tuple[float, int]], dict[int, CardMarks]]


def run_page(
    s: Searcher, query: Query, *, sort: str, has_text: bool, limit: int, offset: int
) -> Page:
    """One page of hits in `sort` order."""
    if sort == "newest":
        total, ranked = run_newest(s, query, limit=limit, offset=offset)
        return total, ranked, {}
    if sort == "price_asc":
        result = s.search(query, limit, True, "price_asc", offset, Order.Asc)
    elif sort == "price_desc":
        result = s.search(query, limit, True, "price_desc", offset, Order.Desc)
    elif has_text:
        result = s.search(query, limit, count=True, offset=offset, weight_by_field="boost")
    else:
        result = s.search(query, limit, True, "boost", offset, Order.Desc)
    ids, marks = card_marks(s, [address for _score, address in result.hits])
    total = int(result.count or 0)  # type: ignore[attr-defined]  # missing from the stubs
    ranked = [
        (float(score), int(doc_id))
        for (score, _address), doc_id in zip(result.hits, ids, strict=True)
        if doc_id is not None
    ]
    return total, ranked, marks


def text_total(s: Searcher, total: int, scored: Query | None, base: list[Query] | None) -> int:
    """How many candidates a search widens on (`querying.widen`): its total, or, when the
    user's filters narrowed it below WIDEN_BELOW, the total of its words without them (only
    the kind of document). Whether listings sharing only characters with the query are
    candidates then depends on the words alone, so a facet count says what clicking it
    shows; and a filter does not make a common query walk the catalogue's characters."""
    if base is None or scored is None or total >= WIDEN_BELOW:
        return total
    found = s.search(combine(base, filter_clause(scored)), 1, True)
    return int(found.count or 0)  # type: ignore[attr-defined]  # missing from the stubs


def _with(query: Query, clause: Query) -> Query:
    return Query.boolean_query([(Occur.Must, query), (Occur.Must, filter_clause(clause))])


def run_newest(
    s: Searcher, query: Query, *, limit: int, offset: int
) -> tuple[int, list[tuple[float, int]]]:
    """One page in "newest" order: publication time (microseconds) descending, then id
    descending. tantivy orders by the time alone and leaves equal times in no particular
    order, so the page is fetched with one neighbour on each side: equal times inside the
    page are ordered here, and when a run of equal times crosses the page's edge (listings
    published in one batch), the part of the run on this page is read in id order."""
    start = offset - 1 if offset > 0 else 0
    skip = offset - start
    result = s.search(query, limit + skip + 1, True, PUBLISHED_SORT_FIELD, start, Order.Desc)
    total = int(result.count or 0)  # type: ignore[attr-defined]  # missing from the stubs
    addresses = [address for _key, address in result.hits]
    ids = s.fast_field_values("id", addresses) if addresses else []
    found = [
        (int(key), int(doc_id))
        for (key, _address), doc_id in zip(result.hits, ids, strict=True)
        if doc_id is not None
    ]
    before = found[0] if skip and found else None
    page = sorted(found[skip : skip + limit], key=lambda pair: (-pair[0], -pair[1]))
    after = found[skip + limit] if len(found) > skip + limit else None
    if not page:
        return total, []
    crossing = []
    if before is not None and before[0] == page[0][0]:
        crossing.append(page[0][0])
    if after is not None and after[0] == page[-1][0] and page[-1][0] not in crossing:
        crossing.append(page[-1][0])
    for key in crossing:
        first = next(i for i, pair in enumerate(page) if pair[0] == key)
        count = sum(1 for pair in page if pair[0] == key)
        newer = s.search(
            _with(
                query,
                Query.range_query(
                    schema(), PUBLISHED_SORT_FIELD, FieldType.Integer, key, None, False
                ),
            ),
            1,
            True,
        )
        position = offset + first - int(newer.count or 0)  # type: ignore[attr-defined]
        run = s.search(
            _with(query, term(PUBLISHED_SORT_FIELD, key)),
            count,
            True,
            "id",
            max(0, position),
            Order.Desc,
        )
        run_addresses = [address for _id, address in run.hits]
        run_ids = s.fast_field_values("id", run_addresses) if run_addresses else []
        page[first : first + count] = [(key, int(i)) for i in run_ids if i is not None]
    return total, [(float(key), doc_id) for key, doc_id in page]


def combine(filters: list[Query], text: Query | None) -> Query:
    parts = [(Occur.Must, filter_clause(all_of(filters)))]
    if text is not None:
        parts.append((Occur.Must, text))
    return Query.boolean_query(parts)


def range_spec(field_name: str, bounds: Sequence[tuple[float | None, float | None]]) -> dict:
    ranges = []
    for low, high in bounds:
        spec: dict[str, float] = {}
        if low is not None:
            spec["from"] = low
        if high is not None:
            spec["to"] = high
        ranges.append(spec)
    return {"range": {"field": field_name, "ranges": ranges}}


def bucket_counts(aggregation: Mapping[str, Any], name: str) -> list[tuple[Any, int]]:
    buckets = aggregation.get(name, {}).get("buckets", [])
    return [(bucket.get("key"), int(bucket.get("doc_count", 0))) for bucket in buckets]


_pool_lock = threading.Lock()


_pool: tuple[int, ThreadPoolExecutor] | None = None


def engine_pool() -> ThreadPoolExecutor:
    """Threads that run facet aggregations beside a search (tantivy releases the GIL while
    it works, so they use the other cores). One pool per process, made after any fork."""
    global _pool
    with _pool_lock:
        if _pool is None or _pool[0] != os.getpid():
            workers = max(2, os.cpu_count() or 2)
            _pool = (os.getpid(), ThreadPoolExecutor(workers, thread_name_prefix="facets"))
        return _pool[1]


class PendingCounts:
    """Facet counts being aggregated (each aggregation cached, `aggregate`) while the page
    itself is searched and loaded from the database."""

    def __init__(self, snap: Snapshot, requests: list[tuple[Query, dict[str, Any]]]) -> None:
        pool = engine_pool()
        self.futures = [pool.submit(aggregate, snap, query, aggs) for query, aggs in requests]

    def result(self) -> dict[str, Any]:
        counts: dict[str, Any] = {}
        for future in self.futures:
            counts.update(future.result())
        return decode(counts)


DAY_US = 86_400 * 1_000_000


def now_us() -> int:
    """Now in microseconds, to the minute (so facet counts can be cached for a minute)."""
    return int(time.time() // 60 * 60) * 1_000_000


def int_range(field_name: str, low: int | None, high: int | None) -> Query:
    return Query.range_query(schema(), field_name, FieldType.Integer, low, high)


# ---------------------------------------------------------------------------------------
# One search's text, and finding a page with it (every kind of document goes through these).


@dataclass(frozen=True)
class DocumentKind:
    """The text fields one kind of document is searched in (word fields, gram fields, the
    field its phrase bonus looks at) and how its unique key is made from an id."""

    word_fields: Mapping[str, float]
    gram_fields: Mapping[str, float]
    phrase_field: str
    key: Callable[[int], str]


PRODUCTS = DocumentKind(PRODUCT_WORD_FIELDS, PRODUCT_GRAM_FIELDS, "title_words", product_key)
COMPANIES = DocumentKind(COMPANY_WORD_FIELDS, COMPANY_GRAM_FIELDS, "name_words", company_key)
REQUESTS = DocumentKind(REQUEST_WORD_FIELDS, REQUEST_GRAM_FIELDS, "title_words", request_key)


@dataclass
class TextSearch:
    """A query's text over one kind of document, analysed once: its words, their
    translations (the lexicon) and spelling variants; `scored(breadth)` is the text query
    at a breadth (`querying.text_query`)."""

    kind: DocumentKind
    analyzed: AnalyzedQuery
    expansion: Expansion
    fuzzy: dict[str, FuzzyTerm]
    too_common: CommonTerms | None = None

    @classmethod
    def prepare(
        cls, query: Any, kind: DocumentKind, snap: Snapshot, *, common_terms: bool = False
    ) -> TextSearch:
        """`common_terms`: a word stops matching in a description where it is boilerplate
        (`querying.CommonTerms`; products, whose descriptions repeat selling words)."""
        text = clean_query(query)
        analyzed = analyze_query(text)
        expansion = expand(text, analyzed)
        return cls(
            kind=kind,
            analyzed=analyzed,
            expansion=expansion,
            fuzzy=fuzzy_terms(
                analyzed, snap.searcher, kind.word_fields, translated=expansion.translations
            ),
            too_common=CommonTerms(snap.searcher) if common_terms else None,
        )

    def scored(self, breadth: int = NARROW) -> Query | None:
        """The text part (None: no text, everything matches) at this breadth."""
        return text_query(
            self.analyzed,
            word_fields=self.kind.word_fields,
            gram_fields=self.kind.gram_fields,
            phrase_field=self.kind.phrase_field,
            expansion=self.expansion,
            fuzzy=self.fuzzy,
            too_common=self.too_common,
            breadth=breadth,
        )

    def units(self) -> list[tuple[str, Query]]:
        return unit_clauses(
            self.analyzed.words,
            self.kind.word_fields,
            self.kind.gram_fields,
            expansion=self.expansion,
            fuzzy=self.fuzzy,
            too_common=self.too_common,
        )

    def unmatched(self, s: Searcher, found: Found, *, page: int, sort: str) -> list[str]:
        """The words the best result lacks, as typed (on the first page of a search by
        relevance only: elsewhere the first hit is not "the best")."""
        if not found.ranked or found.scored is None or page != 1 or sort != "relevance":
            return []
        return missing_words(s, self.analyzed, self.units(), self.kind.key(found.ranked[0][1]))

    def respelled(self, unmatched: Sequence[str]) -> list[str]:
        return respelled_words(self.analyzed, self.fuzzy, unmatched)

    def highlight_terms(self) -> set[str]:
        return highlight_terms(self.analyzed, self.expansion)

    def page_fields(self, found: Found, unmatched: list[str], started: float) -> dict[str, Any]:
        """The `SearchPage` fields every search fills the same way: the query as analysed,
        the total, the notes on its words, and the milliseconds since `started`
        (`time.perf_counter()`)."""
        return {
            "query": self.analyzed.text,
            "total": found.total,
            "expansions": self.expansion.labels,
            "fuzzy_used": bool(self.fuzzy),
            "respelled": self.respelled(unmatched),
            "unmatched": unmatched,
            "took_ms": round((time.perf_counter() - started) * 1000, 2),
        }


@dataclass
class Found:
    """One page as last searched (at the breadth the search widened to)."""

    search_query: Query
    scored: Query | None
    total: int
    ranked: list[tuple[float, int]]
    marks: dict[int, CardMarks]


def find(
    snap: Snapshot,
    text: TextSearch,
    *,
    filters: list[Query],
    unfiltered: list[Query] | None,
    sort: str,
    limit: int,
    offset: int,
    sort_without_text: str | None = None,
    before_run: Callable[[Query, Query | None], None] | None = None,
) -> Found:
    """One page of `text` within `filters` in `sort` order, searched at the narrowest
    breadth and widened while it finds few (`querying.widen`). Widening is decided on the
    words alone when filters narrowed the search (`unfiltered`: the filters that only say
    which kind of document, or None when no filter is set; `text_total`).
    `sort_without_text`: the order of a search with no words (default: `sort`);
    `before_run(search_query, scored)` is called before each run (to count facets beside
    it)."""
    breadth = NARROW
    while True:
        scored = text.scored(breadth)
        search_query = combine(filters, scored)
        if before_run is not None:
            before_run(search_query, scored)
        order = sort if scored is not None else (sort_without_text or sort)
        total, ranked, marks = run_page(
            snap.searcher,
            search_query,
            sort=order,
            has_text=scored is not None,
            limit=limit,
            offset=offset,
        )
        if scored is None:
            break
        wider = widen(breadth, text_total(snap.searcher, total, scored, unfiltered), text.analyzed)
        if wider is None:
            break
        breadth = wider
    return Found(search_query, scored, total, ranked, marks)


def category_facet_field(category_id: int | None, tree: CategoryTree) -> str | None:
    """The index field whose values are the subcategories to count under `category_id`
    (the top level without one; None below the deepest level the index keeps)."""
    if category_id is None:
        return CATEGORY_FIELDS[0]
    node = tree.nodes.get(category_id)
    if node is None or node.depth + 1 > MAX_CATEGORY_DEPTH:
        return None
    return CATEGORY_FIELDS[node.depth + 1]
