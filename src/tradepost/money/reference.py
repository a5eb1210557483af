"""The reference rates a new installation starts with (seeded into `ExchangeRate` by a
migration; the operator keeps the table current from then on).

Round reference rates, in units of the currency per one US dollar, of the date below.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

RATES_AS_OF = "2025-06-30"

# Units of the currency per 1 USD (approximate reference rates, RATES_AS_OF).
UNITS_PER_USD: dict[str, Decimal] = {
    "USD": Decimal("1"),
    "EUR": Decimal("0.85"),
    "GBP": Decimal("0.73"),
    "CHF": Decimal("0.80"),
    "CNY": Decimal("7.17"),
    "HKD": Decimal("7.85"),
    "TWD": Decimal("29.2"),
    "JPY": Decimal("144"),
    "KRW": Decimal("1350"),
    "SGD": Decimal("1.27"),
    "MYR": Decimal("4.21"),
    "THB": Decimal("32.5"),
    "VND": Decimal("26100"),
    "IDR": Decimal("16200"),
    "PHP": Decimal("56.3"),
    "INR": Decimal("85.8"),
    "PKR": Decimal("284"),
    "BDT": Decimal("122"),
    "AED": Decimal("3.6725"),
    "SAR": Decimal("3.75"),
    "TRY": Decimal("39.8"),
    "ILS": Decimal("3.37"),
    "EGP": Decimal("49.6"),
    "ZAR": Decimal("17.7"),
    "NGN": Decimal("1530"),
    "KES": Decimal("129"),
    "RUB": Decimal("78.5"),
    "PLN": Decimal("3.61"),
    "CZK": Decimal("21.1"),
    "HUF": Decimal("340"),
    "SEK": Decimal("9.52"),
    "NOK": Decimal("10.1"),
    "DKK": Decimal("6.36"),
    "CAD": Decimal("1.36"),
    "MXN": Decimal("18.9"),
    "BRL": Decimal("5.46"),
    "CLP": Decimal("933"),
    "COP": Decimal("4090"),
    "PEN": Decimal("3.55"),
    "AUD": Decimal("1.52"),
    "NZD": Decimal("1.64"),
}


def seed_rates(model: Any) -> None:
    """Add the reference rates the table lacks to `model` (the `ExchangeRate` model, or its
    historical version in a migration); rates already there are left as they are."""
    as_of = date.fromisoformat(RATES_AS_OF)
    for currency, units in UNITS_PER_USD.items():
        rate = (Decimal(1) / units).quantize(Decimal("0.000000000001"))
        model.objects.get_or_create(
            currency=currency, defaults={"rate_to_usd": rate, "as_of": as_of}
        )
