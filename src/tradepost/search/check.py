"""Comparing the search index with the database (`tradepost reindex --check`).

A product document is stale when its recorded `updated_at` (or its company's) differs from
the database's. Category renames do not change those stamps; a rename is applied through the
outbox like any change, but the check cannot see a missed one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Max
from tantivy import FieldType, Occur, Query

from tradepost.search import sources
from tradepost.search.index import (
    KIND_COMPANY,
    KIND_PRODUCT,
    KIND_REQUEST,
    read_state,
    schema,
    searcher,
)
from tradepost.search.models import IndexOutbox

_CHUNK = 50_000


@dataclass
class CheckReport:
    indexed_products: int = 0
    indexed_companies: int = 0
    published_products: int = 0
    companies: int = 0
    pending_rows: int = 0
    missing: list[int] = field(default_factory=list)
    stale: list[int] = field(default_factory=list)
    extra: list[int] = field(default_factory=list)
    missing_companies: list[int] = field(default_factory=list)
    stale_companies: list[int] = field(default_factory=list)
    extra_companies: list[int] = field(default_factory=list)
    indexed_requests: int = 0
    open_requests: int = 0
    missing_requests: list[int] = field(default_factory=list)
    stale_requests: list[int] = field(default_factory=list)
    #: Closed, awarded, expired or deleted requests still in the index (a request whose
    #: deadline passed a moment ago is not searched any more, so it is not counted).
    extra_requests: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (
            self.missing
            or self.stale
            or self.extra
            or self.missing_companies
            or self.stale_companies
            or self.extra_companies
            or self.missing_requests
            or self.stale_requests
            or self.extra_requests
        )


def _microseconds(value) -> int:
    return int(value.timestamp() * 1_000_000) if value else 0


def indexed_versions(kind: str) -> dict[int, tuple[int, int]]:
    """id -> (version, company_version) of every document of `kind` in the index."""
    s = searcher()
    kind_query = Query.term_query(schema(), "kind", kind)
    found: dict[int, tuple[int, int]] = {}
    top = s.search(kind_query, 1, True, "id", 0).hits
    if not top:
        return found
    max_id = int(s.fast_field_values("id", [top[0][1]])[0] or 0)
    for low in range(0, max_id + 1, _CHUNK):
        chunk_query = Query.boolean_query(
            [
                (Occur.Must, kind_query),
                (
                    Occur.Must,
                    Query.range_query(schema(), "id", FieldType.Unsigned, low, low + _CHUNK - 1),
                ),
            ]
        )
        hits = s.search(chunk_query, _CHUNK + 1, False).hits
        addresses = [address for _score, address in hits]
        if not addresses:
            continue
        ids = s.fast_field_values("id", addresses)
        versions = s.fast_field_values("version", addresses)
        company_versions = s.fast_field_values("company_version", addresses)
        for doc_id, version, company_version in zip(ids, versions, company_versions, strict=True):
            if doc_id is None:
                continue
            if int(doc_id) in found:
                # Two documents for one object: report it as stale.
                found[int(doc_id)] = (-1, -1)
            else:
                found[int(doc_id)] = (int(version or 0), int(company_version or 0))
    return found


def _compare(
    indexed: dict[int, tuple[int, int]], rows: Iterable[tuple[Any, ...]]
) -> tuple[int, list[int], list[int], set[int]]:
    """The database's rows of one kind, each `(id, stamp, ...)` as its source's `versions`
    gives them, against the index's documents (`indexed_versions`): how many rows, the ids
    missing from the index, those whose stamps differ there (stale), and the indexed ids
    that no row has (extra)."""
    count = 0
    missing: list[int] = []
    stale: list[int] = []
    seen: set[int] = set()
    for object_id, *stamps in rows:
        count += 1
        seen.add(object_id)
        versions = indexed.get(object_id)
        if versions is None:
            missing.append(object_id)
        elif versions[: len(stamps)] != tuple(map(_microseconds, stamps)):
            stale.append(object_id)
    return count, missing, stale, set(indexed) - seen


def check_index() -> CheckReport:
    report = CheckReport()
    state = read_state()
    last = IndexOutbox.objects.aggregate(last=Max("id"))["last"] or 0
    report.pending_rows = (
        IndexOutbox.objects.filter(id__gt=state.position).count() if state else last
    )

    indexed = indexed_versions(KIND_PRODUCT)
    report.indexed_products = len(indexed)
    counted = _compare(indexed, sources.products().versions())
    report.published_products, report.missing, report.stale, extra = counted
    report.extra = sorted(extra)

    indexed = indexed_versions(KIND_COMPANY)
    report.indexed_companies = len(indexed)
    counted = _compare(indexed, sources.companies().versions())
    report.companies, report.missing_companies, report.stale_companies, extra = counted
    report.extra_companies = sorted(extra)

    indexed = indexed_versions(KIND_REQUEST)
    report.indexed_requests = len(indexed)
    counted = _compare(indexed, sources.requests().versions())
    report.open_requests, report.missing_requests, report.stale_requests, extra = counted
    if extra:
        # Open requests just past their deadline wait for the expiry job; not an error.
        extra -= sources.requests().awaiting_expiry(extra)
    report.extra_requests = sorted(extra)
    return report
