"""A supplier buys Gold, the operator confirms the bank transfer, the Gold badge appears once
verification passes, and when the year is over and nobody renewed, the company is back on
Free with every listing it had (#14), driven through the real pages in Chromium."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.e2e.people import log_in
from tests.factories.accounts import make_operator
from tests.factories.catalog import make_product
from tests.factories.companies import make_trader
from tests.factories.images import png_bytes
from tests.factories.membership import gold
from tradepost.catalog.models import ProductStatus
from tradepost.membership import selectors
from tradepost.membership.models import Invoice, Subscription, SubscriptionStatus
from tradepost.membership.services import membership_jobs_run

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WIDE = {"width": 1366, "height": 900}


def _licence_scan(path):
    """A PNG standing for a scanned business licence."""
    scan = png_bytes(
        600, 400, colour=(250, 250, 245), band=(40, 60, 560, 70), band_colour=(20, 20, 20)
    )
    path.write_bytes(scan)
    return str(path)


def _gold_badge(page) -> int:
    return page.locator(".badge.gold").count()


def test_gold_is_bought_confirmed_badged_and_expires_back_to_free(
    live_server, open_page, reference_data, tmp_path
):
    base = live_server.url
    owner, company = make_trader(english_name="Ningbo Lanting Housewares Co., Ltd.")
    listings = [
        make_product(company=company, status=ProductStatus.PUBLISHED, title=f"Vacuum flask {n}")
        for n in range(3)
    ]
    operator = make_operator()
    plan = gold()

    supplier = open_page(WIDE)
    log_in(supplier, base, owner)

    # The supplier picks Gold on the plans page and confirms: an invoice to pay by transfer.
    supplier.goto(f"{base}/en/membership/")
    supplier.locator(f"a[href$='/dashboard/membership/plans/{plan.pk}/']").click()
    supplier.wait_for_load_state()
    supplier.get_by_role("button", name="Confirm and get the invoice").click()
    supplier.wait_for_load_state()
    invoice = Invoice.objects.get(company=company)
    assert invoice.number in supplier.inner_text("main")
    assert invoice.payment_reference in supplier.inner_text("main")
    assert selectors.current_plan(company).code != "gold"  # not before the money is there

    # The operator sees the transfer arrive and confirms it.
    desk = open_page(WIDE)
    log_in(desk, base, operator)
    desk.goto(f"{base}/en/dashboard/operator/payments/")
    row = desk.locator("tr", has_text=invoice.number)
    row.get_by_role("button", name="Payment received").click()
    desk.wait_for_load_state()
    invoice.refresh_from_db()
    assert invoice.paid_at is not None
    assert selectors.current_plan(company).code == "gold"

    supplier.goto(f"{base}/en/dashboard/membership/")
    assert "Gold Supplier" in supplier.inner_text("main")

    # Gold alone gives no badge: the company is not verified yet.
    visitor = open_page(WIDE)
    company_page = f"{base}/en/companies/{company.slug}/"
    visitor.goto(company_page)
    assert _gold_badge(visitor) == 0

    # The supplier sends its business licence; the operator approves it.
    supplier.goto(f"{base}/en/dashboard/company/verification/")
    supplier.set_input_files(
        "input[name=business_licence]", _licence_scan(tmp_path / "licence.png")
    )
    supplier.get_by_role("button", name="Send for verification").click()
    supplier.wait_for_load_state()
    desk.goto(f"{base}/en/dashboard/operator/verification/")
    desk.locator("input[name=checked]").first.check()
    desk.get_by_role("button", name="Approve", exact=True).click()
    desk.wait_for_load_state()

    visitor.goto(company_page)
    assert _gold_badge(visitor) == 1
    for product in listings:
        assert visitor.locator(f"a[href*='/products/{product.pk}-']").count() >= 1

    # A year later nobody paid the renewal: at the end of the grace period the worker's
    # membership round puts the company back on Free; every listing stays published.
    subscription = Subscription.objects.get(company=company, status=SubscriptionStatus.ACTIVE)
    after_grace = subscription.ends_on + timedelta(days=selectors.grace_days() + 1)
    done = membership_jobs_run(today=after_grace)
    assert done["expired"] == 1
    assert selectors.current_plan(company).code == "free"

    supplier.goto(f"{base}/en/dashboard/membership/")
    assert "Free" in supplier.inner_text("main")
    visitor.goto(company_page)
    assert _gold_badge(visitor) == 0
    assert visitor.locator(".badge.verified").count() >= 1
    for product in listings:
        product.refresh_from_db()
        assert product.status == ProductStatus.PUBLISHED
        visitor.goto(f"{base}/en/products/{product.pk}-{product.slug}/")
        assert visitor.locator("h1").inner_text() == product.title
