"""Reads of the paid showcase: a company's choices as its desk shows them, and the labelled
"Sponsored" block of the home page and of the search and category pages.

Which choices show: a company's showcased products, oldest first, up to its plan's
`showcase_slots` (membership's `benefit_of_companies`), of those the published ones of a
company in good standing. Drafts, listings held for review or hidden by moderation, deleted
ones and a suspended company's never show.

Where: the home page shows any of them; a search shows those its words match the way the
search matches a listing (the same analysis, the same lexicon translations, the same share
of the query's words: `search.querying.minimum_units`), within its category filter; a
category page shows those filed under it. At most `HOME_ITEMS` or `PAGE_ITEMS`, one per
company first, in an order drawn afresh each day (deterministic within the day, so the
page cache and every visitor see the same block).

Cost: what may show is read once (three queries) and kept in the cache for
`CACHE_SECONDS` (and forgotten when a company changes its choices), so a page pays one
query: the cards of the few products it shows (`catalog.hydration.load_products`), whose
current state is checked again there. The organic results are not touched: a showcased
product also stays where it ranks.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.core.cache import cache
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tradepost.catalog.hydration import load_products, product_card
from tradepost.catalog.models import Category, Product, ProductStatus, ProductTranslation, Showcase
from tradepost.catalog.selectors import ProductCard
from tradepost.companies.models import Company, Standing
from tradepost.core.languages import normalise_ui_language
from tradepost.membership.selectors import benefit, benefit_of_companies
from tradepost.search.analysis import analyze_query, analyze_words, normalize
from tradepost.search.highlight import is_cjk_token
from tradepost.search.querying import minimum_units, query_units
from tradepost.search.selectors import expand

#: Showcased products on the home page, and above the results of a search or category page.
HOME_ITEMS = 4
PAGE_ITEMS = 3
#: Seconds the list of what may show is kept (a plan's change shows within this time; a
#: company's own change at once in the process that made it).
CACHE_SECONDS = 300
_CACHE_VERSION = 1


# --- a company's choices (its desk) -----------------------------------------------------------


class ShowcaseState:
    SHOWING = "showing"
    WAITING = "waiting"  # over the plan's slots: shows again on a plan with more
    NOT_LISTED = "not_listed"  # a draft, held for review, hidden by moderation
    SUSPENDED = "suspended"  # the company is suspended or banned


STATE_LABELS = {
    ShowcaseState.SHOWING: _("Showing"),
    ShowcaseState.WAITING: _("Waiting: over your plan's showcase slots"),
    ShowcaseState.NOT_LISTED: _("Not shown: the product is not published"),
    ShowcaseState.SUSPENDED: _("Not shown: the company is suspended"),
}


@dataclass(frozen=True)
class ShowcaseEntry:
    showcase: Showcase
    product: Product
    state: str

    @property
    def state_label(self) -> str:
        return str(STATE_LABELS[self.state])

    @property
    def showing(self) -> bool:
        return self.state == ShowcaseState.SHOWING


@dataclass(frozen=True)
class CompanyShowcase:
    """A company's showcase: its plan's slots, its choices (oldest first) and the published
    products it could still choose."""

    slots: int
    entries: list[ShowcaseEntry]
    choices: list[Product] = field(default_factory=list)

    @property
    def used(self) -> int:
        return len(self.entries)

    @property
    def free(self) -> int:
        return max(0, self.slots - self.used)

    @property
    def showing(self) -> int:
        return sum(1 for entry in self.entries if entry.showing)


def _company_rows(company_id: int) -> Any:
    """The company's showcase rows whose product still exists, oldest first."""
    return (
        Showcase.objects.filter(company_id=company_id)
        .exclude(product__status=ProductStatus.DELETED)
        .order_by("created_at", "id")
    )


def showcase_slots_used(company: Company) -> int:
    """Slots the company's choices take (a choice of a deleted product takes none)."""
    return int(_company_rows(company.pk).count())


def _state(rank: int, slots: int, product: Product, company: Company) -> str:
    if rank >= slots:
        return ShowcaseState.WAITING
    if product.status != ProductStatus.PUBLISHED:
        return ShowcaseState.NOT_LISTED
    if company.standing != Standing.ACTIVE:
        return ShowcaseState.SUSPENDED
    return ShowcaseState.SHOWING


