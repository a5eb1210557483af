"""Matching requests: open buying requests ranked for one supplier by its own products.

The supplier's published products (the most recent `MAX_PRODUCTS`) are analysed once per call
into a set of terms: the words of each title (and of its translations) plus their glossary
translations, so a catalogue of 圆珠笔 also holds "ballpoint" and "pen". Each open request of
another company is analysed into title terms, description terms and the glossary translations
of its title; that analysis depends only on the request, so it is cached per request (and
revision) and a board of thousands of requests costs one query and a cache read.

Score (documented in docs/adr/0007-responsiveness.md with the responsiveness measure):
each distinct title term found in the supplier's terms counts `TITLE_WEIGHT`, each distinct
description term `DESCRIPTION_WEIGHT`; a request in the same leaf category as one of the
products adds `SAME_CATEGORY_WEIGHT`, one in a sibling category `NEAR_CATEGORY_WEIGHT`.
Requests scoring under `MIN_SCORE` (one stray description word, a sibling category alone)
are left out.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from django.core.cache import cache
from django.db.models import F
from django.utils import timezone, translation
from django.utils.html import strip_tags
from django.utils.translation import gettext as _

from tradepost.catalog.models import Category, Product, ProductStatus, ProductTranslation
from tradepost.companies.models import Company
from tradepost.companies.selectors import suspended_company_ids
from tradepost.search.analysis import analyze_words
from tradepost.search.glossary import expand_query
from tradepost.sourcing.models import BuyingRequest, RequestStatus

#: The supplier's most recent published products that are analysed.
MAX_PRODUCTS = 500
#: At most this many characters of a request's description are analysed.
MAX_DESCRIPTION_CHARS = 2000
MAX_LIMIT = 200

TITLE_WEIGHT = 3.0
DESCRIPTION_WEIGHT = 1.0
SAME_CATEGORY_WEIGHT = 4.0
NEAR_CATEGORY_WEIGHT = 1.5
#: Below this a request is not shown: one stray word of a description is not a match.
MIN_SCORE = 2.0

#: Bumped when the cached analysis of a request changes shape.
_CACHE_VERSION = 1
_CACHE_SECONDS = 24 * 3600
#: Analysed requests kept in each process (a few hundred bytes each).
LOCAL_CACHE_ENTRIES = 20_000


@dataclass(frozen=True)
class RequestMatch:
    """One open request, how well it matches and why (sentences in the asked language)."""

    request: BuyingRequest
    score: float
    reasons: list[str]
    product_id: int | None = None
    product_title: str = ""


@dataclass(frozen=True)
class _RequestTerms:
    title: frozenset[str]
    expanded: frozenset[str]
    description: frozenset[str]
    #: glossary terms of the title (as `expand_query(...).matched` gives them)
    glossary_matched: tuple[str, ...]


@dataclass
class _Profile:
    """What a supplier sells, analysed once per call."""

    #: every term of the supplier's titles, with their glossary translations
    terms: set[str] = field(default_factory=set)
    #: term -> ids of products whose title holds it, most recent first
    products_by_term: dict[str, list[int]] = field(default_factory=dict)
    #: product id -> the title's own words (no translations)
    own_words: dict[int, frozenset[str]] = field(default_factory=dict)
    titles: dict[int, str] = field(default_factory=dict)
    #: product id -> glossary terms found in its title
    glossary_matched: dict[int, tuple[str, ...]] = field(default_factory=dict)
    categories: set[int] = field(default_factory=set)
    parents: set[int] = field(default_factory=set)
    rank: dict[int, int] = field(default_factory=dict)


def _meaningful(tokens: list[str]) -> set[str]:
    """Tokens worth matching: not bare numbers nor single Latin letters."""
    return {t for t in tokens if not t.replace(".", "").isdigit() and (len(t) > 1 or t > "\u2e7f")}


@lru_cache(maxsize=4096)
def _translations(term: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """The glossary's translations of one glossary term: (display form, analysed words)."""
    expansion = expand_query(term)
    return tuple((label, frozenset(analyze_words(label))) for label in expansion.labels)


