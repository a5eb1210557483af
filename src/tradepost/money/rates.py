"""Reading the exchange-rate table and converting with it.

The search index turns every listed price into US dollars when it builds a document
(`to_usd`); it reads the table once into a snapshot and takes a fresh one at the start of each
batch of changes (`refresh_rates`), so a rate the operator edits reaches every document the
edit re-queues (`tradepost.money.services.exchange_rate_set`). A currency missing from the
table leaves a listing without a dollar price: no price filter matches it and it sorts after
priced listings.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from tradepost.money.models import ExchangeRate

_snapshot: dict[str, Decimal] | None = None


def refresh_rates() -> dict[str, Decimal]:
    """Read the table again (US dollars per unit, by currency code)."""
    global _snapshot
    _snapshot = dict(ExchangeRate.objects.values_list("currency", "rate_to_usd"))
    return _snapshot


def forget_rates() -> None:
    """Drop this process's snapshot; the next conversion reads the table."""
    global _snapshot
    _snapshot = None


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
