"""Search reads: products and companies with filters, facets and sorts; suggestions.

The web pages and the API call these and render what they return. The index answers which
ids match, how many, and the facet counts; the database then gives the 20 objects of the page
(three queries, rank order kept), so what is shown is always the database's current state.
Listings the index still holds but the database no longer publishes are skipped.
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import Any

import opencc
from django.utils import translation
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from tantivy import FieldType, Occur, Order, Query, Searcher

from tradepost.catalog.hydration import load_products, product_card
from tradepost.catalog.models import Product, ProductStatus
from tradepost.catalog.selectors import ProductCard
from tradepost.companies.models import BusinessType, Company
from tradepost.core.countries import COUNTRY_CODES, country_name
from tradepost.core.incoterms import Incoterm
from tradepost.core.languages import (
    LISTING_LANGUAGE_CODES,
    LISTING_LANGUAGES,
    normalise_ui_language,
)
from tradepost.search.analysis import AnalyzedQuery, analyze_query, normalize
from tradepost.search.documents import MAX_CATEGORY_DEPTH, CategoryInfo, CategoryTree
from tradepost.search.facetkeys import (
    EPSILON,
    LEAD_TIME_LIMITS,
    MOQ_LIMITS,
    PRICE_BANDS,
    decode,
    key_aggregations,
)
from tradepost.search.glossary import translate_words
from tradepost.search.highlight import highlight_html, is_cjk_token
from tradepost.search.index import (
    CATEGORY_FIELDS,
    COMPANY_GRAM_FIELDS,
    COMPANY_WORD_FIELDS,
    KIND_COMPANY,
    KIND_PRODUCT,
    KIND_REQUEST,
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
    searcher,
    snapshot,
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

SORTS = ("relevance", "newest", "price_asc", "price_desc")
DEFAULT_PER_PAGE = 20
MAX_PER_PAGE = 100
#: Pages beyond this are not served (a deeper offset costs more than it is worth).
MAX_PAGE = 100


# ---------------------------------------------------------------------------------------
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


def _values(params: Mapping[str, Any], name: str) -> list[str]:
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


def _number(params: Mapping[str, Any], name: str) -> float | None:
    values = _values(params, name)
    if not values:
        return None
    try:
        number = float(Decimal(values[0][:30]))
    except (InvalidOperation, ValueError):
        return None
    if not math.isfinite(number) or number < 0 or number > 1e15:
        return None
    return number


def _identifier(params: Mapping[str, Any], name: str) -> int | None:
    values = _values(params, name)
    if not values or not values[0].isdigit() or len(values[0]) > 18:
        return None
    return int(values[0])


def _flag(params: Mapping[str, Any], name: str) -> bool:
    values = _values(params, name)
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
    return tuple(
        dict.fromkeys(v for v in values if isinstance(v, str) and v in BusinessType.values)
    )


def parse_product_filters(params: Mapping[str, Any]) -> ProductFilters:
    """Filters from request parameters (a QueryDict or a dict). Unknown or malformed values
    are dropped, never an error: `category`, `country` (repeatable or comma separated),
    `verified`, `language`, `incoterm`, `moq_max`, `price_min`, `price_max` (US dollars),
    `lead_time_max` (days), `company`."""
    lead_time = _number(params, "lead_time_max")
    return ProductFilters(
        category_id=_identifier(params, "category"),
        countries=clean_countries(_values(params, "country")),
        verified_only=_flag(params, "verified"),
        languages=clean_languages(_values(params, "language")),
        incoterms=clean_incoterms(_values(params, "incoterm")),
        moq_max=_number(params, "moq_max"),
        price_min_usd=_number(params, "price_min"),
        price_max_usd=_number(params, "price_max"),
        lead_time_max=int(lead_time) if lead_time is not None else None,
        company_id=_identifier(params, "company"),
    )


def parse_company_filters(params: Mapping[str, Any]) -> CompanyFilters:
    """`country`, `verified`, `business_type` from request parameters."""
    return CompanyFilters(
        countries=clean_countries(_values(params, "country")),
        verified_only=_flag(params, "verified"),
        business_types=clean_business_types(_values(params, "business_type")),
    )


def normalise_sort(sort: Any) -> str:
    return sort if isinstance(sort, str) and sort in SORTS else "relevance"


# ---------------------------------------------------------------------------------------
# Results.


@dataclass
class FacetOption:
    value: str
    label: str
    count: int
    selected: bool = False
    #: The request parameters that select this option (for links).
    params: dict[str, str] = field(default_factory=dict)


@dataclass
class Facet:
    name: str
    label: str
    options: list[FacetOption]


@dataclass
class ProductHit:
    product: Product
    card: ProductCard
    score: float
    #: The title the viewer reads (a translation when there is one), escaped, with the
    #: matched words in <mark>.
    title_html: SafeString
    #: The supplier's response rate in percent (ADR 0007), None when nobody asked yet.
    response_rate_percent: int | None = None


@dataclass(kw_only=True)
class SearchPage:
    """What every search result holds besides its hits."""

    query: str
    total: int
    page: int
    per_page: int
    facets: list[Facet]
    #: Glossary expansions searched too, to show ("also searched: 保温杯").
    expansions: list[str]
    #: True when words no listing holds were also looked for by similar spelling.
    fuzzy_used: bool
    took_ms: float
    #: Those words, as typed ("kettel"), where the best result has one spelt like it.
    respelled: list[str] = field(default_factory=list)
    #: Words of the query the best result does not match, as typed, when it matches only
    #: part of the query (shown: "not found: …"); empty when it matches all of it.
    unmatched: list[str] = field(default_factory=list)

    @property
    def num_pages(self) -> int:
        return min(MAX_PAGE, max(1, math.ceil(self.total / self.per_page)))


@dataclass(kw_only=True)
class ProductSearchResult(SearchPage):
    sort: str
    hits: list[ProductHit]


@dataclass
class CompanyHit:
    company: Company
    score: float
    name_html: SafeString


@dataclass(kw_only=True)
class CompanySearchResult(SearchPage):
    hits: list[CompanyHit]


# ---------------------------------------------------------------------------------------
# Shared pieces.

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


def _bounded_page(page: Any, per_page: Any) -> tuple[int, int]:
    try:
        page = int(page)
    except (TypeError, ValueError):
        page = 1
    try:
        per_page = int(per_page)
    except (TypeError, ValueError):
        per_page = DEFAULT_PER_PAGE
    return min(max(page, 1), MAX_PAGE), min(max(per_page, 1), MAX_PER_PAGE)


def _clean_query(query: Any) -> str:
    return query if isinstance(query, str) else ""


def _range(field_name: str, low: float | None, high: float | None) -> Query:
    return Query.range_query(schema(), field_name, FieldType.Float, low, high)


def _any_term(field_name: str, values: Sequence[Any]) -> Query:
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


#: A page of hits: (total, [(score, id)], {id: response rate}). The rates are read with the
#: ids (supplier responsiveness on product cards; empty where not read).
Page = tuple[int, list[tuple[float, int]], dict[int, float | None]]


def _run(s: Searcher, query: Query, *, sort: str, has_text: bool, limit: int, offset: int) -> Page:
    """One page of hits in `sort` order."""
    if sort == "newest":
        total, ranked = _run_newest(s, query, limit=limit, offset=offset)
        return total, ranked, {}
    if sort == "price_asc":
        result = s.search(query, limit, True, "price_asc", offset, Order.Asc)
    elif sort == "price_desc":
        result = s.search(query, limit, True, "price_desc", offset, Order.Desc)
    elif has_text:
        result = s.search(query, limit, count=True, offset=offset, weight_by_field="boost")
    else:
        result = s.search(query, limit, True, "boost", offset, Order.Desc)
    addresses = [address for _score, address in result.hits]
    ids = s.fast_field_values("id", addresses) if addresses else []
    rates = s.fast_field_values("response_rate", addresses) if addresses else []
    total = int(result.count or 0)  # type: ignore[attr-defined]  # missing from the stubs
    ranked = [
        (float(score), int(doc_id))
        for (score, _address), doc_id in zip(result.hits, ids, strict=True)
        if doc_id is not None
    ]
    by_id = {
        int(doc_id): None if rate is None else float(rate)
        for doc_id, rate in zip(ids, rates, strict=True)
        if doc_id is not None
    }
    return total, ranked, by_id


def _text_total(s: Searcher, total: int, scored: Query | None, base: list[Query] | None) -> int:
    """How many candidates a search widens on (`querying.widen`): its total, or, when the
    user's filters narrowed it below WIDEN_BELOW, the total of its words without them (only
    the kind of document). Whether listings sharing only characters with the query are
    candidates then depends on the words alone, so a facet count says what clicking it
    shows; and a filter does not make a common query walk the catalogue's characters."""
    if base is None or scored is None or total >= WIDEN_BELOW:
        return total
    found = s.search(_combine(base, filter_clause(scored)), 1, True)
    return int(found.count or 0)  # type: ignore[attr-defined]  # missing from the stubs


