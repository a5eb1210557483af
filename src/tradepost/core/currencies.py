"""ISO 4217 currencies with names in the interface languages."""

from __future__ import annotations

from functools import cache

import pycountry
from babel import Locale
from babel.numbers import get_currency_precision

from tradepost.core.languages import babel_locale

# Funds, precious metals and testing codes are not trade currencies.
_EXCLUDED = {"XAU", "XAG", "XPT", "XPD", "XTS", "XXX", "XBA", "XBB", "XBC", "XBD", "XDR", "XSU"}
CURRENCY_CODES: frozenset[str] = frozenset(
    c.alpha_3 for c in pycountry.currencies if c.alpha_3 not in _EXCLUDED
)
COMMON_CURRENCIES = ["USD", "EUR", "CNY", "HKD", "TWD", "JPY", "GBP", "VND", "TRY", "INR"]


def is_currency(code: str) -> bool:
    return (code or "").upper() in CURRENCY_CODES


def currency_digits(code: str) -> int:
    """The decimals the currency is written with (2 for USD and EUR, 0 for JPY and KRW)."""
    try:
        return int(get_currency_precision((code or "").upper()))
    except (KeyError, ValueError, TypeError):  # an unknown code: two decimals
        return 2


@cache
def currency_name(code: str, language: str = "en") -> str:
    name = Locale.parse(babel_locale(language)).currencies.get(code.upper())
    return str(name) if name else code.upper()


@cache
def currency_choices(language: str = "en") -> list[tuple[str, str]]:
    common = [(c, f"{c} — {currency_name(c, language)}") for c in COMMON_CURRENCIES]
    rest = sorted(
        (c, f"{c} — {currency_name(c, language)}")
        for c in CURRENCY_CODES
        if c not in COMMON_CURRENCIES
    )
    return common + rest
