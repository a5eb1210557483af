"""The response rates the index holds (docs/adr/0006, "Responsiveness").

Product and company documents carry their supplier's response rate (ADR 0007), read when the
document is built. Keeping them current is the sourcing app's job
(`sourcing.responsiveness.refresh_indexed_rates`, run on the worker's timer): it compares
what suppliers' rates are now with what the index holds, read here.
"""

from __future__ import annotations

from tantivy import Query

from tradepost.search.index import company_key, schema, searcher


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
