from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.utils import timezone

from tests.factories.accounts import make_user
from tests.factories.companies import add_member, make_trader
from tests.factories.sourcing import (
    make_quotation,
    make_quoted_request,
    make_request,
    quotation_fields,
    request_fields,
)
from tradepost.sourcing import services
from tradepost.sourcing.errors import SourcingError, SourcingErrorCode
from tradepost.sourcing.models import (
    BuyingRequest,
    Quotation,
    QuotationStatus,
    QuoteUsage,
    RequestStatus,
)

pytestmark = pytest.mark.django_db


def _run_on_commit(django_capture_on_commit_callbacks, fn, *args, **kwargs):
    with django_capture_on_commit_callbacks(execute=True):
        return fn(*args, **kwargs)


# --- requests --------------------------------------------------------------------------------


def test_request_create_stores_clean_fields(settings):
    settings.TRADEPOST_RFQ_QUOTE_LIMIT = 7
    buyer, company = make_trader(country="NL")
    created = make_request(actor=buyer, description="<p>ok</p><script>alert(1)</script>")
    assert created.buyer == company
    assert created.created_by == buyer
    assert created.status == RequestStatus.OPEN
    assert created.quote_limit == 7
    assert created.quantity == Decimal("5000")
    assert created.required_certifications == ["LFGB", "FDA"]
    assert "<script>" not in created.description and "<p>ok</p>" in created.description


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"deadline": timezone.now() - timedelta(days=1)}, "deadline"),
        ({"deadline": "not a date"}, "deadline"),
        ({"quantity": "-5"}, "quantity"),
        ({"quantity": "NaN"}, "quantity"),
        ({"quantity": True}, "quantity"),
        ({"target_currency": "XYZ"}, "target_currency"),
        ({"destination_country": "QQ"}, "destination_country"),
        ({"unit": "furlongs"}, "unit"),
        ({"title": "<script>alert(1)</script>"}, "title"),
        ({"title": "x" * 201}, "title"),
        ({"title": ""}, "title"),
        ({"category_id": 999999999}, "category_id"),
        ({"category_id": "abc"}, "category_id"),
        ({"preferred_incoterm": "XXX"}, "preferred_incoterm"),
        ({"required_certifications": ["<b>CE</b>"]}, "required_certifications"),
        ({"target_unit_price": "2", "target_currency": ""}, "target_currency"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_request_create_refuses_bad_input(overrides, field):
    buyer, _company = make_trader()
    with pytest.raises(SourcingError) as caught:
        services.request_create(actor=buyer, **request_fields(**overrides))
    assert field in caught.value.message_dict
    assert BuyingRequest.objects.count() == 0


def test_request_create_needs_company_and_verified_email():
    loner = make_user()
    with pytest.raises(SourcingError) as caught:
        services.request_create(actor=loner, **request_fields())
    assert caught.value.code == SourcingErrorCode.NO_COMPANY
    unverified = make_user(verified=False)
    with pytest.raises(SourcingError) as caught:
        services.request_create(actor=unverified, **request_fields())
    assert caught.value.code == SourcingErrorCode.EMAIL_NOT_VERIFIED
    assert BuyingRequest.objects.count() == 0


def test_request_update_before_quotes_changes_anything():
    buyer, _company = make_trader()
    request = make_request(actor=buyer)
    services.request_update(
        actor=buyer, buying_request=request, **{"title": "Glass bottles", "quantity": "10"}
    )
    request.refresh_from_db()
    assert request.title == "Glass bottles"
    assert request.quantity == Decimal("10")


def test_request_update_after_quotes_limits_fields_and_emails_suppliers(
    mailoutbox, django_capture_on_commit_callbacks
):
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    supplier, _supplier_company = make_trader()
    supplier.preferred_language = "zh-hans"
    supplier.save()
    make_quotation(request, actor=supplier)
    mailoutbox.clear()

    with pytest.raises(SourcingError) as caught:
        services.request_update(actor=buyer, buying_request=request, **{"quantity": "1"})
    assert caught.value.code == SourcingErrorCode.LOCKED_AFTER_QUOTES
    with pytest.raises(SourcingError):
        services.request_update(
            actor=buyer,
            buying_request=request,
            **{"deadline": request.deadline - timedelta(days=1)},
        )
    request.refresh_from_db()
    assert request.quantity == Decimal("5000")

    later = request.deadline + timedelta(days=3)
    _run_on_commit(
        django_capture_on_commit_callbacks,
        services.request_update,
        actor=buyer,
        buying_request=request,
        description="<p>Now 750 ml</p>",
        deadline=later,
    )
    request.refresh_from_db()
    assert request.deadline == later
    assert request.description == "<p>Now 750 ml</p>"
    assert [m.to for m in mailoutbox] == [[supplier.email]]
    assert "/zh-hans/requests/" in mailoutbox[0].body


def test_other_company_cannot_update_or_close():
    request = make_request()
    stranger, _company = make_trader()
    with pytest.raises(SourcingError):
        services.request_update(actor=stranger, buying_request=request, **{"title": "Mine"})
    with pytest.raises(SourcingError):
        services.request_close(actor=stranger, buying_request=request)
    request.refresh_from_db()
    assert request.status == RequestStatus.OPEN
    assert request.title != "Mine"


def test_request_close_and_close_twice():
    buyer, _company = make_trader()
    request = make_request(actor=buyer)
    services.request_close(actor=buyer, buying_request=request)
    assert request.status == RequestStatus.CLOSED
    with pytest.raises(SourcingError) as caught:
        services.request_close(actor=buyer, buying_request=request)
    assert caught.value.code == SourcingErrorCode.REQUEST_NOT_OPEN


def test_expire_due_requests_command():
    due = make_request()
    fresh = make_request()
    BuyingRequest.objects.filter(pk=due.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    call_command("expirerequests")
    due.refresh_from_db()
    fresh.refresh_from_db()
    assert due.status == RequestStatus.EXPIRED
    assert fresh.status == RequestStatus.OPEN
    assert services.request_expire_due() == 0


# --- quotations ------------------------------------------------------------------------------


def test_quotation_submit_counts_slot_and_quota_and_emails_buyer(
    mailoutbox, django_capture_on_commit_callbacks
):
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    supplier, supplier_company = make_trader()
    quotation = _run_on_commit(
        django_capture_on_commit_callbacks, make_quotation, request, actor=supplier
    )
    request.refresh_from_db()
    assert request.quotation_count == 1
    assert quotation.supplier == supplier_company
    assert quotation.price_tiers == [{"min_quantity": "10000.000", "unit_price": "2.1000"}]
    assert QuoteUsage.objects.get(company=supplier_company).count == 1
    assert [m.to for m in mailoutbox] == [[buyer.email]]
    assert f"/en/requests/{request.pk}/compare/" in mailoutbox[0].body


def test_quotation_revision_takes_no_new_slot():
    request = make_request()
    supplier, company = make_trader()
    make_quotation(request, actor=supplier)
    revised = make_quotation(request, actor=supplier, unit_price="2.10")
    request.refresh_from_db()
    assert Quotation.objects.filter(request=request).count() == 1
    assert revised.unit_price == Decimal("2.1")
    assert revised.revision == 2
    assert request.quotation_count == 1
    assert QuoteUsage.objects.get(company=company).count == 1


@pytest.mark.parametrize("revise", [False, True])
def test_a_price_that_rounds_to_zero_is_a_field_error_and_nothing_changes(revise):
    request = make_request()
    supplier, _company = make_trader()
    if revise:
        make_quotation(request, actor=supplier)
    before = list(Quotation.objects.values_list("unit_price", "revision"))
    with pytest.raises(SourcingError) as caught:
        make_quotation(request, actor=supplier, unit_price="0.00001")
    assert caught.value.message_dict == {"unit_price": ["Enter at least 0.0001."]}
    assert list(Quotation.objects.values_list("unit_price", "revision")) == before


def test_buyer_cannot_quote_on_own_request():
    buyer, company = make_trader()
    request = make_request(actor=buyer)
    colleague = add_member(company)
    with pytest.raises(SourcingError) as caught:
        make_quotation(request, actor=colleague)
    assert caught.value.code == SourcingErrorCode.OWN_REQUEST
    assert Quotation.objects.count() == 0


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"unit_price": "-1"}, "unit_price"),
        ({"unit_price": "abc"}, "unit_price"),
        ({"currency": "ZZZ"}, "currency"),
        ({"moq": "0"}, "moq"),
        ({"lead_time_days": -3}, "lead_time_days"),
        ({"lead_time_days": "soon"}, "lead_time_days"),
        ({"incoterm": "ABC"}, "incoterm"),
        ({"payment_terms": ["bitcoin"]}, "payment_terms"),
        ({"valid_until": timezone.localdate() - timedelta(days=1)}, "valid_until"),
        ({"price_tiers": [{"min_quantity": "x"}]}, "price_tiers"),
        ({"price_tiers": "junk"}, "price_tiers"),
        ({"message": "m" * 5001}, "message"),
        ({"named_place": "<script>x</script>"}, "named_place"),
    ],
)
def test_quotation_submit_refuses_bad_input(overrides, field):
    request = make_request()
    supplier, company = make_trader()
    with pytest.raises(SourcingError) as caught:
        make_quotation(request, actor=supplier, **overrides)
    assert field in caught.value.message_dict
    request.refresh_from_db()
    assert request.quotation_count == 0
    assert not Quotation.objects.exists()
    assert not QuoteUsage.objects.filter(company=company, count__gt=0).exists()


