"""Concurrent writers on real connections (PostgreSQL: SQLite serialises whole-database writes,
so these run there only; the conditional-update tests in test_services cover both databases)."""

from __future__ import annotations

from typing import Any

from tests.factories.companies import make_trader
from tests.factories.sourcing import make_request, quotation_fields
from tests.races import ON_CONCURRENT_WRITERS
from tradepost.sourcing import services
from tradepost.sourcing.errors import SourcingError, SourcingErrorCode
from tradepost.sourcing.models import BuyingRequest, Quotation, QuotationStatus, QuoteUsage

pytestmark = ON_CONCURRENT_WRITERS


def _errors(results: list[Any]) -> list[SourcingError]:
    return [r for r in results if isinstance(r, SourcingError)]


def test_two_quotations_for_the_last_slot(race):
    request = make_request()
    BuyingRequest.objects.filter(pk=request.pk).update(quote_limit=1)
    request.refresh_from_db()
    a, _ca = make_trader()
    b, _cb = make_trader()
    results = race(
        lambda: services.quotation_submit(actor=a, buying_request=request, **quotation_fields()),
        lambda: services.quotation_submit(actor=b, buying_request=request, **quotation_fields()),
    )
    errors = _errors(results)
    assert len(errors) == 1, results
    assert errors[0].code == SourcingErrorCode.REQUEST_FULL
    assert Quotation.objects.filter(request=request).count() == 1
    assert BuyingRequest.objects.get(pk=request.pk).quotation_count == 1


def test_two_quotations_for_the_last_unit_of_quota(settings, race):
    settings.TRADEPOST_MONTHLY_QUOTE_QUOTA = 1
    first, second = make_request(), make_request()
    supplier, company = make_trader()
    results = race(
        lambda: services.quotation_submit(
            actor=supplier, buying_request=first, **quotation_fields()
        ),
        lambda: services.quotation_submit(
            actor=supplier, buying_request=second, **quotation_fields()
        ),
    )
    errors = _errors(results)
    assert len(errors) == 1, results
    assert errors[0].code == SourcingErrorCode.QUOTA_EXCEEDED
    assert Quotation.objects.filter(supplier=company).count() == 1
    assert QuoteUsage.objects.get(company=company).count == 1
    counts = sorted(BuyingRequest.objects.values_list("quotation_count", flat=True))
    assert counts == [0, 1]


def test_two_awards_at_once(race):
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    q1 = services.quotation_submit(
        actor=make_trader()[0], buying_request=request, **quotation_fields()
    )
    q2 = services.quotation_submit(
        actor=make_trader()[0], buying_request=request, **quotation_fields()
    )
    results = race(
        lambda: services.quotation_award(actor=buyer, quotation=q1),
        lambda: services.quotation_award(actor=buyer, quotation=q2),
    )
    errors = _errors(results)
    assert len(errors) == 1, results
    request.refresh_from_db()
    statuses = sorted(Quotation.objects.values_list("status", flat=True))
    assert statuses == sorted([QuotationStatus.AWARDED, QuotationStatus.NOT_SELECTED])
    assert Quotation.objects.get(pk=request.awarded_quotation_id).status == "awarded"


def test_awards_revisions_and_new_quotations_at_once_never_deadlock(race):
    """The probe's rounds: two awards of one request, a revision of one of its quotations
    and a new quotation, all at once. A revision locked its quotation and then the request,
    an award the request and then its quotations: PostgreSQL found a deadlock (a 500) in 4
    of 32 requests. With the request locked first everywhere, each round ends with exactly one
    award and refusals for the rest."""
    buyer, _company = make_trader(country="NL")
    for _round in range(8):
        request = make_request(actor=buyer)
        first_supplier, second_supplier, newcomer = (make_trader()[0] for _ in range(3))
        q1 = services.quotation_submit(
            actor=first_supplier, buying_request=request, **quotation_fields()
        )
        q2 = services.quotation_submit(
            actor=second_supplier, buying_request=request, **quotation_fields()
        )
        revised = quotation_fields(unit_price="2.50")
        results = race(
            lambda q1=q1: services.quotation_award(actor=buyer, quotation=q1),
            lambda q2=q2: services.quotation_award(actor=buyer, quotation=q2),
            lambda r=request, s=first_supplier: services.quotation_submit(
                actor=s, buying_request=r, **revised
            ),
            lambda r=request, s=newcomer: services.quotation_submit(
                actor=s, buying_request=r, **quotation_fields()
            ),
        )
        unexpected = [r for r in results if isinstance(r, Exception) and r not in _errors(results)]
        assert not unexpected, unexpected
        awards = [r for r in results[:2] if isinstance(r, Quotation)]
        assert len(awards) == 1, results
        request.refresh_from_db()
        assert request.status == "awarded"
        awarded = Quotation.objects.filter(request=request, status=QuotationStatus.AWARDED)
        assert awarded.count() == 1
