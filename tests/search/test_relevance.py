"""Relevance of product search over the demo catalogue: MRR@10 of a judged query collection.

The collection is tests/search/relevance/queries.json. Each query names the product templates
of the demo (the "k" keys of tradepost/demo/data/products.json) whose listings are the right
answers, optionally narrowed to listings written in certain languages ("languages") or whose
title (original or a translation) contains a text ("contains", compared after the search
analysis's own normalisation, so "500ml" and "５００ＭＬ" are the same). A listing's template is
found by its exact title in the demo plan, which the seed makes deterministic; no database id is
stored anywhere, so the collection survives reloads and changes to unrelated templates.

The score of a query is 1/rank of the first right answer in the top 10 (0 when none is there);
MRR@10 is their mean. The test fails when it drops below MRR_THRESHOLD, the value reached when
the collection was written (rounded down). Run with -s to see the per-class scores and the
queries that miss.

Reached with the demo below (seed 20250601, 60 companies, 1,200 products), 307 queries:
MRR@10 = 0.9804 when written (0.9714 before the glossary pairs the collection showed were
missing); 0.9836 since the fuzzy retry starts from the words as typed (misspelt 0.95 -> 1.0);
0.9785 with ranked retrieval (ADR 0008), where translations are no longer looked for in
descriptions: an English query lists the English listings that name the product in their
title before Chinese listings that name it (cross_en_zh 1.0 -> 0.953: "jeans" finds the
Chinese jeans at rank 8, after English ones). This collection flatters the glossary (it was
written from the same vocabulary) and only guards against regressions; the judged real
queries (tests/search/test_real_relevance.py) decide ranking changes.
Per class then: english 1.0000 (60), simplified 1.0000 (65), traditional 0.9833 (40),
cross_en_zh 1.0000 (40), cross_zh_en 0.8790 (36), misspelt 1.0000 (20), units 1.0000 (34),
fullwidth 1.0000 (12). Known misses: Chinese queries whose right answers are English listings
rank the Chinese listings of the same product first (direct matches above glossary matches, by
design); 筆電 (Taiwanese for laptop) ranks laptop backpacks first.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.built_once import built_once
from tradepost.catalog.models import Product
from tradepost.demo.generator import DEFAULT_SEED, build_plan
from tradepost.demo.selectors import leaf_categories
from tradepost.demo.services import demo_load
from tradepost.demo.vocabulary import load_vocabulary
from tradepost.search import index, selectors
from tradepost.search.analysis import normalize
from tradepost.search.indexer import rebuild_now
from tradepost.search.selectors import search_products

COLLECTION = Path(__file__).resolve().parent / "relevance" / "queries.json"
DEMO_COMPANIES = 60
DEMO_PRODUCTS = 1200
CUTOFF = 10
MIN_QUERIES = 120
CLASSES = (
    "english",
    "simplified",
    "traditional",
    "cross_en_zh",
    "cross_zh_en",
    "misspelt",
    "units",
    "fullwidth",
)

#: MRR@10 reached when the collection was written, rounded down to two decimals.
MRR_THRESHOLD = 0.97
#: Per class, for the record (not enforced one by one).
REACHED_BY_CLASS = {
    "english": 1.0,
    "simplified": 1.0,
    "traditional": 1.0,
    "cross_en_zh": 0.9531,
    "cross_zh_en": 0.8688,
    "misspelt": 1.0,
    "units": 1.0,
    "fullwidth": 1.0,
}


# ---------------------------------------------------------------------------------------
# The collection.


@dataclass(frozen=True)
class JudgedQuery:
    id: str
    kind: str
    query: str
    #: UI language the search runs in (facet labels and hydration only).
    language: str
    templates: frozenset[str]
    languages: frozenset[str]
    contains: str


@dataclass(frozen=True)
class Listing:
    template: str
    language: str
    #: Normalised titles: the original and its translations.
    titles: tuple[str, ...]


def load_collection(path: Path = COLLECTION) -> list[JudgedQuery]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    queries = []
    for item in raw["queries"]:
        queries.append(
            JudgedQuery(
                id=item["id"],
                kind=item["class"],
                query=item["q"],
                language=item.get("ui", "en"),
                templates=frozenset(item["templates"]),
                languages=frozenset(item.get("languages", ())),
                contains=normalize(item.get("contains", "")),
            )
        )
    return queries


def is_relevant(query: JudgedQuery, listing: Listing) -> bool:
    if listing.template not in query.templates:
        return False
    if query.languages and listing.language not in query.languages:
        return False
    return not query.contains or any(query.contains in title for title in listing.titles)


def catalogue_listings(*, seed: int, companies: int, products: int) -> dict[int, Listing]:
    """Product id -> its template, language and titles, for the demo loaded with these
    arguments (titles are unique in a plan, so the title finds the plan's product)."""
    plan = build_plan(
        seed=seed,
        companies=companies,
        products=products,
        vocab=load_vocabulary(),
        leaves=leaf_categories(),
    )
    by_title = {spec.title: spec for spec in plan.products}
    listings = {}
    for product_id, title, language in Product.objects.values_list(
        "id", "title", "original_language"
    ):
        spec = by_title[title]
        titles = (spec.title, *(translation.title for translation in spec.translations))
        listings[product_id] = Listing(
            template=spec.template_key,
            language=language,
            titles=tuple(normalize(text) for text in titles),
        )
    return listings


# ---------------------------------------------------------------------------------------
# Scoring.


@dataclass(frozen=True)
class Outcome:
    query: JudgedQuery
    #: 1-based rank of the first right answer in the top CUTOFF, or None.
    rank: int | None
    top: tuple[int, ...]

    @property
    def reciprocal_rank(self) -> float:
        return 1.0 / self.rank if self.rank else 0.0


@dataclass(frozen=True)
class Report:
    outcomes: list[Outcome]

    @property
    def mrr(self) -> float:
        return sum(o.reciprocal_rank for o in self.outcomes) / len(self.outcomes)

    def by_class(self) -> dict[str, tuple[float, int]]:
        groups: dict[str, list[Outcome]] = defaultdict(list)
        for outcome in self.outcomes:
            groups[outcome.query.kind].append(outcome)
        return {
            kind: (sum(o.reciprocal_rank for o in items) / len(items), len(items))
            for kind, items in sorted(groups.items())
        }

    def misses(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.rank != 1]

    def describe(self, listings: dict[int, Listing]) -> str:
        lines = [f"MRR@{CUTOFF} = {self.mrr:.4f} over {len(self.outcomes)} queries"]
        for kind, (mrr, count) in self.by_class().items():
            lines.append(f"  {kind:<12} {mrr:.4f}  ({count} queries)")
        lines.append("Queries whose first right answer is not at rank 1:")
        for outcome in self.misses():
            q = outcome.query
            found = "none in top 10" if outcome.rank is None else f"rank {outcome.rank}"
            got = ", ".join(
                f"{listings[i].template}/{listings[i].language}" if i in listings else str(i)
                for i in outcome.top[:3]
            )
            lines.append(f"  [{q.id}] {q.query!r}: {found}; top 3: {got}")
        return "\n".join(lines)


Search = Callable[[JudgedQuery], list[int]]


def service_search(query: JudgedQuery) -> list[int]:
    """The ids of the top CUTOFF products for a query, through the search service."""
    result = search_products(
        query=query.query, language=query.language, per_page=CUTOFF, with_facets=False
    )
    return [hit.product.id for hit in result.hits]


def evaluate(
    queries: list[JudgedQuery], listings: dict[int, Listing], search: Search = service_search
) -> Report:
    outcomes = []
    for query in queries:
        top = tuple(search(query)[:CUTOFF])
        rank = next(
            (
                position
                for position, product_id in enumerate(top, start=1)
                if product_id in listings and is_relevant(query, listings[product_id])
            ),
            None,
        )
        outcomes.append(Outcome(query=query, rank=rank, top=top))
    return Report(outcomes)


# ---------------------------------------------------------------------------------------
# Fixtures: the demo catalogue and its index, built once for the module and rolled back.


@dataclass(frozen=True)
class RelevanceCatalogue:
    index_dir: Path
    listings: dict[int, Listing]


@pytest.fixture(scope="module")
def relevance_catalogue(
    django_db_setup, django_db_blocker, tmp_path_factory
) -> Iterator[RelevanceCatalogue]:
    root = tmp_path_factory.mktemp("relevance")
    with built_once(django_db_blocker, root):
        demo_load(seed=DEFAULT_SEED, companies=DEMO_COMPANIES, products=DEMO_PRODUCTS)
        index.forget_indexes()
        selectors.clear_caches()
        rebuild_now(threads=1)
        listings = catalogue_listings(
            seed=DEFAULT_SEED, companies=DEMO_COMPANIES, products=DEMO_PRODUCTS
        )
        yield RelevanceCatalogue(index_dir=root / "index", listings=listings)


@pytest.fixture(autouse=True)
def _isolated_search_index(settings, relevance_catalogue):
    """Overrides the empty index every test gets with the module's demo index."""
    settings.TRADEPOST_INDEX_DIR = relevance_catalogue.index_dir
    index.forget_indexes()
    selectors.clear_caches()
    yield relevance_catalogue.index_dir
    index.forget_indexes()
    selectors.clear_caches()


pytestmark = pytest.mark.django_db


# ---------------------------------------------------------------------------------------
# Tests.


def test_the_collection_is_large_varied_and_answerable(relevance_catalogue):
    queries = load_collection()
    assert len(queries) >= MIN_QUERIES
    assert len({q.id for q in queries}) == len(queries), "query ids must be unique"
    assert {q.kind for q in queries} == set(CLASSES)
    known = {template.key for template in load_vocabulary().templates}
    listings = relevance_catalogue.listings.values()
    for query in queries:
        assert query.templates <= known, (query.id, query.templates - known)
        assert any(is_relevant(query, listing) for listing in listings), (
            f"{query.id}: no listing of the demo is a right answer"
        )


def test_mrr_at_10_stays_at_the_recorded_level(relevance_catalogue):
    report = evaluate(load_collection(), relevance_catalogue.listings)
    print()
    print(report.describe(relevance_catalogue.listings))
    assert report.mrr >= MRR_THRESHOLD, report.describe(relevance_catalogue.listings)