def _supplier_profile(company: Company) -> _Profile:
    profile = _Profile()
    rows = list(
        Product.objects.filter(company=company, status=ProductStatus.PUBLISHED)
        .order_by(F("published_at").desc(nulls_last=True), "-id")
        .values_list("id", "title", "category_id", "category__parent_id")[:MAX_PRODUCTS]
    )
    if not rows:
        return profile
    extra_titles: dict[int, list[str]] = {}
    for product_id, title in ProductTranslation.objects.filter(
        product_id__in=[row[0] for row in rows]
    ).values_list("product_id", "title"):
        extra_titles.setdefault(product_id, []).append(title)
    for rank, (product_id, title, category_id, parent_id) in enumerate(rows):
        profile.rank[product_id] = rank
        profile.titles[product_id] = title
        profile.categories.add(category_id)
        if parent_id is not None:
            profile.parents.add(parent_id)
        own: set[str] = set()
        expanded: set[str] = set()
        matched: list[str] = []
        for text in [title, *extra_titles.get(product_id, [])]:
            own |= _meaningful(analyze_words(text))
            expansion = expand_query(text)
            expanded |= _meaningful(expansion.terms)
            matched.extend(expansion.matched)
        profile.own_words[product_id] = frozenset(own)
        profile.glossary_matched[product_id] = tuple(dict.fromkeys(matched))
        for term in own | expanded:
            profile.terms.add(term)
            profile.products_by_term.setdefault(term, []).append(product_id)
    return profile


def _analyse_request(title: str, description: str) -> _RequestTerms:
    title_words = _meaningful(analyze_words(title))
    expansion = expand_query(title)
    plain = strip_tags(description or "")[:MAX_DESCRIPTION_CHARS]
    description_words = _meaningful(analyze_words(plain)) - title_words
    return _RequestTerms(
        title=frozenset(title_words),
        expanded=frozenset(_meaningful(expansion.terms)) - title_words,
        description=frozenset(description_words),
        glossary_matched=tuple(expansion.matched),
    )


def _cache_key(request_id: int, updated_at: datetime) -> str:
    return f"sourcing:match:{_CACHE_VERSION}:{request_id}:{updated_at.timestamp():.6f}"


