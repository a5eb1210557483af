"""Prices in a viewer's display currency: which choices there are, which one a viewer starts
with, and a listed price converted into it with the exchange-rate table.

A listing keeps its own currency and is always shown in it; a viewer who chose another
currency (or starts with one: the US dollar in English, the yuan in Simplified Chinese, the
Taiwan dollar in Traditional Chinese) sees the converted price first, marked approximate, with
the date of the rates used. "As listed" (AS_LISTED) converts nothing. The table is read through
`tradepost.money.rates.rate_table`, so converting the prices of a page costs no query.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.utils.translation import gettext_lazy as _

from tradepost.core.currencies import currency_name
from tradepost.money.amounts import Money
from tradepost.money.rates import conversion_date, rate_table

#: The choice that shows every price in its listing's own currency only.
AS_LISTED = "listed"

#: The display currency a viewer starts with, by interface language: the first of these that
#: the table has a rate for (else "as listed"). Traditional Chinese pages are written in the
#: Taiwan locale (Babel's zh_Hant), so the Taiwan dollar.
DEFAULTS: dict[str, tuple[str, ...]] = {
    "en": ("USD",),
    "zh-hans": ("CNY", "USD"),
    "zh-hant": ("TWD", "USD"),
}

#: What a choice the table does not know is refused with.
UNKNOWN_CHOICE = _("Prices cannot be shown in this currency. Choose one from the list.")

#: Longer than any choice: a value over this is refused before anything else is looked at.
CHOICE_MAX_LENGTH = 8


def display_currencies() -> list[str]:
    """The currencies prices can be shown in: those the table has a rate for, by code."""
    return sorted(rate_table())


def display_currency_options(*, names_in: str | None = None) -> list[tuple[str, str]]:
    """The choices with their labels: "As listed", then each currency by its code, or by
    its code and its name in the language `names_in` ("EUR — Euro")."""
    options = [(AS_LISTED, str(_("As listed")))]
    for code in display_currencies():
        label = f"{code} — {currency_name(code, names_in)}" if names_in else code
        options.append((code, label))
    return options


def display_choice(value: object) -> str | None:
    """`value` as a display-currency choice (AS_LISTED or a code the table knows, upper
    case), or None when it is neither."""
    if not isinstance(value, str) or not value or len(value) > CHOICE_MAX_LENGTH:
        return None
    text = value.strip()
    if text.lower() == AS_LISTED:
        return AS_LISTED
    code = text.upper()
    return code if code.isascii() and code.isalpha() and code in rate_table() else None


def default_display_currency(language: str | None) -> str:
    """The display currency of a viewer who has not chosen one, reading in `language`."""
    known = rate_table()
    for code in DEFAULTS.get((language or "en").lower(), DEFAULTS["en"]):
        if code in known:
            return code
    return AS_LISTED


@dataclass(frozen=True)
class ConvertedPrice:
    """A listed price (or range) in another currency, rounded to that currency's decimals."""

    currency: str
    low: Decimal | None
    high: Decimal | None
    #: The date of the rates used (the older of the two).
    as_of: date


def converted_price(
    low: Decimal | None, high: Decimal | None, *, currency: str, display: str
) -> ConvertedPrice | None:
    """The price `low`–`high` listed in `currency`, in the `display` currency; None when
    there is nothing to convert (no price, the same currency, "as listed") or the table lacks
    a rate for either currency (the listed price is then shown alone)."""
    source_code = (currency or "").upper()
    if display == AS_LISTED or source_code == display or (low is None and high is None):
        return None
    table = rate_table()
    if source_code not in table or display not in table:
        return None

    def into(amount: Decimal | None) -> Decimal | None:
        converted = Money(amount, source_code).to(display) if amount is not None else None
        return converted.rounded().amount if converted is not None else None

    return ConvertedPrice(
        currency=display,
        low=into(low),
        high=into(high),
        # Two different currencies: at most one is the dollar, which has no date of its own.
        as_of=conversion_date(source_code, display) or table[display].as_of,
    )
