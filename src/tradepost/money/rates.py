"""The operator's exchange-rate table, as every conversion reads it: one cache, one reset.

A process keeps the table it read (`rate_table`) for TABLE_SECONDS, so converting the prices
of a page costs no query. `forget_rates()` drops it: the table's own writes call it (a rate
saved or deleted is seen at once in the process that wrote it, within TABLE_SECONDS in the
others), and so does the search indexer at the start of each batch, so a rate the operator
edits reaches every document the edit re-queues (`tradepost.money.services.exchange_rate_set`).

Conversions go through `tradepost.money.amounts.Money`; `usd_per_unit` is what they read. The
US dollar is one dollar by definition, with or without a row of its own. A currency missing
from the table converts to nothing (a listing then has no dollar price: no price filter matches
it and it sorts after priced listings).
"""

from __future__ import annotations

import time
from datetime import date
from decimal import Decimal
from typing import Any

from tradepost.money.models import ExchangeRate

#: Seconds a process keeps the table it read (`rate_table`).
TABLE_SECONDS = 60.0

_table: tuple[float, dict[str, ExchangeRate]] | None = None


def forget_rates(*_args: Any, **_kwargs: Any) -> None:
    """Drop this process's copy of the table; the next conversion reads it again. (Also the
    receiver of the table's save and delete signals, hence the arguments it ignores.)"""
    global _table
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


def usd_per_unit(currency: str) -> Decimal | None:
    """US dollars for one unit of `currency` (1 for the dollar), or None without a rate."""
    code = (currency or "").upper()
    rate = rate_table().get(code)
    if rate is not None:
        return rate.rate_to_usd
    return Decimal(1) if code == "USD" else None


def conversion_date(source: str, target: str) -> date | None:
    """The date of the rates converting `source` into `target`: the older of their dates (the
    US dollar has none of its own); None when neither has one."""
    table = rate_table()
    dates = [
        table[code].as_of
        for code in {(source or "").upper(), (target or "").upper()}
        if code != "USD" and code in table
    ]
    return min(dates) if dates else None