class _LocalTerms:
    """A bounded in-process LRU of analysed requests, in front of Django's cache (whose
    default local-memory backend keeps only 300 entries)."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self.entries: OrderedDict[str, _RequestTerms] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: str) -> _RequestTerms | None:
        with self.lock:
            value = self.entries.get(key)
            if value is not None:
                self.entries.move_to_end(key)
            return value

    def put(self, key: str, value: _RequestTerms) -> None:
        with self.lock:
            self.entries[key] = value
            self.entries.move_to_end(key)
            while len(self.entries) > self.max_entries:
                self.entries.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()


_local_terms = _LocalTerms(LOCAL_CACHE_ENTRIES)


def _request_terms(rows: list[tuple[int, datetime]]) -> dict[int, _RequestTerms]:
    """Analysed terms of the requests: from this process's LRU, then the shared cache, else
    analysed now (and kept in both)."""
    keys = {request_id: _cache_key(request_id, updated_at) for request_id, updated_at in rows}
    result: dict[int, _RequestTerms] = {}
    unknown: dict[int, str] = {}
    for request_id, key in keys.items():
        local = _local_terms.get(key)
        if local is not None:
            result[request_id] = local
        else:
            unknown[request_id] = key
    missing: list[int] = []
    if unknown:
        cached = cache.get_many(list(unknown.values()))
        for request_id, key in unknown.items():
            value = cached.get(key)
            if isinstance(value, _RequestTerms):
                result[request_id] = value
                _local_terms.put(key, value)
            else:
                missing.append(request_id)
    if missing:
        fresh: dict[str, _RequestTerms] = {}
        for start in range(0, len(missing), 500):
            texts = BuyingRequest.objects.filter(pk__in=missing[start : start + 500]).values_list(
                "id", "title", "description"
            )
            for request_id, title, description in texts:
                terms = _analyse_request(title, description)
                result[request_id] = terms
                fresh[keys[request_id]] = terms
                _local_terms.put(keys[request_id], terms)
        cache.set_many(fresh, _CACHE_SECONDS)
    return result


def _best_product(terms: _RequestTerms, profile: _Profile) -> int | None:
    """The product sharing the most title terms with the request (the most recent on ties)."""
    counts: Counter[int] = Counter()
    for term in terms.title | terms.expanded:
        for product_id in profile.products_by_term.get(term, ()):
            counts[product_id] += 1
    if not counts:
        for term in terms.description:
            for product_id in profile.products_by_term.get(term, ()):
                counts[product_id] += 1
    if not counts:
        return None
    return min(counts, key=lambda pid: (-counts[pid], profile.rank[pid]))


def _glossary_pair(terms: _RequestTerms, product_id: int, profile: _Profile) -> tuple[str, str]:
    """A glossary pair (request's term, product's term) that links the two, or ("", "")."""
    own = profile.own_words[product_id]
    for source in terms.glossary_matched:
        for label, words in _translations(source):
            if words and words <= own:
                return source, label
    request_words = terms.title | terms.description
    for source in profile.glossary_matched.get(product_id, ()):
        for label, words in _translations(source):
            if words and words <= request_words:
                return label, source
    return "", ""


def _product_reason(terms: _RequestTerms, product_id: int, profile: _Profile) -> str:
    title = profile.titles[product_id]
    if terms.title & profile.own_words[product_id]:
        return _("matches your product %(product)s") % {"product": title}
    source, target = _glossary_pair(terms, product_id, profile)
    if source:
        return _("matches your product %(product)s (glossary: %(source)s → %(target)s)") % {
            "product": title,
            "source": source,
            "target": target,
        }
    return _("matches your product %(product)s") % {"product": title}


def _score(
    terms: _RequestTerms, category_id: int, parent_id: int | None, profile: _Profile
) -> tuple[float, str]:
    title_hits = (terms.title | terms.expanded) & profile.terms
    description_hits = terms.description & profile.terms
    score = TITLE_WEIGHT * len(title_hits) + DESCRIPTION_WEIGHT * len(description_hits)
    category = ""
    if category_id in profile.categories:
        score += SAME_CATEGORY_WEIGHT
        category = "same"
    elif parent_id is not None and parent_id in profile.parents:
        score += NEAR_CATEGORY_WEIGHT
        category = "near"
    return score, category


def matching_requests(*, company: Company, language: str, limit: int = 50) -> list[RequestMatch]:
    """Open requests of other companies (deadline ahead, not full) ranked by how well they
    match `company`'s published products, best first, each with its reasons in `language`."""
    limit = max(1, min(int(limit), MAX_LIMIT))
    profile = _supplier_profile(company)
    if not profile.rank:
        return []
    rows = list(
        BuyingRequest.objects.filter(
            status=RequestStatus.OPEN,
            deadline__gt=timezone.now(),
            quotation_count__lt=F("quote_limit"),
        )
        .exclude(buyer_id=company.pk)
        .exclude(buyer_id__in=suspended_company_ids())
        .values_list("id", "updated_at", "category_id", "category__parent_id")
    )
    analysed = _request_terms([(row[0], row[1]) for row in rows])
    scored: list[tuple[float, int, str]] = []
    for request_id, _updated, category_id, parent_id in rows:
        terms = analysed.get(request_id)
        if terms is None:
            continue
        score, category = _score(terms, category_id, parent_id, profile)
        if score >= MIN_SCORE:
            scored.append((score, request_id, category))
    # Ties: the newest request first (ids grow with posting).
    scored.sort(key=lambda item: (-item[0], -item[1]))
    top = scored[:limit]
    objects = BuyingRequest.objects.select_related("buyer", "category").in_bulk(
        [item[1] for item in top]
    )
    matches: list[RequestMatch] = []
    with translation.override(language):
        for score, request_id, category in top:
            item = objects.get(request_id)
            if item is None:
                continue
            terms = analysed[request_id]
            reasons: list[str] = []
            product_id = _best_product(terms, profile)
            if product_id is not None:
                reasons.append(_product_reason(terms, product_id, profile))
            reasons.extend(_category_reason(item.category, category, language))
            matches.append(
                RequestMatch(
                    request=item,
                    score=score,
                    reasons=reasons,
                    product_id=product_id,
                    product_title=profile.titles.get(product_id, "") if product_id else "",
                )
            )
    return matches


def _category_reason(category: Category, kind: str, language: str) -> list[str]:
    name = category.name_for(language)
    if kind == "same":
        return [_("same category: %(category)s") % {"category": name}]
    if kind == "near":
        return [_("related category: %(category)s") % {"category": name}]
    return []
