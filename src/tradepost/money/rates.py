"""Reading the exchange-rate table and converting with it.

The search index turns every listed price into US dollars when it builds a document
(`to_usd`); it reads the table once into a snapshot and takes a fresh one at the start of each
batch of changes (`refresh_rates`), so a rate the operator edits reaches every document the
edit re-queues (`tradepost.money.services.exchange_rate_set`). A currency missing from the
table leaves a listing without a dollar price: no price filter matches it and it sorts after
priced listings.

Pages read the whole table with its dates (`rate_table`) to show prices in the viewer's display
currency (`tradepost.money.display`) and to compare quotations; this process keeps it for
TABLE_SECONDS, so a page costs no query for it, and a rate changed through the service is seen
at once in the process that changed it and within TABLE_SECONDS in the others.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import date
from decimal import Decimal

from tradepost.money.models import ExchangeRate

#: Seconds a process keeps the table it read for the pages (`rate_table`).
TABLE_SECONDS = 60.0

_snapshot: dict[str, Decimal] | None = None
_table: tuple[float, dict[str, ExchangeRate]] | None = None


def refresh_rates() -> dict[str, Decimal]:
    """Read the table again (US dollars per unit, by currency code)."""
    global _snapshot
    _snapshot = dict(ExchangeRate.objects.values_list("currency", "rate_to_usd"))
    return _snapshot


def forget_rates() -> None:
    """Drop this process's snapshots; the next conversion reads the table."""
    global _snapshot, _table
    _snapshot = None
    _table = None


def rate_table() -> dict[str, ExchangeRate]:
    """Every row of the table (with its date), by code, as read at most TABLE_SECONDS ago."""
    global _table
    now = time.monotonic()
    kept = _table
    if kept is not None and now - kept[0] < TABLE_SECONDS:
        return kept[1]
    rows = {rate.currency: rate for rate in ExchangeRate.objects.all()}
    _table = (now, rows)
    return rows


def usd_per_unit() -> dict[str, Decimal]:
    return _snapshot if _snapshot is not None else refresh_rates()


def to_usd(amount: Decimal | float | int | None, currency: str) -> float | None:
    """`amount` in `currency` as US dollars by the table, or None when either is unknown."""
    if amount is None:
        return None
    rate = usd_per_unit().get((currency or "").upper())
    if rate is None:
        return None
    return float(Decimal(amount) * rate)


def rates_for(currencies: Iterable[str]) -> dict[str, ExchangeRate]:
    """The table's rows (with their dates) for `currencies`, by code."""
    codes = {(code or "").upper() for code in currencies}
    return {rate.currency: rate for rate in ExchangeRate.objects.filter(currency__in=codes)}


def convert(amount: Decimal, *, source: ExchangeRate, target: ExchangeRate) -> Decimal:
    """`amount` in `source`'s currency, in `target`'s (to four decimal places)."""
    return (amount * source.rate_to_usd / target.rate_to_usd).quantize(Decimal("0.0001"))


def rate_date(*, source: ExchangeRate, target: ExchangeRate) -> date | None:
    """The date of a conversion from `source` to `target`: the older of their rates' dates
    (the US dollar, one dollar by definition, has none); None between dollars."""
    dates = [rate.as_of for rate in (source, target) if rate.currency != "USD"]
    return min(dates) if dates else None