def _with(query: Query, clause: Query) -> Query:
    return Query.boolean_query([(Occur.Must, query), (Occur.Must, filter_clause(clause))])


def _run_newest(
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


# ---------------------------------------------------------------------------------------
# Products.


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
        clauses.append(_any_term("country", filters.countries))
    if filters.verified_only:
        clauses.append(term("verified", True))
    if filters.languages:
        clauses.append(_any_term("language", filters.languages))
    if filters.incoterms:
        clauses.append(_any_term("incoterms", filters.incoterms))
    if filters.moq_max is not None:
        clauses.append(_range("moq", None, filters.moq_max + EPSILON))
    if filters.price_min_usd is not None:
        clauses.append(_range("price_max_usd", filters.price_min_usd, None))
    if filters.price_max_usd is not None:
        clauses.append(_range("price_min_usd", None, filters.price_max_usd + EPSILON))
    if filters.lead_time_max is not None:
        clauses.append(
            Query.range_query(
                schema(), "lead_time", FieldType.Unsigned, None, max(0, filters.lead_time_max)
            )
        )
    return clauses


def _combine(filters: list[Query], text: Query | None) -> Query:
    parts = [(Occur.Must, filter_clause(all_of(filters)))]
    if text is not None:
        parts.append((Occur.Must, text))
    return Query.boolean_query(parts)


def _range_spec(field_name: str, bounds: Sequence[tuple[float | None, float | None]]) -> dict:
    ranges = []
    for low, high in bounds:
        spec: dict[str, float] = {}
        if low is not None:
            spec["from"] = low
        if high is not None:
            spec["to"] = high
        ranges.append(spec)
    return {"range": {"field": field_name, "ranges": ranges}}


def _bucket_counts(aggregation: Mapping[str, Any], name: str) -> list[tuple[Any, int]]:
    buckets = aggregation.get(name, {}).get("buckets", [])
    return [(bucket.get("key"), int(bucket.get("doc_count", 0))) for bucket in buckets]


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


def _format_amount(value: float) -> str:
    return f"{value:,.0f}" if value >= 1 else f"{value:g}"


def _price_label(low: float | None, high: float | None) -> str:
    if low is None and high is not None:
        return _("Under US$%(high)s") % {"high": _format_amount(high)}
    if high is None and low is not None:
        return _("US$%(low)s and above") % {"low": _format_amount(low)}
    return _("US$%(low)s–%(high)s") % {
        "low": _format_amount(low or 0),
        "high": _format_amount(high or 0),
    }


def _category_facet(
    counts: list[tuple[Any, int]], tree: CategoryTree, language: str, selected: int | None
) -> Facet:
    options = []
    for key, count in counts:
        node = tree.nodes.get(int(key)) if key is not None else None
        if node is None or count <= 0:
            continue
        options.append(
            (
                node,
                FacetOption(
                    value=str(node.id),
                    label=node.name_for(language),
                    count=count,
                    selected=node.id == selected,
                    params={"category": str(node.id)},
                ),
            )
        )
    options.sort(key=lambda pair: (-pair[1].count, pair[0].path))
    return Facet(name="category", label=_("Category"), options=[o for _n, o in options])


def _language_names() -> dict[str, str]:
    return {code: str(label) for code, label in LISTING_LANGUAGES}


def _term_options(
    aggregation: Mapping[str, Any],
    bucket: str,
    *,
    selected: Sequence[str],
    param: str,
    label: Callable[[str], str],
) -> list[FacetOption]:
    """One option per value a terms aggregation found (count > 0), labelled by `label`."""
    return [
        FacetOption(
            value=str(code),
            label=label(str(code)),
            count=count,
            selected=code in selected,
            params={param: str(code)},
        )
        for code, count in _bucket_counts(aggregation, bucket)
        if code and count > 0
    ]


def _country_options(
    aggregation: Mapping[str, Any],
    bucket: str,
    selected: Sequence[str],
    param: str,
    language: str,
) -> list[FacetOption]:
    return _term_options(
        aggregation,
        bucket,
        selected=selected,
        param=param,
        label=lambda code: country_name(code, language),
    )


def _verified_facet(aggregation: Mapping[str, Any], selected: bool) -> Facet:
    count = sum(
        count for key, count in _bucket_counts(aggregation, "verified") if key in (1, True, "true")
    )
    option = FacetOption(
        value="1",
        label=_("Verified suppliers only"),
        count=count,
        selected=selected,
        params={"verified": "1"},
    )
    return Facet(
        name="verified",
        label=_("Verified supplier"),
        options=[option] if count or selected else [],
    )


def _product_facets(
    aggregation: Mapping[str, Any],
    filters: ProductFilters,
    tree: CategoryTree,
    language: str,
) -> list[Facet]:
    facets: list[Facet] = []
    if "category" in aggregation:
        facets.append(
            _category_facet(
                _bucket_counts(aggregation, "category"), tree, language, filters.category_id
            )
        )
    countries = _country_options(aggregation, "country", filters.countries, "country", language)
    facets.append(Facet(name="country", label=_("Supplier country"), options=countries))
    facets.append(_verified_facet(aggregation, filters.verified_only))
    names = _language_names()
    languages = _term_options(
        aggregation,
        "language",
        selected=filters.languages,
        param="language",
        label=lambda code: names.get(code, code),
    )
    facets.append(Facet(name="language", label=_("Listing language"), options=languages))
    incoterms = _term_options(
        aggregation, "incoterms", selected=filters.incoterms, param="incoterm", label=str
    )
    incoterms.sort(key=lambda option: option.value)
    facets.append(Facet(name="incoterm", label=_("Incoterms"), options=incoterms))

    moq_counts = [count for _key, count in _bucket_counts(aggregation, "moq")]
    moq_options = []
    running = 0
    for limit, count in zip(MOQ_LIMITS, moq_counts, strict=False):
        running += count
        if running:
            moq_options.append(
                FacetOption(
                    value=str(limit),
                    label=_("At most %(quantity)s") % {"quantity": f"{limit:,}"},
                    count=running,
                    selected=filters.moq_max is not None and float(filters.moq_max) == limit,
                    params={"moq_max": str(limit)},
                )
            )
    facets.append(Facet(name="moq_max", label=_("Minimum order"), options=moq_options))

    price_options = []
    for (low, high), (_key, count) in zip(
        PRICE_BANDS, _bucket_counts(aggregation, "price"), strict=False
    ):
        if count <= 0:
            continue
        params = {}
        if low is not None:
            params["price_min"] = f"{low:g}"
        if high is not None:
            params["price_max"] = f"{high:g}"
        price_options.append(
            FacetOption(
                value=f"{'' if low is None else f'{low:g}'}-{'' if high is None else f'{high:g}'}",
                label=_price_label(low, high),
                count=count,
                selected=filters.price_min_usd == low and filters.price_max_usd == high,
                params=params,
            )
        )
    facets.append(Facet(name="price", label=_("Price (US$)"), options=price_options))

    lead_counts = [count for _key, count in _bucket_counts(aggregation, "lead_time")]
    lead_options = []
    running = 0
    for days, count in zip(LEAD_TIME_LIMITS, lead_counts, strict=False):
        running += count
        if running:
            lead_options.append(
                FacetOption(
                    value=str(days),
                    label=ngettext("Within %(days)d day", "Within %(days)d days", days)
                    % {"days": days},
                    count=running,
                    selected=filters.lead_time_max == days,
                    params={"lead_time_max": str(days)},
                )
            )
    facets.append(Facet(name="lead_time_max", label=_("Lead time"), options=lead_options))
    return facets


def _category_facet_field(filters: ProductFilters, tree: CategoryTree) -> str | None:
    if filters.category_id is None:
        return CATEGORY_FIELDS[0]
    node = tree.nodes.get(filters.category_id)
    if node is None or node.depth + 1 > MAX_CATEGORY_DEPTH:
        return None
    return CATEGORY_FIELDS[node.depth + 1]


def _hydrate_products(
    ranked: list[tuple[float, int]], language: str
) -> list[tuple[float, Product, ProductCard]]:
    """The page's products with their cards, in rank order; listings the index still holds
    but the database no longer publishes are skipped."""
    if not ranked:
        return []
    loaded = load_products([doc_id for _score, doc_id in ranked], language)
    hydrated = []
    for score, doc_id in ranked:
        found = loaded.get(doc_id)
        if found is None or found[0].status != ProductStatus.PUBLISHED:
            continue
        product, thumbnail_url = found
        hydrated.append((score, product, product_card(product, thumbnail_url, language)))
    return hydrated


def _product_facet_requests(
    search_query: Query, scored: Query | None, filters: ProductFilters, tree: CategoryTree
) -> list[tuple[Query, dict[str, Any]]]:
    """The aggregations that count a product search's facets, each with its query. A facet
    whose filter is set and that may take several values (DISJUNCTIVE_FACETS) is counted by
    a search without its own filter; the others are counted on the search itself."""
    aggregations = _product_aggregations(_category_facet_field(filters, tree))
    selected = [
        name for name, attribute in DISJUNCTIVE_FACETS.items() if getattr(filters, attribute)
    ]
    requests = [
        (search_query, {name: spec for name, spec in aggregations.items() if name not in selected})
    ]
    for name in selected:
        query = _combine(_product_filter_clauses(filters, tree, leave_out=name), scored)
        requests.append((query, {name: aggregations[name]}))
    return requests


_pool_lock = threading.Lock()
_pool: tuple[int, ThreadPoolExecutor] | None = None


def _engine_pool() -> ThreadPoolExecutor:
    """Threads that run facet aggregations beside a search (tantivy releases the GIL while
    it works, so they use the other cores). One pool per process, made after any fork."""
    global _pool
    with _pool_lock:
        if _pool is None or _pool[0] != os.getpid():
            workers = max(2, os.cpu_count() or 2)
            _pool = (os.getpid(), ThreadPoolExecutor(workers, thread_name_prefix="facets"))
        return _pool[1]


class _PendingCounts:
    """Facet counts being aggregated (each aggregation cached, `aggregate`) while the page
    itself is searched and loaded from the database."""

    def __init__(self, snap: Snapshot, requests: list[tuple[Query, dict[str, Any]]]) -> None:
        pool = _engine_pool()
        self.futures = [pool.submit(aggregate, snap, query, aggs) for query, aggs in requests]

    def result(self) -> dict[str, Any]:
        counts: dict[str, Any] = {}
        for future in self.futures:
            counts.update(future.result())
        return decode(counts)


@dataclass
class _ProductPlan:
    """A product search turned into index queries (before anything runs)."""

    analyzed: AnalyzedQuery
    expansion: Expansion
    filters: ProductFilters
    tree: CategoryTree
    snap: Snapshot
    filter_clauses: list[Query]
    too_common: CommonTerms
    fuzzy: dict[str, FuzzyTerm]

    def scored(self, *, breadth: int = NARROW) -> Query | None:
        """The text part (None: no text, everything matches) at this breadth
        (`querying.text_query`)."""
        return text_query(
            self.analyzed,
            word_fields=PRODUCT_WORD_FIELDS,
            gram_fields=PRODUCT_GRAM_FIELDS,
            phrase_field="title_words",
            expansion=self.expansion,
            fuzzy=self.fuzzy,
            too_common=self.too_common,
            breadth=breadth,
        )

    def search_query(self, scored: Query | None) -> Query:
        return _combine(self.filter_clauses, scored)

    def units(self) -> list[tuple[str, Query]]:
        return unit_clauses(
            self.analyzed.words,
            PRODUCT_WORD_FIELDS,
            PRODUCT_GRAM_FIELDS,
            expansion=self.expansion,
            fuzzy=self.fuzzy,
            too_common=self.too_common,
        )


def _plan_products(query: Any, filters: ProductFilters) -> _ProductPlan:
    text = _clean_query(query)
    analyzed = analyze_query(text)
    must_have = [filters.category_id] if filters.category_id is not None else []
    tree = category_tree(must_have=must_have)
    snap = snapshot()
    expansion = expand(text, analyzed)
    return _ProductPlan(
        analyzed=analyzed,
        expansion=expansion,
        filters=filters,
        tree=tree,
        snap=snap,
        filter_clauses=_product_filter_clauses(filters, tree),
        too_common=CommonTerms(snap.searcher),
        fuzzy=fuzzy_terms(
            analyzed, snap.searcher, PRODUCT_WORD_FIELDS, translated=expansion.translations
        ),
    )


def product_search_requests(
    query: str, filters: ProductFilters | None = None
) -> tuple[Query, list[tuple[Query, dict[str, Any]]]]:
    """What `search_products` (relevance order, with facets) asks the index for `query`: the
    search query and each facet aggregation with its query. The benchmark runs these
    straight on tantivy as its reference."""
    plan = _plan_products(query, filters or ProductFilters())
    scored = plan.scored()
    search_query = plan.search_query(scored)
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
    `filters`, one page in `sort` order, with facet counts and labels in `language`."""
    started = time.perf_counter()
    language = normalise_ui_language(language)
    filters = filters or ProductFilters()
    sort = normalise_sort(sort)
    page, per_page = _bounded_page(page, per_page)
    plan = _plan_products(query, filters)
    analyzed, expansion, tree, snap = plan.analyzed, plan.expansion, plan.tree, plan.snap
    scored = plan.scored()
    search_query, has_text = plan.search_query(scored), scored is not None
    offset = (page - 1) * per_page

    def count_facets() -> _PendingCounts | None:
        if not with_facets:
            return None
        return _PendingCounts(snap, _product_facet_requests(search_query, scored, filters, tree))

    pending = count_facets()
    total, ranked, rates = _run(
        snap.searcher, search_query, sort=sort, has_text=has_text, limit=per_page, offset=offset
    )
    breadth = NARROW
    base = _product_filter_clauses(ProductFilters(), tree) if filters != ProductFilters() else None
    while (
        has_text
        and (wider := widen(breadth, _text_total(snap.searcher, total, scored, base), analyzed))
        is not None
    ):
        breadth = wider
        scored = plan.scored(breadth=breadth)
        search_query = plan.search_query(scored)
        pending = count_facets()
        total, ranked, rates = _run(
            snap.searcher,
            search_query,
            sort=sort,
            has_text=has_text,
            limit=per_page,
            offset=offset,
        )

    unmatched = []
    if ranked and has_text and page == 1 and sort == "relevance":
        unmatched = missing_words(snap.searcher, analyzed, plan.units(), product_key(ranked[0][1]))
    with translation.override(language):
        terms = highlight_terms(analyzed, expansion)
        hits = [
            ProductHit(
                product=product,
                card=card,
                score=score,
                title_html=highlight_html(card.text.title, terms),
            )
            for score, product, card in _hydrate_products(ranked, language)
        ]
        _attach_response_rates(snap.searcher, hits, rates)
        facets: list[Facet] = []
        if pending is not None:
            facets = _product_facets(pending.result(), filters, tree, language)
    return ProductSearchResult(
        query=analyzed.text,
        total=total,
        page=page,
        per_page=per_page,
        sort=sort,
        hits=hits,
        facets=facets,
        expansions=expansion.labels,
        fuzzy_used=bool(plan.fuzzy),
        respelled=respelled_words(analyzed, plan.fuzzy, unmatched),
        unmatched=unmatched,
        took_ms=round((time.perf_counter() - started) * 1000, 2),
    )


def _attach_response_rates(
    s: Searcher, hits: list[ProductHit], known: dict[int, float | None]
) -> None:
    """The suppliers' response rates for the page's cards, as the index holds them (the
    value that ranked them; no database query): read with the page's ids, else (the
    "newest" order) looked up by each listing's unique key."""
    if not hits:
        return
    rates = dict(known)
    missing = [hit.product.pk for hit in hits if hit.product.pk not in rates]
    if missing:
        query = any_of([term("key", product_key(pk)) for pk in missing])
        found = s.search(query, len(missing) * 2, False).hits
        addresses = [address for _score, address in found]
        if addresses:
            ids = s.fast_field_values("id", addresses)
            values = s.fast_field_values("response_rate", addresses)
            for doc_id, rate in zip(ids, values, strict=True):
                if doc_id is not None:
                    rates[int(doc_id)] = None if rate is None else float(rate)
    for hit in hits:
        rate = rates.get(hit.product.pk)
        hit.response_rate_percent = None if rate is None else round(float(rate) * 100)


