"""Concurrent writers on real connections (PostgreSQL; SQLite serialises writers): 20
quotations at once never pass a plan's quota, and 20 invoices at once take 20 numbers in a
row, none twice and none skipped."""

from __future__ import annotations

from django.utils import timezone

from tests.factories.companies import make_trader
from tests.factories.membership import make_plan, subscribe
from tests.factories.sourcing import make_request, quotation_fields
from tests.races import ON_CONCURRENT_WRITERS
from tradepost.membership import services
from tradepost.membership.models import Invoice, InvoiceCounter
from tradepost.sourcing import services as sourcing_services
from tradepost.sourcing.errors import SourcingError, SourcingErrorCode
from tradepost.sourcing.models import Quotation, QuoteUsage

pytestmark = ON_CONCURRENT_WRITERS

SUBMISSIONS = 20


def test_twenty_quotations_at_once_never_pass_the_plans_quota(race, settings):
    settings.TRADEPOST_MONTHLY_QUOTE_QUOTA = 100  # the free plan's: not the one that counts
    supplier, company = make_trader()
    subscribe(company, make_plan(monthly_quotation_quota=5), actor=supplier)
    requests = [make_request() for _ in range(SUBMISSIONS)]
    results = race(
        *(
            lambda request=request: sourcing_services.quotation_submit(
                actor=supplier, buying_request=request, **quotation_fields()
            )
            for request in requests
        )
    )
    refused = [r for r in results if isinstance(r, SourcingError)]
    assert len(refused) == SUBMISSIONS - 5, results
    assert {r.code for r in refused} == {SourcingErrorCode.QUOTA_EXCEEDED}
    assert Quotation.objects.filter(supplier=company).count() == 5
    assert QuoteUsage.objects.get(company=company).count == 5


def test_twenty_invoices_at_once_take_consecutive_numbers(race):
    plan = make_plan()
    owners = [make_trader() for _ in range(SUBMISSIONS)]
    results = race(
        *(
            lambda owner=owner, company=company: services.plan_change(
                actor=owner, company=company, plan_id=plan.pk, action="subscribe"
            )
            for owner, company in owners
        )
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    year = timezone.localdate().year
    sequences = sorted(Invoice.objects.filter(year=year).values_list("sequence", flat=True))
    assert sequences == list(range(1, SUBMISSIONS + 1))
    assert InvoiceCounter.objects.get(year=year).last == SUBMISSIONS
    assert Invoice.objects.values("number").distinct().count() == SUBMISSIONS


def test_four_subscriptions_to_the_same_plan_at_once_are_one_purchase(race):
    """The probe's four concurrent "subscribe to Gold": one pending change, one invoice
    number, nothing voided."""
    plan = make_plan()
    owner, company = make_trader()
    results = race(
        *(
            lambda: services.plan_change(
                actor=owner, company=company, plan_id=plan.pk, action="subscribe"
            )
            for _ in range(4)
        )
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    assert len({subscription.pk for subscription in results}) == 1
    invoices = Invoice.objects.filter(company=company)
    assert invoices.count() == 1 and invoices.get().status == "open"
