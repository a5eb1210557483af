from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from tests.factories.accounts import make_operator, make_user
from tests.factories.catalog import make_category
from tests.factories.companies import make_trader
from tests.factories.sourcing import make_quotation, make_quoted_request, make_request
from tradepost.money.models import ExchangeRate
from tradepost.sourcing import selectors, services
from tradepost.sourcing.errors import QuotationNotFound, RequestNotFound
from tradepost.sourcing.models import BuyingRequest

pytestmark = pytest.mark.django_db


def test_exchange_rates_are_seeded_with_their_date():
    cny = ExchangeRate.objects.get(currency="CNY")
    assert cny.as_of == date(2025, 6, 30)
    assert abs(cny.rate_to_usd * Decimal("7.17") - 1) < Decimal("0.000001")


def test_quotation_visible_only_to_buyer_and_its_supplier():
    buyer, _request, (first, second) = make_quoted_request({}, {})
    first_user, second_user = first.created_by, second.created_by
    assert selectors.access_quotation(user=buyer, quotation_id=first.pk) == first
    assert selectors.access_quotation(user=first_user, quotation_id=first.pk) == first
    for user, pk in [
        (first_user, second.pk),
        (second_user, first.pk),
        (make_user(), first.pk),
        (make_operator(), first.pk),
        (buyer, 999_999),
        (buyer, "abc"),
    ]:
        with pytest.raises(QuotationNotFound):
            selectors.access_quotation(user=user, quotation_id=pk)
    with pytest.raises(QuotationNotFound):
        selectors.access_quotation_for_buyer(user=first_user, quotation_id=first.pk)


def test_closed_request_is_hidden_from_strangers_but_not_participants():
    buyer, _company = make_trader()
    request = make_request(actor=buyer)
    supplier, _c = make_trader()
    make_quotation(request, actor=supplier)
    services.request_close(actor=buyer, buying_request=request)
    assert selectors.access_request(user=buyer, request_id=request.pk) == request
    assert selectors.access_request(user=supplier, request_id=request.pk) == request
    stranger, _c2 = make_trader()
    with pytest.raises(RequestNotFound):
        selectors.access_request(user=stranger, request_id=request.pk)
    with pytest.raises(RequestNotFound):
        selectors.access_request_for_buyer(user=supplier, request_id=request.pk)


def test_sealed_request_hides_the_count_from_suppliers_until_deadline():
    buyer, _company = make_trader()
    request = make_request(actor=buyer, sealed=True)
    supplier, _c = make_trader()
    make_quotation(request, actor=supplier)
    request.refresh_from_db()
    assert selectors.visible_quotation_count(user=supplier, buying_request=request) is None
    assert selectors.visible_quotation_count(user=make_user(), buying_request=request) is None
    assert selectors.visible_quotation_count(user=buyer, buying_request=request) == 1
    BuyingRequest.objects.filter(pk=request.pk).update(
        deadline=timezone.now() - timedelta(seconds=1)
    )
    request.refresh_from_db()
    assert selectors.visible_quotation_count(user=supplier, buying_request=request) == 1


def test_board_filters():
    parent = make_category()
    leaf = make_category(parent=parent)
    other = make_category(parent=make_category())
    a = make_request(category_id=leaf.pk, quantity="100", destination_country="NL")
    b = make_request(category_id=other.pk, quantity="9000", destination_country="US")
    closed = make_request(category_id=leaf.pk)
    services.request_close(actor=closed.created_by, buying_request=closed)
    BuyingRequest.objects.filter(pk=b.pk).update(created_at=timezone.now() - timedelta(days=20))

    def ids(**kwargs):
        return {r.pk for r in selectors.open_requests(filters=selectors.BoardFilters(**kwargs))}

    assert ids() == {a.pk, b.pk}
    assert ids(category_id=parent.pk) == {a.pk}
    assert ids(destinations=("us",)) == {b.pk}
    assert ids(destinations=("US", "NL")) == {a.pk, b.pk}
    assert ids(quantity_min=Decimal("1000")) == {b.pk}
    assert ids(quantity_max=Decimal("1000")) == {a.pk}
    assert ids(posted_within_days=7) == {a.pk}
    assert ids(category_id=123456789) == set()


def test_comparison_normalises_prices_with_rate_date_and_sorts():
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    ExchangeRate.objects.filter(currency="CNY").update(
        rate_to_usd=Decimal("0.14"), as_of=date(2026, 11, 1)
    )
    usd = make_quotation(request, unit_price="2.30", lead_time_days=10, moq="5000")
    verified_user, verified_company = make_trader(is_verified=True)
    cny = make_quotation(
        request, actor=verified_user, unit_price="15", currency="CNY", lead_time_days=40, moq="100"
    )
    comparison = selectors.compare_quotations(buying_request=request, currency="USD")
    assert [row.quotation for row in comparison.rows] == [cny, usd]  # 2.10 < 2.30
    assert comparison.rows[0].normalised_price == Decimal("2.1000")
    assert comparison.rates_as_of == date(2026, 11, 1)
    by_lead = selectors.compare_quotations(buying_request=request, sort="lead_time")
    assert [row.quotation for row in by_lead.rows] == [usd, cny]
    by_moq = selectors.compare_quotations(buying_request=request, sort="moq")
    assert [row.quotation for row in by_moq.rows] == [cny, usd]
    in_cny = selectors.compare_quotations(buying_request=request, currency="CNY")
    assert in_cny.currency == "CNY"
    assert in_cny.rows[0].normalised_price == Decimal("15")
    unknown = selectors.compare_quotations(buying_request=request, currency="<x>")
    assert unknown.currency == "USD"
    assert verified_company.is_verified


def test_comparison_reports_currency_without_rate():
    request = make_request()
    ExchangeRate.objects.filter(currency="CNY").delete()
    make_quotation(request, unit_price="15", currency="CNY")
    comparison = selectors.compare_quotations(buying_request=request)
    assert comparison.rows[0].normalised_price is None
    assert comparison.missing_currencies == ["CNY"]


def test_quota_left(settings):
    settings.TRADEPOST_MONTHLY_QUOTE_QUOTA = 3
    supplier, company = make_trader()
    make_quotation(make_request(), actor=supplier)
    assert selectors.quota_left(company=company) == 2