# ---------------------------------------------------------------------------------------
# Companies.


def _company_filter_clauses(filters: CompanyFilters) -> list[Query]:
    clauses = [term("kind", KIND_COMPANY)]
    if filters.countries:
        clauses.append(_any_term("country", filters.countries))
    if filters.verified_only:
        clauses.append(term("verified", True))
    if filters.business_types:
        clauses.append(_any_term("business_types", filters.business_types))
    return clauses


def _company_facets(
    aggregation: Mapping[str, Any], filters: CompanyFilters, language: str
) -> list[Facet]:
    type_labels = {value: str(label) for value, label in BusinessType.choices}
    business_types = _term_options(
        aggregation,
        "business_types",
        selected=filters.business_types,
        param="business_type",
        label=lambda code: type_labels.get(code, code),
    )
    countries = _country_options(aggregation, "country", filters.countries, "country", language)
    return [
        Facet(name="country", label=_("Country"), options=countries),
        _verified_facet(aggregation, filters.verified_only),
        Facet(name="business_type", label=_("Business type"), options=business_types),
    ]


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
    page, per_page = _bounded_page(page, per_page)
    text = _clean_query(query)
    analyzed = analyze_query(text)
    expansion = expand(text, analyzed)
    filter_clauses = _company_filter_clauses(filters)

    snap = snapshot()
    fuzzy = fuzzy_terms(
        analyzed, snap.searcher, COMPANY_WORD_FIELDS, translated=expansion.translations
    )

    def text_part(breadth: int) -> Query | None:
        return text_query(
            analyzed,
            word_fields=COMPANY_WORD_FIELDS,
            gram_fields=COMPANY_GRAM_FIELDS,
            phrase_field="name_words",
            expansion=expansion,
            fuzzy=fuzzy,
            breadth=breadth,
        )

    def build(breadth: int) -> tuple[Query, bool]:
        scored = text_part(breadth)
        return _combine(filter_clauses, scored), scored is not None

    def run(search_query: Query, has_text: bool) -> tuple[int, list[tuple[float, int]]]:
        total, ranked, _rates = _run(
            snap.searcher,
            search_query,
            sort="relevance",
            has_text=has_text,
            limit=per_page,
            offset=(page - 1) * per_page,
        )
        return total, ranked

    breadth = NARROW
    base = _company_filter_clauses(CompanyFilters()) if filters != CompanyFilters() else None
    search_query, has_text = build(breadth)
    total, ranked = run(search_query, has_text)
    while has_text:
        text_total = _text_total(snap.searcher, total, text_part(breadth), base)
        wider = widen(breadth, text_total, analyzed)
        if wider is None:
            break
        breadth = wider
        search_query, has_text = build(breadth)
        total, ranked = run(search_query, has_text)
    unmatched = []
    if ranked and has_text and page == 1:
        units = unit_clauses(
            analyzed.words,
            COMPANY_WORD_FIELDS,
            COMPANY_GRAM_FIELDS,
            expansion=expansion,
            fuzzy=fuzzy,
        )
        unmatched = missing_words(snap.searcher, analyzed, units, company_key(ranked[0][1]))
    with translation.override(language):
        facets: list[Facet] = []
        if with_facets:
            aggregation = aggregate(
                snap,
                search_query,
                {
                    "country": {"terms": {"field": "country", "size": 300}},
                    "verified": {"terms": {"field": "verified", "size": 2}},
                    "business_types": {"terms": {"field": "business_types", "size": 20}},
                },
            )
            facets = _company_facets(aggregation, filters, language)
        terms = highlight_terms(analyzed, expansion)
        by_id = Company.objects.in_bulk([doc_id for _score, doc_id in ranked])
        hits = [
            CompanyHit(
                company=by_id[doc_id],
                score=score,
                name_html=highlight_html(by_id[doc_id].name_for(language), terms),
            )
            for score, doc_id in ranked
            if doc_id in by_id
        ]
    return CompanySearchResult(
        query=analyzed.text,
        total=total,
        page=page,
        per_page=per_page,
        hits=hits,
        facets=facets,
        expansions=expansion.labels,
        fuzzy_used=bool(fuzzy),
        respelled=respelled_words(analyzed, fuzzy, unmatched),
        unmatched=unmatched,
        took_ms=round((time.perf_counter() - started) * 1000, 2),
    )


