"""Keeping the response rates in the index current (docs/adr/0006, "Responsiveness").

Product and company documents carry their supplier's response rate (ADR 0007), read when the
document is built. A rate moves when buyers ask and suppliers answer, which writes no
product or company, so the indexer looks every few minutes at the suppliers with new asks,
answers or quotations since its last look, measures them again, and records a company change
(which rebuilds the company's documents) for each one whose rate moved materially: by
`MATERIAL_CHANGE` or more, or from "nobody asked yet" to a number. Rates that drift only
because old asks leave the 90-day window are refreshed by the next change of the company or
the listing, or by `tradepost reindex` (run nightly).
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from tantivy import Query

from tradepost.search.index import company_key, schema, searcher
from tradepost.search.outbox import OutboxKind, record_changes

#: A change of the rate smaller than this (0-1) leaves the documents as they are.
MATERIAL_CHANGE = 0.05


def active_suppliers(*, since: datetime) -> set[int]:
    """Companies asked, answering or quoting since `since`."""
    from django.db.models import Q

    from tradepost.messaging.models import Conversation
    from tradepost.sourcing.models import Quotation

    ids = set(
        Conversation.objects.filter(
            Q(created_at__gte=since) | Q(supplier_first_reply_at__gte=since)
        ).values_list("supplier_company_id", flat=True)
    )
    ids.update(
        Quotation.objects.filter(created_at__gte=since).values_list("supplier_id", flat=True)
    )
    return {int(i) for i in ids if i is not None}


def indexed_rates(company_ids: set[int]) -> dict[int, float | None]:
    """The response rate each company's document holds (absent: not indexed)."""
    if not company_ids:
        return {}
    s = searcher()
    # Each company document's unique key (ids alone would also match its products).
    query = Query.term_set_query(schema(), "key", [company_key(i) for i in sorted(company_ids)])
    hits = s.search(query, len(company_ids) * 2 + 1, False).hits
    addresses = [address for _score, address in hits]
    if not addresses:
        return {}
    ids = s.fast_field_values("id", addresses)
    rates = s.fast_field_values("response_rate", addresses)
    return {
        int(i): (None if r is None else float(r))
        for i, r in zip(ids, rates, strict=True)
        if i is not None
    }


def materially_different(current: float | None, indexed: float | None) -> bool:
    if current is None or indexed is None:
        return (current is None) != (indexed is None)
    return abs(current - indexed) >= MATERIAL_CHANGE


def refresh_response_rates(*, since: datetime) -> int:
    """Record a company change for each supplier active since `since` whose response rate
    moved materially from the one its documents hold; the number recorded."""
    from tradepost.sourcing.responsiveness import supplier_responsiveness_many

    active = active_suppliers(since=since)
    if not active:
        return 0
    held = indexed_rates(active)
    measured = supplier_responsiveness_many(active)
    changed = [
        company_id
        for company_id in sorted(active)
        if company_id in held
        and materially_different(measured[company_id].response_rate, held[company_id])
    ]
    if changed:
        with transaction.atomic():
            record_changes(kind=OutboxKind.COMPANY, object_ids=changed)
    return len(changed)