def test_full_request_refuses_more_quotations():
    request = make_request()
    BuyingRequest.objects.filter(pk=request.pk).update(quote_limit=1)
    request.refresh_from_db()
    make_quotation(request)
    late, company = make_trader()
    with pytest.raises(SourcingError) as caught:
        make_quotation(request, actor=late)
    assert caught.value.code == SourcingErrorCode.REQUEST_FULL
    request.refresh_from_db()
    assert request.quotation_count == 1
    assert not Quotation.objects.filter(supplier=company).exists()
    assert not QuoteUsage.objects.filter(company=company, count__gt=0).exists()


def test_last_slot_conditional_update_refuses_a_second_taker():
    """Two quotations racing for the last slot: the conditional UPDATE lets only one through,
    whatever both read before (here both hold a stale copy with one slot free)."""
    request = make_request()
    BuyingRequest.objects.filter(pk=request.pk).update(quote_limit=1)
    stale_a = BuyingRequest.objects.get(pk=request.pk)
    stale_b = BuyingRequest.objects.get(pk=request.pk)
    first, _c1 = make_trader()
    second, c2 = make_trader()
    make_quotation(stale_a, actor=first)
    assert stale_b.quotation_count == 0  # the second writer still believes a slot is free
    with pytest.raises(SourcingError) as caught:
        make_quotation(stale_b, actor=second)
    assert caught.value.code == SourcingErrorCode.REQUEST_FULL
    assert BuyingRequest.objects.get(pk=request.pk).quotation_count == 1
    assert not Quotation.objects.filter(supplier=c2).exists()


