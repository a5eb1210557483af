"""Where the search engine reads its documents' records: sources the domain apps register.

The engine imports no domain app (docs/adr/0016-search-sources.md). Each app with searchable
objects registers what it owns in its `AppConfig.ready()`: the companies app its companies,
the catalogue its products and categories, sourcing its buying requests and the suppliers'
response rates, membership the last day of each company's Gold Supplier badge. The indexer,
`tradepost reindex` and its check read through these, so a document built by any of them is
the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:
    from tradepost.search.documents import CompanyRecord, ProductRecord, RequestRecord

Ids = Iterable[int]


@dataclass(frozen=True)
class CompanySource:
    #: Companies by id (every company is searchable, whatever its products' state).
    load: Callable[[Ids], dict[int, CompanyRecord]]
    #: Every company, in id order, a chunk at a time (the argument: the chunk size).
    chunks: Callable[[int], Iterator[list[CompanyRecord]]]
    #: (id, updated_at) of every company, in id order.
    versions: Callable[[], Iterator[tuple[int, datetime]]]
    #: The companies of a results page, by id (those that still exist).
    objects: Callable[[list[int]], dict[int, Any]]
    #: Business types: code -> label in the active language.
    business_types: Callable[[], dict[str, str]]


@dataclass(frozen=True)
class ProductSource:
    #: The published products among the ids; the others are absent (the indexer removes them).
    load: Callable[[Ids], dict[int, ProductRecord]]
    #: The published products with ids in [first, last], in id order (companies are kept
    #: between calls in the process until `forget`).
    load_range: Callable[[int, int], list[ProductRecord]]
    forget: Callable[[], None]
    #: (first id, last id) of consecutive runs of the given number of published products.
    id_ranges: Callable[[int], list[tuple[int, int]]]
    #: Ids of the published products of these companies / filed under these categories or
    #: their descendants.
    of_companies: Callable[[Ids], list[int]]
    in_categories: Callable[[Ids], list[int]]
    #: (id, updated_at, the company's updated_at) of every published product, in id order.
    versions: Callable[[], Iterator[tuple[int, datetime, datetime]]]
    count: Callable[[], int]
    #: (id, parent id, depth, path, name en, zh-hans, zh-hant) of every category.
    categories: Callable[[], Iterable[tuple[Any, ...]]]
    #: The cards of a results page in a viewer's language, by id: the products among the
    #: ids that are still published (the index may hold one the database no longer shows).
    cards: Callable[[list[int], str], dict[int, Any]]


@dataclass(frozen=True)
class RequestSource:
    #: The searchable requests among the ids (open, deadline ahead); the others are absent.
    load: Callable[[Ids], dict[int, RequestRecord]]
    chunks: Callable[[int], Iterator[list[RequestRecord]]]
    #: (id, updated_at) of every searchable request, in id order.
    versions: Callable[[], Iterator[tuple[int, datetime]]]
    in_categories: Callable[[Ids], list[int]]
    #: The open requests of these buyer companies, searchable or not (a company's change of
    #: standing adds or removes them).
    of_buyers: Callable[[Ids], list[int]]
    #: The ids among these whose requests are still open though past their deadline (they
    #: wait for the expiry job: no error for `reindex --check`).
    awaiting_expiry: Callable[[Ids], set[int]]
    #: The requests of a results page in a viewer's language, by id, with their buyer and
    #: category: those still open with their deadline ahead, each with its `text` (a
    #: `catalog.selectors.LocalisedText`: as written, or machine-translated).
    objects: Callable[[list[int], str], dict[int, Any]]


@dataclass
class _Registry:
    companies: CompanySource | None = None
    products: ProductSource | None = None
    requests: RequestSource | None = None
    #: Each supplier's share of asks answered in time (None: nobody asked yet).
    response_rates: Callable[[list[int]], dict[int, float | None]] | None = None
    #: The last day each company carries the Gold Supplier badge (absent: no badge today).
    badges: Callable[[list[int]], dict[int, date]] | None = None


_registry = _Registry()


def register(
    *,
    companies: CompanySource | None = None,
    products: ProductSource | None = None,
    requests: RequestSource | None = None,
    response_rates: Callable[[list[int]], dict[int, float | None]] | None = None,
    badges: Callable[[list[int]], dict[int, date]] | None = None,
) -> None:
    """Called by the apps' `ready()`; registering a kind again replaces it."""
    for name, value in (
        ("companies", companies),
        ("products", products),
        ("requests", requests),
        ("response_rates", response_rates),
        ("badges", badges),
    ):
        if value is not None:
            setattr(_registry, name, value)


def _required(name: str) -> Any:
    value = getattr(_registry, name)
    if value is None:
        raise ImproperlyConfigured(f"No search source registered for {name}.")
    return value


def companies() -> CompanySource:
    return _required("companies")  # type: ignore[no-any-return]


def products() -> ProductSource:
    return _required("products")  # type: ignore[no-any-return]


def requests() -> RequestSource:
    return _required("requests")  # type: ignore[no-any-return]


def response_rates(company_ids: list[int]) -> dict[int, float | None]:
    """The registered response rates (none registered: no rates)."""
    if _registry.response_rates is None or not company_ids:
        return {}
    return _registry.response_rates(company_ids)


def badges(company_ids: list[int]) -> dict[int, date]:
    """The registered badges' last days (none registered: no badges)."""
    if _registry.badges is None or not company_ids:
        return {}
    return _registry.badges(company_ids)