# ---------------------------------------------------------------------------------------
# Suggestions.

#: Candidates read from the term dictionary per suggestion shown (some may belong only to
#: listings removed since the last merge, and are skipped).
SUGGEST_CANDIDATES = 3


@cache
def _s2t() -> Any:
    return opencc.OpenCC("s2t")


def suggest(prefix: str, language: str, *, limit: int = 8) -> list[str]:
    """Completions of `prefix` from product titles, category names and company names, in
    the normalised (lower-case, simplified) form the index holds; written in traditional
    characters for zh-hant viewers. Either script of a prefix finds both."""
    language = normalise_ui_language(language)
    key = normalize(_clean_query(prefix)[:200])
    if not key or (len(key) < 2 and not is_cjk_token(key[0])):
        return []
    limit = min(max(int(limit), 1), 20)
    s = searcher()
    # The term dictionary holds every normalised title, category and company name once,
    # with the number of documents carrying it: the most common completions come first.
    candidates = s.terms_with_prefix("suggest", key, limit=limit * SUGGEST_CANDIDATES)
    ordered = sorted(candidates, key=lambda item: (-item[1], len(item[0]), item[0]))
    suggestions = []
    for value, _count in ordered:
        # Counts include documents deleted but not yet merged away: keep live ones only.
        if s.search(term("suggest", value), 1, False).hits:
            suggestions.append(value)
            if len(suggestions) == limit:
                break
    if language == "zh-hant":
        suggestions = [
            _s2t().convert(s) if any(is_cjk_token(c) for c in s) else s for s in suggestions
        ]
    return suggestions


