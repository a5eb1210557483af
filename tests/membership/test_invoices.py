"""Invoice numbers run without gaps per year, amounts in the plan's currency, the seller's and
the buyer's details an accountant needs, and a reference the bank transfer quotes."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import transaction
from django.utils import timezone

from tests.factories.companies import make_trader
from tests.factories.membership import chinese_buyers_invoice, gold, make_plan, subscribe
from tests.pages import log_in, page_url
from tradepost.membership import services
from tradepost.membership.models import Invoice, InvoiceCounter
from tradepost.membership.payments import creditor_reference, is_creditor_reference

pytestmark = pytest.mark.django_db


def test_numbers_run_without_gaps_and_a_rolled_back_invoice_gives_its_number_back():
    year = timezone.localdate().year
    owner, company = make_trader()
    subscribe(company, gold(), actor=owner, paid=False)
    with pytest.raises(RuntimeError), transaction.atomic():
        subscribe(company, make_plan(), actor=owner, paid=False)
        raise RuntimeError("the request failed after the invoice was numbered")
    other_owner, other = make_trader()
    subscribe(other, gold(), actor=other_owner, paid=False)
    numbers = list(Invoice.objects.order_by("sequence").values_list("number", flat=True))
    assert numbers == [f"TP-{year}-000001", f"TP-{year}-000002"]
    assert InvoiceCounter.objects.get(year=year).last == 2


def test_the_reference_is_an_iso_11649_creditor_reference():
    assert creditor_reference("539007547034") == "RF18539007547034"  # the standard's example
    assert is_creditor_reference("RF18 5390 0754 7034")
    assert not is_creditor_reference("RF19539007547034")
    owner, company = make_trader()
    invoice = subscribe(company, gold(), actor=owner, paid=False).invoice
    assert is_creditor_reference(invoice.payment_reference)
    assert invoice.number.replace("-", "") in invoice.payment_reference


def test_the_invoice_carries_seller_and_buyer_details(settings, client):
    owner, company, invoice = chinese_buyers_invoice(settings)
    assert invoice.buyer["name"] == "义乌市星辰日用品有限公司"
    assert invoice.seller["address"] == "1 Harbour Road\nHong Kong"
    # Later changes leave the issued invoice as it was.
    services.billing_details_set(actor=owner, company=company, legal_name="Renamed", country="CN")
    invoice.refresh_from_db()
    assert invoice.buyer["tax_id"] == "91330782MA2EXAMPLE"
    html = log_in(client, owner).get(page_url("membership:invoice", invoice_id=invoice.pk))
    text = html.content.decode()
    assert html.status_code == 200
    for expected in (
        invoice.number,
        "Tradepost Operations Ltd",
        "HK-12345678",
        "义乌市星辰日用品有限公司",
        "91330782MA2EXAMPLE",
        "China",
        "Hong Kong",
        "US$2,000.00",
        invoice.payment_reference,
        "HK00 1234 5678 9012",
    ):
        assert expected in text, expected
    chinese = client.get(page_url("membership:invoice", "zh-hans", invoice_id=invoice.pk))
    assert "金牌供应商" in chinese.content.decode()


def test_amounts_are_in_the_plans_currency_with_its_decimals():
    owner, company = make_trader()
    yen = make_plan(price=Decimal("250000"), currency="JPY")
    invoice = subscribe(company, yen, actor=owner, paid=False).invoice
    assert (invoice.currency, invoice.total) == ("JPY", Decimal("250000"))
