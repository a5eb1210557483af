"""Small whole-number keys that product facets are counted by.

Counting a facet visits every matching listing. tantivy counts a whole-number fast field
with few distinct values almost for free, but a multi-valued text field (Incoterms) or a
set of ranges (MOQ, price, lead time) costs a lookup per listing per bucket: at a million
listings those four facets were two thirds of the time of counting a common word's facets.
So each product document also holds, computed when it is indexed:

- `incoterms_mask`: one bit per Incoterm the listing offers (`INCOTERM_CODES` order);
- `moq_band`, `price_band`, `lead_band`: which of the facet's bands the value falls in.

A terms aggregation over each gives one bucket per distinct key, and `decode` turns them
back into the per-Incoterm and per-band counts the facets show. The bands follow the
choices below; changing them changes the documents (bump the index schema version).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tradepost.core.incoterms import Incoterm

#: "MOQ at most N" choices; "lead time at most N days" choices; USD price bands.
MOQ_LIMITS = (1, 10, 100, 500, 1000, 5000)
LEAD_TIME_LIMITS = (7, 15, 30, 60)
PRICE_BANDS: tuple[tuple[float | None, float | None], ...] = (
    (None, 1),
    (1, 5),
    (5, 20),
    (20, 100),
    (100, 500),
    (500, None),
)
#: Filters compare decimals with this tolerance ("at most 500" includes 500.0000001).
EPSILON = 1e-6

#: Bit i of `incoterms_mask` stands for INCOTERM_CODES[i].
INCOTERM_CODES: tuple[str, ...] = tuple(Incoterm.values)
_INCOTERM_BITS = {code: 1 << bit for bit, code in enumerate(INCOTERM_CODES)}

# A value is in band i when it is below the i-th edge (and not below the one before).
_MOQ_EDGES = [limit + EPSILON for limit in MOQ_LIMITS]
_LEAD_EDGES = [limit + 1 for limit in LEAD_TIME_LIMITS]
_PRICE_EDGES = [high for _low, high in PRICE_BANDS if high is not None]

#: The facets counted from these keys, and the field each is counted by.
KEY_FIELDS = {
    "incoterms": "incoterms_mask",
    "moq": "moq_band",
    "price": "price_band",
    "lead_time": "lead_band",
}
#: How many bands each banded facet has.
BAND_COUNTS = {
    "moq": len(MOQ_LIMITS) + 1,
    "price": len(PRICE_BANDS),
    "lead_time": len(LEAD_TIME_LIMITS) + 1,
}


def incoterm_mask(codes: Iterable[str]) -> int | None:
    """The bits of the Incoterms offered (None when none is: the listing is not counted)."""
    mask = 0
    for code in codes:
        mask |= _INCOTERM_BITS.get(code, 0)
    return mask or None


def moq_band(moq: float | None) -> int | None:
    """0 for at most 1, 1 for at most 10 (above 1), ... len(MOQ_LIMITS) for above 5,000."""
    return None if moq is None else bisect_right(_MOQ_EDGES, moq)


def lead_band(days: int | None) -> int | None:
    return None if days is None else bisect_right(_LEAD_EDGES, days)


def price_band(price_usd: float | None) -> int | None:
    """The PRICE_BANDS index of a lowest USD price (None without a price)."""
    return None if price_usd is None else bisect_right(_PRICE_EDGES, price_usd)


def key_aggregations(names: Sequence[str]) -> dict[str, Any]:
    """Terms aggregations over the keys of the named facets (those in KEY_FIELDS)."""
    return {
        name: {"terms": {"field": KEY_FIELDS[name], "size": 4096}}
        for name in names
        if name in KEY_FIELDS
    }


def decode(aggregation: Mapping[str, Any]) -> dict[str, Any]:
    """`aggregation` with the key facets' buckets turned into what the facets show:
    `incoterms` one bucket per code (most listings first), `moq`, `price` and `lead_time`
    one bucket per band in band order (zero counts included). Other entries pass as
    they are."""
    decoded = dict(aggregation)
    if "incoterms" in aggregation:
        counts = dict.fromkeys(INCOTERM_CODES, 0)
        for key, count in _key_counts(aggregation["incoterms"]):
            for code, bit in _INCOTERM_BITS.items():
                if key & bit:
                    counts[code] += count
        ordered = sorted(
            ((code, count) for code, count in counts.items() if count), key=lambda p: -p[1]
        )
        decoded["incoterms"] = _buckets(ordered)
    for name, size in BAND_COUNTS.items():
        if name in aggregation:
            bands = [0] * size
            for key, count in _key_counts(aggregation[name]):
                if 0 <= key < size:
                    bands[key] += count
            decoded[name] = _buckets(list(enumerate(bands)))
    return decoded


def _key_counts(result: Mapping[str, Any]) -> list[tuple[int, int]]:
    pairs = []
    for bucket in result.get("buckets", []):
        key = bucket.get("key")
        if key is not None:
            pairs.append((int(key), int(bucket.get("doc_count", 0))))
    return pairs


def _buckets(pairs: Sequence[tuple[Any, int]]) -> dict[str, Any]:
    return {"buckets": [{"key": key, "doc_count": count} for key, count in pairs]}