def warm_up() -> None:
    """Load the analysers, the glossary and the index now rather than on the first search
    (a serving process can call this once it starts)."""
    search_products(query="warm up 预热", language="en", per_page=1)
    suggest("wa", "en")


__all__ = [
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
    "parse_company_filters",
    "parse_product_filters",
    "search_companies",
    "search_products",
    "suggest",
    "warm_up",
]


# ---------------------------------------------------------------------------------------
# Buying requests.

REQUEST_SORTS = ("relevance", "newest")
#: "Posted within N days" choices.
POSTED_WITHIN_DAYS = (1, 7, 30)
_DAY_US = 86_400 * 1_000_000


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
    days = _number(params, "posted_within")
    return RequestFilters(
        category_id=_identifier(params, "category"),
        destinations=clean_countries(_values(params, "destination")),
        quantity_min=_number(params, "quantity_min"),
        quantity_max=_number(params, "quantity_max"),
        posted_within_days=min(int(days), 3650) if days is not None and days >= 1 else None,
    )


def normalise_request_sort(sort: Any) -> str:
    return sort if isinstance(sort, str) and sort in REQUEST_SORTS else "relevance"


@dataclass
class RequestHit:
    #: The buying request (buyer and category loaded). Only its public fields may be shown:
    #: the buyer's name only when `request.reveal_identity`.
    request: Any
    score: float
    title_html: SafeString
    category_name: str
    buyer_country: str
    buyer_country_name: str
    buyer_business_types: list[str]
    #: The buyer's name when the buyer chose to reveal it, else "".
    buyer_name: str


