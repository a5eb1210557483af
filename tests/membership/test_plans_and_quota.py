"""The default plans, the plan a company is on, and the quotation quota that comes from it."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from tests.factories.companies import make_trader
from tests.factories.membership import free, gold, make_plan, subscribe
from tests.factories.sourcing import make_request, quotation_fields
from tradepost.membership import selectors
from tradepost.sourcing import selectors as sourcing_selectors
from tradepost.sourcing import services as sourcing_services
from tradepost.sourcing.errors import SourcingError, SourcingErrorCode

pytestmark = pytest.mark.django_db


def test_the_default_set_is_free_and_gold():
    assert free().code == "free" and free().term_months is None and free().price == 0
    assert free().monthly_quotation_quota is None  # the site's TRADEPOST_MONTHLY_QUOTE_QUOTA
    plan = gold()
    assert (plan.price, plan.currency, plan.term_months) == (Decimal("2000.00"), "USD", 12)
    assert (plan.showcase_slots, plan.early_look_minutes) == (3, 60)
    assert plan.deeper_statistics and plan.verified_badge_eligible
    assert plan.monthly_quotation_quota > 20
    assert plan.name_for("zh-hans") == "金牌供应商" and plan.name_for("zh-hant") == "金牌供應商"


def test_a_company_without_a_paid_period_is_on_free(settings):
    settings.TRADEPOST_MONTHLY_QUOTE_QUOTA = 7
    _owner, company = make_trader()
    assert selectors.current_plan(company) == free()
    assert selectors.monthly_quotation_quota(company) == 7
    assert not selectors.has_benefit(company, "verified_badge_eligible")
    assert selectors.benefit(company, "showcase_slots") == 0


def test_a_paid_plan_gives_its_benefits():
    owner, company = make_trader()
    subscribe(company, gold(), actor=owner)
    assert selectors.current_plan(company) == gold()
    assert selectors.monthly_quotation_quota(company) == gold().monthly_quotation_quota
    assert selectors.has_benefit(company, "verified_badge_eligible")
    assert selectors.has_benefit(company, "deeper_statistics")
    assert selectors.benefit(company, "early_look_minutes") == 60
    with pytest.raises(ValueError):
        selectors.benefit(company, "free_lunch")


def test_an_unpaid_subscription_gives_nothing_yet():
    owner, company = make_trader()
    subscribe(company, gold(), actor=owner, paid=False)
    assert selectors.current_plan(company) == free()


def test_the_quotation_quota_is_the_plans(settings):
    settings.TRADEPOST_MONTHLY_QUOTE_QUOTA = 1
    supplier, company = make_trader()
    plan = make_plan(monthly_quotation_quota=2)
    subscribe(company, plan, actor=supplier)
    requests = [make_request() for _ in range(3)]
    for request in requests[:2]:
        sourcing_services.quotation_submit(
            actor=supplier, buying_request=request, **quotation_fields()
        )
    with pytest.raises(SourcingError) as refused:
        sourcing_services.quotation_submit(
            actor=supplier, buying_request=requests[2], **quotation_fields()
        )
    assert refused.value.code == SourcingErrorCode.QUOTA_EXCEEDED
    assert "2" in refused.value.message
    assert sourcing_selectors.quota_left(company=company) == 0


def test_the_dashboard_numbers_show_the_plans_quota():
    supplier, company = make_trader()
    subscribe(company, make_plan(monthly_quotation_quota=33), actor=supplier)
    numbers = sourcing_selectors.supplier_key_numbers(user=supplier, company=company)
    assert numbers.monthly_quota == 33
    assert sourcing_selectors.quota_left(company=company) == 33


def test_the_plan_holds_through_grace_only_while_it_renews(settings):
    settings.TRADEPOST_MEMBERSHIP_GRACE_DAYS = 14
    owner, company = make_trader()
    period = subscribe(company, gold(), actor=owner)
    end = period.ends_on
    assert selectors.current_plan(company, today=end - timedelta(1)) == gold()
    assert selectors.current_plan(company, today=end + timedelta(13)) == gold()
    assert selectors.current_plan(company, today=end + timedelta(14)) == free()
    period.auto_renew = False
    period.save()
    assert selectors.current_plan(company, today=end) == free()
