"""Writes of the exchange-rate table: the operator sets a rate, and whatever was priced with
the old one is priced again."""

from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from django.db import transaction
from django.dispatch import Signal
from django.utils.translation import gettext as _

from tradepost.audit.services import audit_record, field_changes, snapshot
from tradepost.core.currencies import is_currency
from tradepost.money.errors import MoneyError, MoneyErrorCode
from tradepost.money.models import ExchangeRate
from tradepost.money.rates import forget_rates

#: Sent inside the transaction of a rate change, with `currencies` (a list of codes); the
#: catalogue re-queues the listings priced in them for the search index.
rates_changed = Signal()

AUDITED = ("rate_to_usd", "as_of")
RATE_PLACES = Decimal("0.000000000001")


def exchange_rate_set(*, actor: Any, currency: Any, rate_to_usd: Any, as_of: Any) -> ExchangeRate:
    """Create or change the rate of `currency` (US dollars per unit, as of a date); a bad
    value is refused with `MoneyError` (`invalid`, the messages under the argument's name)."""
    code = str(currency or "").strip().upper()
    errors: dict[str, list[str]] = {}
    if not is_currency(code):
        errors["currency"] = [_("Unknown currency code.")]
    try:
        rate = Decimal(str(rate_to_usd))
    except (InvalidOperation, ValueError):
        rate = Decimal(0)
    if rate.is_finite() and 0 < rate < Decimal(10) ** 8:
        rate = rate.quantize(RATE_PLACES)  # the table keeps 12 decimal places
    if not rate.is_finite() or rate <= 0 or rate >= Decimal(10) ** 8:
        errors["rate_to_usd"] = [_("Enter a number greater than zero.")]
    if not isinstance(as_of, date):
        errors["as_of"] = [_("Enter a valid date.")]
    if errors:
        raise MoneyError(MoneyErrorCode.INVALID, errors)
    with transaction.atomic():
        item = ExchangeRate.objects.select_for_update().filter(currency=code).first()
        before = snapshot(item, AUDITED) if item is not None else {}
        if item is None:
            item = ExchangeRate(currency=code)
        item.rate_to_usd, item.as_of = rate, as_of
        MoneyError.clean_model(item, code=MoneyErrorCode.INVALID)
        item.save()
        changes = field_changes(before, snapshot(item, AUDITED), AUDITED)
        if changes:
            audit_record(actor=actor, action="exchange-rate.set", target=item, changes=changes)
            rates_changed.send(sender=ExchangeRate, currencies=[code], actor=actor)
        transaction.on_commit(forget_rates)
    return item