@dataclass(kw_only=True)
class RequestSearchResult(SearchPage):
    sort: str
    hits: list[RequestHit]


def _now_us() -> int:
    """Now in microseconds, to the minute (so facet counts can be cached for a minute)."""
    return int(time.time() // 60 * 60) * 1_000_000


def _int_range(field_name: str, low: int | None, high: int | None) -> Query:
    return Query.range_query(schema(), field_name, FieldType.Integer, low, high)


def _request_filter_clauses(
    filters: RequestFilters, tree: CategoryTree, now_us: int, *, leave_out: str | None = None
) -> list[Query]:
    """Open requests whose deadline is ahead, narrowed by `filters`."""
    clauses = [term("kind", KIND_REQUEST), _int_range("deadline_us", now_us + 1, None)]
    if filters.category_id is not None:
        node = tree.nodes.get(filters.category_id)
        if node is None or node.depth > MAX_CATEGORY_DEPTH:
            clauses.append(Query.empty_query())
        else:
            clauses.append(term(CATEGORY_FIELDS[node.depth], node.id))
    if filters.destinations and leave_out != "destination":
        clauses.append(_any_term("country", filters.destinations))
    if filters.quantity_min is not None:
        clauses.append(_range("quantity", filters.quantity_min - EPSILON, None))
    if filters.quantity_max is not None:
        clauses.append(_range("quantity", None, filters.quantity_max + EPSILON))
    if filters.posted_within_days is not None:
        since = now_us - filters.posted_within_days * _DAY_US
        clauses.append(_int_range(PUBLISHED_SORT_FIELD, since, None))
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
        category = _category_facet(
            _bucket_counts(counts, "category"), tree, language, filters.category_id
        )
        facets.append(category)
    destinations = _country_options(
        counts, "destination", filters.destinations, "destination", language
    )
    destinations.sort(key=lambda option: (-option.count, option.label))
    facets.append(Facet(name="destination", label=_("Destination"), options=destinations))
    # Disjoint time buckets; "posted within N days" sums those starting at or after N
    # days ago.
    buckets = counts.get("posted", {}).get("buckets", [])
    options = []
    for days in POSTED_WITHIN_DAYS:
        since = now_us - days * _DAY_US
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
        low = float(now_us - days * _DAY_US)
        bounds.append((low, high))
        high = low
    aggs: dict[str, Any] = {
        "destination": {"terms": {"field": "country", "size": 300}},
        "posted": _range_spec(PUBLISHED_SORT_FIELD, bounds),
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
    from django.utils import timezone

    from tradepost.sourcing.models import BuyingRequest, RequestStatus

    loaded = BuyingRequest.objects.select_related("buyer", "category").in_bulk(
        [doc_id for _score, doc_id in ranked]
    )
    now = timezone.now()
    type_labels = {value: str(label) for value, label in BusinessType.choices}
    hits = []
    for score, doc_id in ranked:
        found = loaded.get(doc_id)
        if found is None or found.status != RequestStatus.OPEN or found.deadline <= now:
            continue
        buyer = found.buyer
        hits.append(
            RequestHit(
                request=found,
                score=score,
                title_html=highlight_html(found.title, terms),
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
    across languages through the glossary like products, one page in `sort` order
    ("relevance" or "newest")."""
    started = time.perf_counter()
    language = normalise_ui_language(language)
    filters = filters or RequestFilters()
    sort = normalise_request_sort(sort)
    page, per_page = _bounded_page(page, per_page)
    text = _clean_query(query)
    analyzed = analyze_query(text)
    expansion = expand(text, analyzed)
    must_have = [filters.category_id] if filters.category_id is not None else []
    tree = category_tree(must_have=must_have)
    now_us = _now_us()
    filter_clauses = _request_filter_clauses(filters, tree, now_us)

    snap = snapshot()
    fuzzy = fuzzy_terms(
        analyzed, snap.searcher, REQUEST_WORD_FIELDS, translated=expansion.translations
    )

    def build(breadth: int) -> Query | None:
        return text_query(
            analyzed,
            word_fields=REQUEST_WORD_FIELDS,
            gram_fields=REQUEST_GRAM_FIELDS,
            phrase_field="title_words",
            expansion=expansion,
            fuzzy=fuzzy,
            breadth=breadth,
        )

    # Without words, "relevance" lists the newest first.
    def run(scored: Query | None) -> tuple[Query, int, list[tuple[float, int]]]:
        search_query = _combine(filter_clauses, scored)
        order = "newest" if sort == "newest" or scored is None else "relevance"
        total, ranked, _rates = _run(
            snap.searcher,
            search_query,
            sort=order,
            has_text=scored is not None,
            limit=per_page,
            offset=(page - 1) * per_page,
        )
        return search_query, total, ranked

    breadth = NARROW
    base = (
        _request_filter_clauses(RequestFilters(), tree, now_us)
        if filters != RequestFilters()
        else None
    )
    scored = build(breadth)
    search_query, total, ranked = run(scored)
    while (
        scored is not None
        and (wider := widen(breadth, _text_total(snap.searcher, total, scored, base), analyzed))
        is not None
    ):
        breadth = wider
        scored = build(breadth)
        search_query, total, ranked = run(scored)
    unmatched = []
    if ranked and scored is not None and page == 1 and sort == "relevance":
        units = unit_clauses(
            analyzed.words,
            REQUEST_WORD_FIELDS,
            REQUEST_GRAM_FIELDS,
            expansion=expansion,
            fuzzy=fuzzy,
        )
        unmatched = missing_words(snap.searcher, analyzed, units, request_key(ranked[0][1]))

    with translation.override(language):
        facets: list[Facet] = []
        if with_facets:
            category_field = _request_category_field(filters, tree)
            aggregations = _request_aggregations(category_field, now_us)
            counts = dict(
                aggregate(
                    snap,
                    search_query,
                    {k: v for k, v in aggregations.items() if k != "destination"},
                )
            )
            # Destinations are counted without their own filter (any of them may be added).
            destination_query = _combine(
                _request_filter_clauses(filters, tree, now_us, leave_out="destination"), scored
            )
            counts.update(
                aggregate(snap, destination_query, {"destination": aggregations["destination"]})
            )
            facets = _request_facets(counts, filters, tree, language, now_us)
        hits = _hydrate_requests(ranked, language, highlight_terms(analyzed, expansion))
    return RequestSearchResult(
        query=analyzed.text,
        total=total,
        page=page,
        per_page=per_page,
        sort=sort,
        hits=hits,
        facets=facets,
        expansions=expansion.labels,
        fuzzy_used=bool(fuzzy),
        respelled=respelled_words(analyzed, fuzzy, unmatched),
        unmatched=unmatched,
        took_ms=round((time.perf_counter() - started) * 1000, 2),
    )


def _request_category_field(filters: RequestFilters, tree: CategoryTree) -> str | None:
    if filters.category_id is None:
        return CATEGORY_FIELDS[0]
    node = tree.nodes.get(filters.category_id)
    if node is None or node.depth + 1 > MAX_CATEGORY_DEPTH:
        return None
    return CATEGORY_FIELDS[node.depth + 1]
