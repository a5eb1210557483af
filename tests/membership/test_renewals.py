"""The worker's timer: renewal invoices 30 days ahead, reminders 30, 7 and 1 days before the
end (email and in-app, in each recipient's language, each once), and the return to the free
plan at the end of the grace period with every listing kept."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.factories.accounts import make_operator
from tests.factories.catalog import make_product
from tests.factories.companies import add_member, make_trader
from tests.factories.membership import free, gold, subscribe
from tradepost.catalog.models import Product
from tradepost.companies.models import Role
from tradepost.membership import selectors, services
from tradepost.membership.models import (
    Invoice,
    InvoiceStatus,
    RenewalReminder,
    Subscription,
    SubscriptionKind,
    SubscriptionStatus,
)
from tradepost.notify.models import Notification, NotificationKind
from tradepost.notify.selectors import notification_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def gold_member(settings):
    """A company on Gold whose owner reads Simplified Chinese and whose admin reads English;
    a plain member (not told)."""
    settings.TRADEPOST_MEMBERSHIP_GRACE_DAYS = 14
    owner, company = make_trader()
    owner.preferred_language = "zh-hans"
    owner.save()
    admin = add_member(company, role=Role.ADMIN)
    admin.preferred_language = "en"
    admin.save()
    add_member(company, role=Role.MEMBER)
    period = subscribe(company, gold(), actor=owner)
    return owner, admin, company, period


def run(today, capture):
    with capture(execute=True):
        return services.membership_jobs_run(today=today)


def test_the_renewal_invoice_is_issued_30_days_ahead_once(
    gold_member, django_capture_on_commit_callbacks
):
    _owner, _admin, _company, period = gold_member
    assert run(period.ends_on - timedelta(31), django_capture_on_commit_callbacks)["renewals"] == 0
    assert run(period.ends_on - timedelta(30), django_capture_on_commit_callbacks)["renewals"] == 1
    assert run(period.ends_on - timedelta(29), django_capture_on_commit_callbacks)["renewals"] == 0
    renewal = Subscription.objects.get(kind=SubscriptionKind.RENEWAL)
    assert (renewal.starts_on, renewal.status) == (period.ends_on, SubscriptionStatus.PENDING)
    assert renewal.invoice.status == InvoiceStatus.OPEN
    assert renewal.invoice.period_start == period.ends_on


def test_reminders_go_once_each_in_the_readers_language(
    gold_member, mailoutbox, django_capture_on_commit_callbacks
):
    owner, admin, _company, period = gold_member
    end = period.ends_on
    for days in (30, 30, 29, 7, 7, 2, 1, 1):
        run(end - timedelta(days), django_capture_on_commit_callbacks)
    stages = sorted(RenewalReminder.objects.values_list("days_before", flat=True))
    assert stages == [1, 7, 30]
    # Each stage reached the owner and the admin, once each.
    assert sorted(message.to[0] for message in mailoutbox) == sorted([owner.email, admin.email] * 3)
    chinese = [m for m in mailoutbox if m.to == [owner.email]]
    english = [m for m in mailoutbox if m.to == [admin.email]]
    assert all("金牌供应商" in m.body for m in chinese)
    assert all("Gold Supplier" in m.body and "free plan" in m.body for m in english)
    invoice = Invoice.objects.get(subscription__kind=SubscriptionKind.RENEWAL)
    assert all(invoice.number in m.body for m in mailoutbox)
    told = Notification.objects.filter(kind=NotificationKind.MEMBERSHIP_ENDING)
    assert told.filter(recipient=owner).count() == 3
    assert told.filter(recipient=admin).count() == 3
    assert told.count() == 6  # the plain member is not told
    assert "金牌供应商" in notification_text(told.filter(recipient=owner).first())


def test_a_missed_run_sends_only_the_nearest_reminder(
    gold_member, mailoutbox, django_capture_on_commit_callbacks
):
    _owner, _admin, _company, period = gold_member
    run(period.ends_on - timedelta(5), django_capture_on_commit_callbacks)
    assert list(RenewalReminder.objects.values_list("days_before", flat=True)) == [7]
    assert len(mailoutbox) == 2


def test_no_reminder_once_the_next_period_is_paid(
    gold_member, mailoutbox, django_capture_on_commit_callbacks
):
    _owner, _admin, _company, period = gold_member
    run(period.ends_on - timedelta(30), django_capture_on_commit_callbacks)
    renewal = Subscription.objects.get(kind=SubscriptionKind.RENEWAL)
    services.invoice_confirm_payment(actor=make_operator(), invoice_id=renewal.invoice.pk)
    mailoutbox.clear()
    run(period.ends_on - timedelta(7), django_capture_on_commit_callbacks)
    assert mailoutbox == []
    assert not RenewalReminder.objects.filter(days_before=7).exists()
    # The paid renewal follows without a gap; the old period is closed after its end.
    run(period.ends_on, django_capture_on_commit_callbacks)
    period.refresh_from_db()
    assert period.status == SubscriptionStatus.ENDED
    assert selectors.current_plan(_company, today=period.ends_on) == gold()


def test_unpaid_renewal_returns_the_company_to_free_after_grace_keeping_its_listings(
    gold_member, mailoutbox, django_capture_on_commit_callbacks
):
    owner, _admin, company, period = gold_member
    products = [make_product(company=company) for _ in range(3)]
    published = set(Product.objects.filter(company=company).values_list("pk", "status"))
    run(period.ends_on - timedelta(30), django_capture_on_commit_callbacks)
    in_grace = period.ends_on + timedelta(13)
    assert run(in_grace, django_capture_on_commit_callbacks)["expired"] == 0
    assert selectors.current_plan(company, today=in_grace) == gold()
    mailoutbox.clear()
    assert run(period.ends_on + timedelta(14), django_capture_on_commit_callbacks)["expired"] == 1
    period.refresh_from_db()
    assert period.status == SubscriptionStatus.EXPIRED
    renewal = Subscription.objects.get(kind=SubscriptionKind.RENEWAL)
    assert renewal.status == SubscriptionStatus.CANCELLED
    assert renewal.invoice.status == InvoiceStatus.VOID
    assert selectors.current_plan(company, today=period.ends_on + timedelta(14)) == free()
    assert set(Product.objects.filter(company=company).values_list("pk", "status")) == published
    assert len(products) == 3
    assert sorted(m.to[0] for m in mailoutbox) == sorted([owner.email, _admin.email])
    assert Notification.objects.filter(kind=NotificationKind.MEMBERSHIP_EXPIRED).count() == 2
    # Once only.
    assert run(period.ends_on + timedelta(15), django_capture_on_commit_callbacks)["expired"] == 0


def test_a_cancelled_period_ends_at_its_end_without_grace(
    gold_member, django_capture_on_commit_callbacks
):
    owner, _admin, company, period = gold_member
    services.subscription_cancel(actor=owner, company=company)
    assert run(period.ends_on - timedelta(30), django_capture_on_commit_callbacks)["renewals"] == 0
    assert run(period.ends_on, django_capture_on_commit_callbacks)["expired"] == 1
    assert selectors.current_plan(company, today=period.ends_on) == free()
