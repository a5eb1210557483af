"""The money of a change of plan, in `Decimal` (docs/adr/0021-membership-and-invoices.md).

A period runs from its first day up to (not including) its end. Upgrading on day `d` of a
period of `n` days leaves `n - d` days unused; their value is the credit:

    credit = price_paid × unused_days / period_days

computed exactly, converted into the new plan's currency through the operator's exchange
rates when the currencies differ (US dollars per unit, `money.ExchangeRate`), and only then
rounded, once, to the new currency's minor unit (half up). The new period starts on the day of
the change and runs for the new plan's whole term; the invoice asks for

    total = max(0, new_price - credit)

(a credit larger than the new price is not paid out: the total is 0). A downgrade takes
effect at the end of the paid period, so it needs no credit: the company keeps what it paid for.
"""

from __future__ import annotations

import calendar
from datetime import date
from decimal import Decimal

from tradepost.money.amounts import Money

#: The smallest unit an invoice amount is kept in (the amounts have two decimal places).
MAX_PLACES = 2


def add_months(day: date, months: int) -> date:
    """The same day `months` later; the month's last day when it has no such day
    (31 January + 1 month = 28 or 29 February)."""
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def round_money(amount: Decimal, currency: str) -> Decimal:
    """`amount` in `currency`'s minor unit, half up: 0.01 for USD, 1 for JPY (never finer than
    the invoice's two places)."""
    return Money(amount, currency).rounded(max_places=MAX_PLACES).amount


def unused_days(*, starts_on: date, ends_on: date, on: date) -> tuple[int, int]:
    """(days of the period [starts_on, ends_on) not yet used on `on`, days of the period)."""
    total = max(0, (ends_on - starts_on).days)
    left = (ends_on - max(on, starts_on)).days
    return min(max(0, left), total), total


def credit_for(
    *,
    price_paid: Decimal,
    starts_on: date,
    ends_on: date,
    on: date,
    source_usd: Decimal = Decimal(1),
    target_usd: Decimal = Decimal(1),
    currency: str,
) -> Decimal:
    """The value of the unused days of a paid period, in the new currency (`source_usd` and
    `target_usd`: US dollars per unit of the old and the new currency), rounded once to
    `currency`'s minor unit: price × unused × source_usd / (days × target_usd)."""
    left, total = unused_days(starts_on=starts_on, ends_on=ends_on, on=on)
    if total == 0 or left == 0:
        return round_money(Decimal(0), currency)
    return round_money(price_paid * left * source_usd / (total * target_usd), currency)


def total_after_credit(price: Decimal, credit: Decimal) -> Decimal:
    return max(Decimal(0), price - credit)
