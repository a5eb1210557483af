"""One exchange-rate table for the search index and the comparison: an operator's change
re-prices the listings of that currency in search; bad rates are refused whole."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from tests.factories.accounts import make_operator
from tests.factories.catalog import make_product
from tests.factories.search import index
from tradepost.audit.models import AuditEntry
from tradepost.catalog.models import ProductStatus
from tradepost.money.amounts import Money
from tradepost.money.errors import MoneyError, MoneyErrorCode
from tradepost.money.models import ExchangeRate
from tradepost.money.services import exchange_rate_set
from tradepost.search.indexer import apply_outbox
from tradepost.search.models import IndexOutbox
from tradepost.search.selectors import ProductFilters, search_products

pytestmark = pytest.mark.django_db


def _found(**filters) -> set[int]:
    result = search_products(query="", language="en", filters=ProductFilters(**filters))
    return {hit.product.pk for hit in result.hits}


def test_a_new_installation_starts_with_the_common_trade_currencies():
    table = dict(ExchangeRate.objects.values_list("currency", "rate_to_usd"))
    assert len(table) >= 30
    for code in ("USD", "EUR", "CNY", "HKD", "TWD", "JPY", "GBP", "VND", "TRY", "INR"):
        assert table[code] > 0
    assert Money(Decimal("71.7"), "cny").to("USD").rounded().amount == Decimal("10.00")
    assert Money(Decimal("10"), "USD").to("usd") == Money(Decimal("10"), "USD")


def test_money_converts_through_the_operators_table():
    eur = ExchangeRate.objects.get(currency="EUR")
    assert Money(Decimal("10"), "eur").to("USD") == Money(
        (10 * eur.rate_to_usd).quantize(Decimal("0.0001")), "USD"
    )
    assert Money(Decimal("10"), "QQQ").to("USD") is None
    assert Money(Decimal("10"), "EUR").to("QQQ") is None


def test_the_dollar_is_one_dollar_without_a_row_of_its_own():
    ExchangeRate.objects.filter(currency="USD").delete()
    cny = ExchangeRate.objects.get(currency="CNY")
    assert Money(Decimal("1"), "USD").to("CNY") == Money(
        (1 / cny.rate_to_usd).quantize(Decimal("0.0001")), "CNY"
    )


def test_money_is_never_a_float():
    with pytest.raises(TypeError):
        Money(0.1, "USD")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Money(True, "USD")  # type: ignore[arg-type]
    assert Money(3, "usd") == Money(Decimal(3), "USD")


@pytest.mark.parametrize(
    ("amount", "currency", "rounded"),
    [("1234.565", "USD", "1234.57"), ("1234.5", "JPY", "1235"), ("0.0049", "EUR", "0.00")],
)
def test_rounding_follows_the_currencys_minor_unit_half_up(amount, currency, rounded):
    assert Money(Decimal(amount), currency).rounded().amount == Decimal(rounded)
    assert Money(Decimal("1.2345"), "KWD").rounded(max_places=2).amount == Decimal("1.23")


def test_a_rate_written_in_this_process_is_converted_with_at_once():
    before = Money(Decimal("100"), "EUR").to("USD")
    eur = ExchangeRate.objects.get(currency="EUR")
    eur.rate_to_usd *= 2
    eur.save()  # no forget_rates(): the table's own write drops the kept copy
    after = Money(Decimal("100"), "EUR").to("USD")
    assert before is not None and after is not None and after != before
    assert after.amount == (100 * eur.rate_to_usd).quantize(Decimal("0.0001"))


def test_a_rate_change_reprices_the_listings_of_that_currency_in_search():
    euro = make_product(currency="EUR", price_min=Decimal("100"), price_max=Decimal("100"))
    dollar = make_product(currency="USD", price_min=Decimal("100"), price_max=Decimal("100"))
    draft = make_product(currency="EUR", status=ProductStatus.DRAFT)
    index(euro, dollar)
    assert _found(price_min_usd=200) == set()

    before = IndexOutbox.objects.count()
    exchange_rate_set(
        actor=make_operator(), currency="eur", rate_to_usd="2.5", as_of=date(2026, 12, 1)
    )
    queued = set(IndexOutbox.objects.filter(pk__gt=0).values_list("object_id", flat=True))
    assert IndexOutbox.objects.count() == before + 1
    assert euro.pk in queued and draft.pk not in queued
    apply_outbox()
    assert _found(price_min_usd=200) == {euro.pk}  # 100 EUR is now US$250
    assert _found(price_max_usd=150) == {dollar.pk}


def test_setting_the_same_rate_again_queues_nothing():
    make_product(currency="EUR")
    eur = ExchangeRate.objects.get(currency="EUR")
    before = IndexOutbox.objects.count()
    written = f"{eur.rate_to_usd.normalize()}0000"  # the same rate, written longer
    exchange_rate_set(actor=None, currency="EUR", rate_to_usd=written, as_of=eur.as_of)
    assert IndexOutbox.objects.count() == before
    assert not AuditEntry.objects.exists()


@pytest.mark.parametrize(
    ("fields", "bad"),
    [
        ({"currency": "QQQ"}, "currency"),
        ({"currency": "E\x00R"}, "currency"),
        ({"rate_to_usd": "-1"}, "rate_to_usd"),
        ({"rate_to_usd": "0"}, "rate_to_usd"),
        ({"rate_to_usd": "NaN"}, "rate_to_usd"),
        ({"rate_to_usd": "1e400"}, "rate_to_usd"),
        ({"rate_to_usd": "lots"}, "rate_to_usd"),
        ({"as_of": "yesterday"}, "as_of"),
    ],
)
def test_bad_rates_are_refused_and_nothing_changes(fields, bad):
    before = list(ExchangeRate.objects.values_list("currency", "rate_to_usd", "as_of"))
    values = {"currency": "EUR", "rate_to_usd": "1.1", "as_of": date(2026, 12, 1), **fields}
    with pytest.raises(MoneyError) as caught:
        exchange_rate_set(actor=None, **values)
    assert caught.value.code is MoneyErrorCode.INVALID
    assert bad in caught.value.message_dict
    assert list(ExchangeRate.objects.values_list("currency", "rate_to_usd", "as_of")) == before
