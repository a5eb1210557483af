"""Money: an amount of one currency, always a `Decimal` (never a float), and the one way to
round it and to convert it (docs/adr/0034-one-money.md).

`Money(amount, currency).to("USD")` converts through the operator's exchange-rate table
(`money.rates`: US dollars per unit, read once a minute per process and dropped whenever the
table changes), to four decimal places; None when the table lacks a rate for either currency.
`rounded()` gives the amount in the currency's minor unit (2 places for USD, 0 for JPY), half
up: how a price is shown and an invoice is kept. Prices, quotations, plans, invoices,
analytics and the search index's dollar prices all convert here.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from tradepost.core.currencies import currency_digits
from tradepost.money.rates import usd_per_unit

#: Converted amounts keep four decimal places (rounded to the currency's unit when shown).
CONVERTED_PLACES = Decimal("0.0001")


@dataclass(frozen=True, slots=True)
class Money:
    """`amount` of `currency` (an ISO 4217 code, kept in upper case)."""

    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        if not isinstance(self.amount, Decimal):
            # A float cannot hold 0.1: money is never one (an int is taken exactly).
            if isinstance(self.amount, int) and not isinstance(self.amount, bool):
                object.__setattr__(self, "amount", Decimal(self.amount))
            else:
                raise TypeError(f"Money needs a Decimal amount, not {type(self.amount).__name__}")
        object.__setattr__(self, "currency", (self.currency or "").upper())

    def to(self, currency: str) -> Money | None:
        """This amount in `currency` by the exchange-rate table (four decimal places), itself
        when the currency is the same; None when the table has no rate for either."""
        target = (currency or "").upper()
        if target == self.currency:
            return self
        source_usd, target_usd = usd_per_unit(self.currency), usd_per_unit(target)
        if source_usd is None or target_usd is None:
            return None
        converted = (self.amount * source_usd / target_usd).quantize(CONVERTED_PLACES)
        return Money(converted, target)

    def rounded(self, *, max_places: int | None = None) -> Money:
        """The amount in the currency's minor unit (half up), never finer than `max_places`."""
        places = currency_digits(self.currency)
        if max_places is not None:
            places = min(places, max_places)
        unit = Decimal(1).scaleb(-places)
        return Money(self.amount.quantize(unit, rounding=ROUND_HALF_UP), self.currency)