def company_showcase(company: Company, *, today: date | None = None) -> CompanyShowcase:
    """The company's showcase as its desk page and `GET /api/v1/me/showcase` show it."""
    slots = int(benefit(company, "showcase_slots", today=today) or 0)
    rows = list(_company_rows(company.pk).select_related("product", "product__category"))
    entries = [
        ShowcaseEntry(row, row.product, _state(rank, slots, row.product, company))
        for rank, row in enumerate(rows)
    ]
    choices = list(
        Product.objects.filter(company_id=company.pk, status=ProductStatus.PUBLISHED)
        .exclude(pk__in=[row.product_id for row in rows])
        .order_by(F("published_at").desc(nulls_last=True), "-id")
        .only("id", "title", "slug", "status", "company_id", "published_at")[:500]
    )
    return CompanyShowcase(slots=slots, entries=entries, choices=choices)


# --- what may show (cached) --------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A showcased product that may show today: what a page needs to tell whether it
    matches, without reading the product again."""

    product_id: int
    company_id: int
    #: the product's category and every category above it
    category_ids: frozenset[int]
    #: analysed words of its titles (every language), keywords and category names
    words: frozenset[str]
    #: the same texts normalised, where a Chinese word cut differently is still found
    text: str


def _cache_key(today: date) -> str:
    return f"catalog:showcase:{_CACHE_VERSION}:{today.isoformat()}"


def forget_showcase_cache(today: date | None = None) -> None:
    """Forget what may show (a company changed its choices)."""
    cache.delete(_cache_key(today or timezone.localdate()))


def _ancestors(paths: Iterable[str]) -> dict[str, int]:
    """{path: id} of the categories at `paths` and above them (one query)."""
    wanted: set[str] = set()
    for path in paths:
        parts = path.split(".")
        wanted.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    if not wanted:
        return {}
    return dict(Category.objects.filter(path__in=wanted).values_list("path", "id"))


def _within_slots(rows: Sequence[Mapping[str, Any]], today: date) -> list[Mapping[str, Any]]:
    """The rows (oldest first per company) within each company's slots."""
    slots = benefit_of_companies({row["company_id"] for row in rows}, "showcase_slots", today=today)
    taken: dict[int, int] = {}
    kept = []
    for row in rows:
        rank = taken.get(row["company_id"], 0)
        taken[row["company_id"]] = rank + 1
        if rank < int(slots.get(row["company_id"]) or 0):
            kept.append(row)
    return kept


def _load_candidates(today: date) -> tuple[Candidate, ...]:
    rows = list(
        Showcase.objects.exclude(product__status=ProductStatus.DELETED)
        .order_by("company_id", "created_at", "id")
        .values(
            "product_id",
            "company_id",
            status=F("product__status"),
            standing=F("company__standing"),
            title=F("product__title"),
            keywords=F("product__keywords"),
            path=F("product__category__path"),
            name_en=F("product__category__name_en"),
            name_zh_hans=F("product__category__name_zh_hans"),
            name_zh_hant=F("product__category__name_zh_hant"),
        )
    )
    if not rows:
        return ()
    shown = [
        row
        for row in _within_slots(rows, today)
        if row["status"] == ProductStatus.PUBLISHED and row["standing"] == Standing.ACTIVE
    ]
    if not shown:
        return ()
    titles: dict[int, list[str]] = {}
    for product_id, title in ProductTranslation.objects.filter(
        product_id__in=[row["product_id"] for row in shown]
    ).values_list("product_id", "title"):
        titles.setdefault(product_id, []).append(title)
    category_ids = _ancestors(row["path"] for row in shown)
    candidates = []
    for row in shown:
        parts = row["path"].split(".")
        texts = [
            row["title"],
            *titles.get(row["product_id"], []),
            row["keywords"],
            row["name_en"],
            row["name_zh_hans"],
            row["name_zh_hant"],
        ]
        joined = " \n ".join(text for text in texts if text)
        candidates.append(
            Candidate(
                product_id=row["product_id"],
                company_id=row["company_id"],
                category_ids=frozenset(
                    category_ids[path]
                    for path in (".".join(parts[:i]) for i in range(1, len(parts) + 1))
                    if path in category_ids
                ),
                words=frozenset(analyze_words(joined)),
                text=normalize(joined),
            )
        )
    return tuple(candidates)


def showcase_candidates(*, today: date | None = None) -> tuple[Candidate, ...]:
    """Every showcased product that may show today (from the cache when it holds them)."""
    today = today or timezone.localdate()
    key = _cache_key(today)
    found = cache.get(key)
    if isinstance(found, tuple):
        return found
    candidates = _load_candidates(today)
    cache.set(key, candidates, CACHE_SECONDS)
    return candidates


# --- matching a page ---------------------------------------------------------------------------