def test_monthly_quota_at_its_limit(settings):
    settings.TRADEPOST_MONTHLY_QUOTE_QUOTA = 2
    supplier, company = make_trader()
    make_quotation(make_request(), actor=supplier)
    make_quotation(make_request(), actor=supplier)
    third = make_request()
    with pytest.raises(SourcingError) as caught:
        make_quotation(third, actor=supplier)
    assert caught.value.code == SourcingErrorCode.QUOTA_EXCEEDED
    third.refresh_from_db()
    assert third.quotation_count == 0  # the slot taken before the refusal was rolled back
    assert QuoteUsage.objects.get(company=company).count == 2
    assert Quotation.objects.filter(supplier=company).count() == 2


def test_closed_or_past_deadline_request_refuses_quotations():
    request = make_request()
    BuyingRequest.objects.filter(pk=request.pk).update(
        deadline=timezone.now() - timedelta(seconds=1)
    )
    request.refresh_from_db()
    with pytest.raises(SourcingError) as caught:
        make_quotation(request)
    assert caught.value.code == SourcingErrorCode.REQUEST_NOT_OPEN


# --- buyer decisions -------------------------------------------------------------------------


def _request_with_two_quotes():
    buyer, request, (first, second) = make_quoted_request(
        {}, {"currency": "CNY", "unit_price": "16"}
    )
    return buyer, request, first, second


def test_shortlist_and_decline():
    buyer, _request, first, second = _request_with_two_quotes()
    services.quotation_shortlist(actor=buyer, quotation=first)
    assert first.status == QuotationStatus.SHORTLISTED
    with pytest.raises(SourcingError):
        services.quotation_decline(actor=buyer, quotation=second, reason="")
    services.quotation_decline(actor=buyer, quotation=second, reason="Price too high")
    assert second.status == QuotationStatus.DECLINED
    assert second.decline_reason == "Price too high"


