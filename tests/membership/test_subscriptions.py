"""Subscribing, paying, changing plan (with the pro-rata credit checked by an independent
computation in whole cents), cancelling at the term's end, and the history rows."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from django.utils import timezone

from tests.factories.accounts import make_operator
from tests.factories.companies import make_trader
from tests.factories.membership import free, gold, make_plan, shift_back, subscribe
from tradepost.accounts.errors import AccountError, AccountErrorCode
from tradepost.audit.models import AuditEntry
from tradepost.membership import selectors, services
from tradepost.membership.errors import MembershipError, MembershipErrorCode
from tradepost.membership.models import InvoiceStatus, Subscription, SubscriptionStatus
from tradepost.membership.proration import add_months
from tradepost.money.models import ExchangeRate

pytestmark = pytest.mark.django_db


def cents_half_up(value: Fraction) -> Decimal:
    """`value` rounded half up to whole cents, by integer arithmetic only."""
    cents, rest = divmod(value.numerator * 100, value.denominator)
    if 2 * rest >= value.denominator:
        cents += 1
    return Decimal(cents) / 100


def expected_credit(price: Decimal, starts: date, ends: date, today: date, rate=Fraction(1)):
    unused = (ends - today).days
    days = (ends - starts).days
    return cents_half_up(Fraction(price) * unused / days * rate)


def test_subscribing_issues_an_invoice_and_paying_starts_the_plan():
    owner, company = make_trader()
    period = subscribe(company, gold(), actor=owner, paid=False)
    today = timezone.localdate()
    assert period.status == SubscriptionStatus.PENDING
    assert (period.starts_on, period.ends_on) == (today, add_months(today, 12))
    invoice = period.invoice
    assert invoice.status == InvoiceStatus.OPEN
    assert (invoice.total, invoice.currency, invoice.credit) == (Decimal("2000.00"), "USD", 0)
    assert invoice.period_end == period.ends_on - timedelta(1)
    trader = make_trader()[0]
    with pytest.raises(AccountError) as refused:
        services.invoice_confirm_payment(actor=trader, invoice_id=invoice.pk)
    assert refused.value.code == AccountErrorCode.OPERATORS_ONLY
    ops = make_operator()
    services.invoice_confirm_payment(actor=ops, invoice_id=invoice.pk)
    period.refresh_from_db()
    invoice.refresh_from_db()
    assert period.status == SubscriptionStatus.ACTIVE and invoice.status == InvoiceStatus.PAID
    assert invoice.confirmed_by == ops and invoice.paid_at is not None
    assert AuditEntry.objects.filter(action="invoice.paid", target_id=str(invoice.pk)).exists()
    with pytest.raises(MembershipError) as again:
        services.invoice_confirm_payment(actor=ops, invoice_id=invoice.pk)
    assert again.value.code == MembershipErrorCode.INVOICE_NOT_OPEN


def test_a_new_change_withdraws_the_one_waiting_and_voids_its_invoice():
    owner, company = make_trader()
    first = subscribe(company, gold(), actor=owner, paid=False)
    second = subscribe(company, make_plan(), actor=owner, paid=False)
    first.refresh_from_db()
    assert first.status == SubscriptionStatus.CANCELLED
    assert first.invoice.status == InvoiceStatus.VOID
    assert second.status == SubscriptionStatus.PENDING
    assert second.invoice.sequence == first.invoice.sequence + 1


def test_the_same_purchase_asked_again_is_the_one_waiting_with_its_invoice():
    """A second click or a retried request: one purchase, one invoice number, none voided."""
    owner, company = make_trader()
    first = subscribe(company, gold(), actor=owner, paid=False)
    again = subscribe(company, gold(), actor=owner, paid=False)
    assert again.pk == first.pk and again.status == SubscriptionStatus.PENDING
    assert list(company.invoices.values_list("status", flat=True)) == [InvoiceStatus.OPEN]


def test_upgrade_credits_the_unused_days_exactly():
    owner, company = make_trader()
    current = shift_back(subscribe(company, gold(), actor=owner), 100)
    platinum = make_plan(price=Decimal("3600.00"), monthly_quotation_quota=500)
    today = timezone.localdate()
    quote = selectors.change_quote(company, platinum)
    assert quote.kind == "upgrade"
    credit = expected_credit(Decimal("2000.00"), current.starts_on, current.ends_on, today)
    assert quote.credit == credit
    assert quote.total == Decimal("3600.00") - credit
    upgrade = subscribe(company, platinum, actor=owner, action="upgrade")
    assert upgrade.invoice.credit == credit and upgrade.invoice.total == quote.total
    assert (upgrade.starts_on, upgrade.ends_on) == (today, add_months(today, 12))
    current.refresh_from_db()
    assert current.status == SubscriptionStatus.REPLACED
    assert selectors.current_plan(company) == platinum


def test_upgrade_into_another_currency_converts_the_credit_at_the_operators_rate():
    ExchangeRate.objects.update_or_create(
        currency="CNY", defaults={"rate_to_usd": Decimal("0.14"), "as_of": date(2026, 12, 1)}
    )
    owner, company = make_trader()
    current = shift_back(subscribe(company, gold(), actor=owner), 37)
    yuan = make_plan(price=Decimal("30000.00"), currency="CNY")
    quote = selectors.change_quote(company, yuan)
    assert quote.kind == "upgrade"
    rate = Fraction(1) / Fraction("0.14")  # yuan per dollar
    expected = expected_credit(
        Decimal("2000.00"), current.starts_on, current.ends_on, timezone.localdate(), rate
    )
    assert quote.credit == expected
    assert quote.total == Decimal("30000.00") - expected


def test_downgrade_starts_when_the_paid_period_ends_without_credit():
    owner, company = make_trader()
    current = subscribe(company, gold(), actor=owner)
    silver = make_plan(price=Decimal("500.00"))
    with pytest.raises(MembershipError) as refused:
        services.plan_change(actor=owner, company=company, plan_id=silver.pk, action="upgrade")
    assert refused.value.code == MembershipErrorCode.WRONG_ACTION
    down = subscribe(company, silver, actor=owner, action="downgrade")
    assert down.kind == "downgrade" and down.starts_on == current.ends_on
    assert down.invoice.credit == 0 and down.invoice.total == Decimal("500.00")
    assert selectors.current_plan(company) == gold()
    assert selectors.current_plan(company, today=current.ends_on) == silver


def test_same_plan_and_the_free_plan_are_refused():
    owner, company = make_trader()
    subscribe(company, gold(), actor=owner)
    for plan_id, action, code in (
        (gold().pk, "upgrade", MembershipErrorCode.SAME_PLAN),
        (free().pk, "downgrade", MembershipErrorCode.WRONG_ACTION),
    ):
        with pytest.raises(MembershipError) as refused:
            services.plan_change(actor=owner, company=company, plan_id=plan_id, action=action)
        assert refused.value.code == code


def test_cancel_at_term_end_and_resume():
    owner, company = make_trader()
    current = subscribe(company, gold(), actor=owner)
    services.subscription_cancel(actor=owner, company=company)
    current.refresh_from_db()
    assert not current.auto_renew
    assert selectors.current_plan(company, today=current.ends_on) == free()
    with pytest.raises(MembershipError) as twice:
        services.subscription_cancel(actor=owner, company=company)
    assert twice.value.code == MembershipErrorCode.NOTHING_TO_CANCEL
    services.plan_change(actor=owner, company=company, plan_id=gold().pk, action="subscribe")
    current.refresh_from_db()
    assert current.auto_renew


def test_each_change_of_plan_or_renewal_writes_one_audit_entry():
    owner, company = make_trader()
    first = subscribe(company, gold(), actor=owner)
    bigger = make_plan(price=Decimal("9000.00"))
    upgrade = subscribe(company, bigger, actor=owner, action="upgrade", paid=False)
    services.subscription_cancel(actor=owner, company=company)
    entries = list(
        AuditEntry.objects.filter(action__startswith="subscription.")
        .order_by("pk")
        .values_list("action", "actor", "target_id", "changes")
    )
    assert entries == [
        (
            "subscription.new",
            owner.pk,
            str(first.pk),
            {"plan": [None, gold().code], "auto_renew": [None, True]},
        ),
        (
            "subscription.upgrade",
            owner.pk,
            str(upgrade.pk),
            {"plan": [gold().code, bigger.code], "auto_renew": [True, True]},
        ),
        ("subscription.cancel", owner.pk, str(first.pk), {"auto_renew": [True, False]}),
    ]
    services.plan_change(actor=owner, company=company, plan_id=gold().pk, action="subscribe")
    resumed = AuditEntry.objects.filter(action="subscription.resume").get()
    assert (resumed.target_id, resumed.changes) == (str(first.pk), {"auto_renew": [False, True]})


def test_plain_members_and_outsiders_change_nothing(cast):
    for actor in (cast.member, cast.outsider, cast.loner):
        with pytest.raises(MembershipError) as refused:
            services.plan_change(
                actor=actor, company=cast.company, plan_id=gold().pk, action="subscribe"
            )
        assert refused.value.code == MembershipErrorCode.NOT_ALLOWED
    assert not Subscription.objects.exists()


def test_history_keeps_a_row_per_period_and_change():
    owner, company = make_trader()
    subscribe(company, make_plan(), actor=owner, paid=False)  # withdrawn by the next change
    first = subscribe(company, gold(), actor=owner)
    subscribe(company, make_plan(price=Decimal("9000.00")), actor=owner, action="upgrade")
    rows = list(selectors.history(company).values_list("kind", "status"))
    assert sorted(rows) == sorted(
        [("new", "cancelled"), ("new", "replaced"), ("upgrade", "active")]
    )
    assert first.invoice.number != ""
