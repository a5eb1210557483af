"""Writes of the exchange-rate table: the operator sets a rate, and whatever was priced with
the old one is priced again."""

from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.dispatch import Signal
from django.utils.translation import gettext as _

from tradepost.core.currencies import is_currency
from tradepost.money.models import ExchangeRate
from tradepost.money.rates import forget_rates

#: Sent inside the transaction of a rate change, with `currencies` (a list of codes); the
#: catalogue re-queues the listings priced in them for the search index.
rates_changed = Signal()


def exchange_rate_set(*, actor: Any, currency: Any, rate_to_usd: Any, as_of: Any) -> ExchangeRate:
    """Create or change the rate of `currency` (US dollars per unit, as of a date)."""
    code = str(currency or "").strip().upper()
    errors: dict[str, list[str]] = {}
    if not is_currency(code):
        errors["currency"] = [_("Unknown currency code.")]
    try:
        rate = Decimal(str(rate_to_usd))
    except (InvalidOperation, ValueError):
        rate = Decimal(0)
    if not rate.is_finite() or rate <= 0 or rate >= Decimal(10) ** 8:
        errors["rate_to_usd"] = [_("Enter a number greater than zero.")]
    if not isinstance(as_of, date):
        errors["as_of"] = [_("Enter a valid date.")]
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        item, _created = ExchangeRate.objects.select_for_update().get_or_create(
            currency=code, defaults={"rate_to_usd": rate, "as_of": as_of}
        )
        changed = _created or item.rate_to_usd != rate or item.as_of != as_of
        item.rate_to_usd, item.as_of = rate, as_of
        item.full_clean()
        item.save()
        if changed:
            rates_changed.send(sender=ExchangeRate, currencies=[code], actor=actor)
        transaction.on_commit(forget_rates)
    return item