def query_matcher(query: str) -> Callable[[Candidate], bool] | None:
    """A test of whether a showcased product matches the words of a search, as the search
    matches a listing: each unit of the query (a word, a run of single Chinese characters)
    is found as typed or as one of its lexicon translations (a Chinese word also within the
    text, however the segmenter cut it), and at least `minimum_units` of them are. None for
    a query without words."""
    analyzed = analyze_query(query or "")
    units = query_units(analyzed.words)
    if not units:
        return None
    expansion = expand(query, analyzed)
    alternatives = {
        unit: [
            frozenset({unit}),
            *(frozenset(t.tokens) for t in expansion.translations.get(unit, []) if t.tokens),
        ]
        for unit in units
    }
    needed = minimum_units(len(units))

    def matches(candidate: Candidate) -> bool:
        found = 0
        for unit in units:
            if any(words <= candidate.words for words in alternatives[unit]) or (
                is_cjk_token(unit) and unit in candidate.text
            ):
                found += 1
                if found >= needed:
                    return True
        return False

    return matches


def _draw(candidates: Sequence[Candidate], *, salt: str, today: date) -> list[Candidate]:
    """The candidates in today's order for this page: each company's first, then the rest;
    the order is a hash of the day, the page and the product (no favourite)."""

    def position(candidate: Candidate) -> bytes:
        seed = f"{today.isoformat()}\n{salt}\n{candidate.product_id}".encode(
            "utf-8", "surrogatepass"
        )
        return hashlib.blake2b(seed, digest_size=8).digest()

    ordered = sorted(candidates, key=position)
    first: list[Candidate] = []
    rest: list[Candidate] = []
    seen: set[int] = set()
    for candidate in ordered:
        (rest if candidate.company_id in seen else first).append(candidate)
        seen.add(candidate.company_id)
    return first + rest


def _cards(chosen: Sequence[Candidate], *, language: str, limit: int) -> list[ProductCard]:
    """Cards of the first `limit` of `chosen` still published by a company in good standing
    (one query)."""
    if not chosen:
        return []
    wanted = [candidate.product_id for candidate in chosen[: limit + 2]]
    loaded = load_products(wanted, language)
    cards = []
    for product_id in wanted:
        found = loaded.get(product_id)
        if found is None:
            continue
        product, thumbnail = found
        if product.status != ProductStatus.PUBLISHED or product.company.standing != (
            Standing.ACTIVE
        ):
            continue
        cards.append(product_card(product, thumbnail, language))
        if len(cards) >= limit:
            break
    return cards


def home_showcase(*, language: str, today: date | None = None) -> list[ProductCard]:
    """The home page's sponsored block: any showcased product that may show."""
    today = today or timezone.localdate()
    language = normalise_ui_language(language)
    chosen = _draw(showcase_candidates(today=today), salt="home", today=today)
    return _cards(chosen, language=language, limit=HOME_ITEMS)


def search_showcase(
    *, language: str, query: str, category_id: int | None = None, today: date | None = None
) -> list[ProductCard]:
    """The sponsored block above a product search: showcased products its words match,
    within its category; for a search without words, those of its category; nothing for a
    search with neither."""
    today = today or timezone.localdate()
    language = normalise_ui_language(language)
    candidates = showcase_candidates(today=today)
    if not candidates or (not query.strip() and category_id is None):
        return []
    tests: list[Callable[[Candidate], bool]] = []
    if category_id is not None:
        tests.append(lambda candidate: category_id in candidate.category_ids)
    if query.strip():
        matcher = query_matcher(query)
        if matcher is None:
            return []
        tests.append(matcher)
    eligible = [c for c in candidates if all(test(c) for test in tests)]
    salt = f"search\n{normalize(query)}\n{category_id or ''}"
    return _cards(_draw(eligible, salt=salt, today=today), language=language, limit=PAGE_ITEMS)


def category_showcase(
    *, language: str, category: Category, today: date | None = None
) -> list[ProductCard]:
    """The sponsored block of a category page: showcased products filed under it."""
    today = today or timezone.localdate()
    language = normalise_ui_language(language)
    eligible = [c for c in showcase_candidates(today=today) if category.pk in c.category_ids]
    chosen = _draw(eligible, salt=f"category\n{category.pk}", today=today)
    return _cards(chosen, language=language, limit=PAGE_ITEMS)


def public_showcase(
    *, language: str, query: str = "", category_id: int | None = None
) -> list[ProductCard]:
    """What the public API's `GET /showcase` answers: the block a search with these words
    and this category shows, or the home page's when neither is given."""
    if not query.strip() and category_id is None:
        return home_showcase(language=language)
    return search_showcase(language=language, query=query, category_id=category_id)