def test_supplier_cannot_decide_on_quotations():
    _buyer, _request, first, second = _request_with_two_quotes()
    supplier = first.created_by
    for action in (
        lambda: services.quotation_shortlist(actor=supplier, quotation=second),
        lambda: services.quotation_decline(actor=supplier, quotation=second, reason="no"),
        lambda: services.quotation_award(actor=supplier, quotation=first),
    ):
        with pytest.raises(SourcingError):
            action()
    assert set(Quotation.objects.values_list("status", flat=True)) == {"submitted"}


def test_award_closes_request_and_emails_every_supplier(
    mailoutbox, django_capture_on_commit_callbacks
):
    buyer, request, first, second = _request_with_two_quotes()
    mailoutbox.clear()
    _run_on_commit(
        django_capture_on_commit_callbacks,
        services.quotation_award,
        actor=buyer,
        quotation=second,
    )
    request.refresh_from_db()
    first.refresh_from_db()
    second.refresh_from_db()
    assert request.status == RequestStatus.AWARDED
    assert request.awarded_quotation == second
    assert second.status == QuotationStatus.AWARDED
    assert first.status == QuotationStatus.NOT_SELECTED
    assert sorted(m.to[0] for m in mailoutbox) == sorted(
        [first.created_by.email, second.created_by.email]
    )
    won = next(m for m in mailoutbox if m.to == [second.created_by.email])
    assert "Good news" in won.body
    with pytest.raises(SourcingError):
        make_quotation(request)


def test_two_awards_at_once_only_one_wins():
    """Both buyers' sessions read the request open; the second award is refused whole."""
    buyer, request, first, second = _request_with_two_quotes()
    stale_first = Quotation.objects.get(pk=first.pk)
    stale_second = Quotation.objects.get(pk=second.pk)
    services.quotation_award(actor=buyer, quotation=stale_first)
    with pytest.raises(SourcingError) as caught:
        services.quotation_award(actor=buyer, quotation=stale_second)
    assert caught.value.code == SourcingErrorCode.REQUEST_NOT_OPEN
    request.refresh_from_db()
    assert request.awarded_quotation_id == first.pk
    assert Quotation.objects.get(pk=second.pk).status == QuotationStatus.NOT_SELECTED


def test_declined_quotation_cannot_be_awarded_and_nothing_changes():
    buyer, request, first, _second = _request_with_two_quotes()
    services.quotation_decline(actor=buyer, quotation=first, reason="No")
    with pytest.raises(SourcingError):
        services.quotation_award(actor=buyer, quotation=first)
    request.refresh_from_db()
    assert request.status == RequestStatus.OPEN
    assert request.awarded_quotation_id is None


def test_revision_after_decline_is_refused():
    buyer, request, first, _second = _request_with_two_quotes()
    services.quotation_decline(actor=buyer, quotation=first, reason="No")
    with pytest.raises(SourcingError):
        services.quotation_submit(
            actor=first.created_by, buying_request=request, **quotation_fields()
        )


def test_revision_on_a_request_closed_meanwhile_is_refused():
    buyer, request, first, _second = _request_with_two_quotes()
    stale = BuyingRequest.objects.get(pk=request.pk)
    services.request_close(actor=buyer, buying_request=request)
    with pytest.raises(SourcingError) as caught:
        services.quotation_submit(
            actor=first.created_by, buying_request=stale, **quotation_fields(unit_price="1")
        )
    assert caught.value.code == SourcingErrorCode.REQUEST_NOT_OPEN
    first.refresh_from_db()
    assert first.unit_price == Decimal("2.3")


@pytest.mark.parametrize(
    ("status", "revisable"),
    [
        (QuotationStatus.SUBMITTED, True),
        (QuotationStatus.SHORTLISTED, True),
        (QuotationStatus.DECLINED, False),
        (QuotationStatus.AWARDED, False),
        (QuotationStatus.NOT_SELECTED, False),
    ],
)
def test_is_revisable_decides_whether_the_supplier_may_revise(status, revisable):
    request = make_request()
    supplier, _company = make_trader()
    quotation = make_quotation(request, actor=supplier)
    Quotation.objects.filter(pk=quotation.pk).update(status=status)
    quotation.refresh_from_db()
    assert quotation.is_revisable is revisable
    if revisable:
        assert make_quotation(request, actor=supplier, unit_price="2.00").revision == 2
    else:
        with pytest.raises(SourcingError) as caught:
            make_quotation(request, actor=supplier, unit_price="2.00")
        assert caught.value.code == SourcingErrorCode.WRONG_STATE
