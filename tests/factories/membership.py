"""Plans and paid periods. Plans are made here; subscriptions and invoices only through the
services (`subscribe` pays through an operator's confirmation, as a bank transfer is)."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import factory

from tests.factories.accounts import make_operator
from tests.factories.companies import make_trader
from tradepost.companies.models import Company
from tradepost.membership import services
from tradepost.membership.models import Invoice, Plan, Subscription


class PlanFactory(factory.django.DjangoModelFactory):
    """A yearly paid plan in US dollars."""

    class Meta:
        model = Plan

    code = factory.Sequence(lambda n: f"plan-{n}")
    name_en = factory.Sequence(lambda n: f"Plan {n}")
    name_zh_hans = factory.Sequence(lambda n: f"套餐{n}")
    name_zh_hant = factory.Sequence(lambda n: f"方案{n}")
    price = Decimal("1200.00")
    currency = "USD"
    term_months = 12
    monthly_quotation_quota = 50
    position = 20


def make_plan(**fields: Any) -> Plan:
    return PlanFactory(**fields)


def gold() -> Plan:
    """The Gold Supplier plan the data migration installs."""
    return Plan.objects.get(code="gold")


def free() -> Plan:
    return Plan.objects.get(is_default=True)


def subscribe(
    company: Company, plan: Plan, *, actor: Any, action: str = "subscribe", paid: bool = True
) -> Subscription:
    """`actor` (an owner or admin) chooses `plan`; with `paid`, an operator confirms the
    transfer of its invoice."""
    subscription = services.plan_change(
        actor=actor, company=company, plan_id=plan.pk, action=action
    )
    subscription.refresh_from_db()
    invoice = subscription.invoice
    if paid and invoice.status == "open":
        services.invoice_confirm_payment(actor=make_operator(), invoice_id=invoice.pk)
        subscription.refresh_from_db()
    return subscription


def shift_back(subscription: Subscription, days: int) -> Subscription:
    """Move a period `days` earlier (as if it had been bought then)."""
    Subscription.objects.filter(pk=subscription.pk).update(
        starts_on=subscription.starts_on - timedelta(days),
        ends_on=subscription.ends_on - timedelta(days),
    )
    subscription.refresh_from_db()
    return subscription


def set_period(subscription: Subscription, starts_on: date, ends_on: date) -> Subscription:
    Subscription.objects.filter(pk=subscription.pk).update(starts_on=starts_on, ends_on=ends_on)
    subscription.refresh_from_db()
    return subscription


CHINESE_BUYER = "义乌市星辰日用品有限公司"


def chinese_buyers_invoice(settings: Any) -> tuple[Any, Company, Invoice]:
    """An unpaid Gold invoice from a seller with every detail set (`settings`: the pytest
    fixture) to a Chinese buyer with its billing details; (owner, company, invoice)."""
    settings.TRADEPOST_SELLER_NAME = "Tradepost Operations Ltd"
    settings.TRADEPOST_SELLER_ADDRESS = "1 Harbour Road\\nHong Kong"
    settings.TRADEPOST_SELLER_COUNTRY = "HK"
    settings.TRADEPOST_SELLER_TAX_ID = "HK-12345678"
    settings.TRADEPOST_SELLER_BANK_ACCOUNT = "HK00 1234 5678 9012"
    owner, company = make_trader()
    services.billing_details_set(
        actor=owner,
        company=company,
        legal_name=CHINESE_BUYER,
        address="浙江省义乌市稠州北路 88 号",
        country="CN",
        tax_id="91330782MA2EXAMPLE",
        email="finance@example.com",
    )
    return owner, company, subscribe(company, gold(), actor=owner, paid=False).invoice
