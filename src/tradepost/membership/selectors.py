"""Reads of plans, subscriptions and invoices.

`current_plan(company)` is the one answer to "which plan is this company on?": the plan of its
paid period covering today (a period that renews keeps its plan through the grace period
while the renewal waits for its payment), otherwise the default plan (Free). Other apps ask
through `current_plan`, `has_benefit` and `monthly_quotation_quota`; sourcing counts its
quota with the last.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from tradepost.accounts.selectors import is_operator, require_operator
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company
from tradepost.core.ids import parse_id
from tradepost.membership.errors import (
    InvoiceNotFound,
    MembershipError,
    MembershipErrorCode,
    PlanNotFound,
)
from tradepost.membership.models import (
    BENEFITS,
    BillingDetails,
    Invoice,
    InvoiceStatus,
    Plan,
    Subscription,
    SubscriptionKind,
    SubscriptionStatus,
)
from tradepost.membership.proration import add_months, credit_for, total_after_credit
from tradepost.money.amounts import Money
from tradepost.money.rates import usd_per_unit


def grace_days() -> int:
    return int(settings.TRADEPOST_MEMBERSHIP_GRACE_DAYS)


def _today(today: date | None) -> date:
    return today or timezone.localdate()


# --- plans -----------------------------------------------------------------------------------


def default_plan() -> Plan:
    """The plan of a company without a paid period (Free). Should an operator have removed
    it, an unsaved Free plan with the site's quota stands in."""
    plan = Plan.objects.filter(is_default=True).first()
    if plan is None:
        plan = Plan(code="free", name_en="Free", name_zh_hans="免费", name_zh_hant="免費")
        plan.is_default = True
    return plan


def offered_plans() -> QuerySet[Plan]:
    """The plans the plans page compares, the default one first."""
    return Plan.objects.filter(Q(is_offered=True) | Q(is_default=True)).order_by(
        "-is_default", "position", "pk"
    )


def offered_plan(*, plan_id: Any) -> Plan:
    """An offered paid plan by id; a nonsense, unknown or withdrawn id is `PlanNotFound`."""
    pk = parse_id(plan_id)
    plan = Plan.objects.filter(pk=pk, is_offered=True).first() if pk is not None else None
    if plan is None:
        raise PlanNotFound()
    return plan


# --- the current plan ------------------------------------------------------------------------


def _covering(today: date) -> Q:
    """Paid periods that cover `today`: begun, and not ended, or ended less than the grace
    period ago while they renew."""
    return Q(status=SubscriptionStatus.ACTIVE, starts_on__lte=today) & (
        Q(ends_on__gt=today) | Q(auto_renew=True, ends_on__gt=today - timedelta(grace_days()))
    )


def current_subscription(company: Company, *, today: date | None = None) -> Subscription | None:
    """The company's paid period covering today, the latest begun when two do (a renewal paid
    during the grace period)."""
    return (
        Subscription.objects.filter(_covering(_today(today)), company_id=company.pk)
        .select_related("plan")
        .order_by("-starts_on", "-pk")
        .first()
    )


def current_plan(company: Company, *, today: date | None = None) -> Plan:
    """The plan the company is on today (Free when it has no paid period)."""
    subscription = current_subscription(company, today=today)
    return subscription.plan if subscription is not None else default_plan()


def quota_of(plan: Plan) -> int:
    """Quotations a month on `plan`: its number, or the site's standard quota
    (TRADEPOST_MONTHLY_QUOTE_QUOTA) for a plan that sets none (Free, as installed)."""
    quota = plan.monthly_quotation_quota
    return int(settings.TRADEPOST_MONTHLY_QUOTE_QUOTA) if quota is None else quota


def monthly_quotation_quota(company: Company, *, today: date | None = None) -> int:
    """Quotations the company may send this month, by its plan."""
    return quota_of(current_plan(company, today=today))


def benefit(company: Company, name: str, *, today: date | None = None) -> Any:
    """The value of one of `models.BENEFITS` on the company's plan (the quota: the number
    that applies)."""
    if name not in BENEFITS:
        raise ValueError(f"unknown benefit {name!r}")
    if name == "monthly_quotation_quota":
        return monthly_quotation_quota(company, today=today)
    return getattr(current_plan(company, today=today), name)


def has_benefit(company: Company, name: str, *, today: date | None = None) -> bool:
    """Whether the company's plan gives the benefit at all (a flag set, a number above
    zero): e.g. `has_benefit(company, "verified_badge_eligible")`."""
    return bool(benefit(company, name, today=today))


def benefit_of_companies(
    company_ids: Iterable[int], name: str, *, today: date | None = None
) -> dict[int, Any]:
    """`benefit(company, name)` for each of `company_ids`, in one query (the catalogue's
    showcase and the first look of new buying requests ask for many companies at once)."""
    if name not in BENEFITS:
        raise ValueError(f"unknown benefit {name!r}")
    ids = {int(pk) for pk in company_ids}
    plans: dict[int, Plan] = {}
    if ids:
        covering = (
            Subscription.objects.filter(_covering(_today(today)), company_id__in=ids)
            .select_related("plan")
            .order_by("company_id", "-starts_on", "-pk")
        )
        for subscription in covering:
            plans.setdefault(subscription.company_id, subscription.plan)
    fallback: Plan | None = None
    values: dict[int, Any] = {}
    for pk in ids:
        plan = plans.get(pk)
        if plan is None:
            plan = fallback = fallback or default_plan()
        values[pk] = quota_of(plan) if name == "monthly_quotation_quota" else getattr(plan, name)
    return values


# --- a company's membership ------------------------------------------------------------------


def pending_change(company: Company) -> Subscription | None:
    """The period waiting for its payment (a new plan, a change, a renewal), with its invoice."""
    return (
        Subscription.objects.filter(company_id=company.pk, status=SubscriptionStatus.PENDING)
        .select_related("plan", "invoice")
        .first()
    )


def scheduled_next(subscription: Subscription) -> Subscription | None:
    """The paid period that follows `subscription` (a renewal or a downgrade paid ahead)."""
    return (
        Subscription.objects.filter(
            previous_id=subscription.pk,
            status=SubscriptionStatus.ACTIVE,
            starts_on__gte=subscription.ends_on,
        )
        .select_related("plan")
        .first()
    )


def history(company: Company) -> QuerySet[Subscription]:
    """Every period and change of the company, newest first."""
    return Subscription.objects.filter(company_id=company.pk).select_related("plan")


def billing_details(company: Company) -> BillingDetails:
    """The company's billing details (unsaved and filled from its profile when it gave none)."""
    details = BillingDetails.objects.filter(company_id=company.pk).first()
    if details is None:
        details = BillingDetails(
            company=company, legal_name=company.legal_name, country=company.country
        )
    return details


@dataclass(frozen=True)
class Overview:
    """What the company's membership page and `GET /me/subscription` show."""

    plan: Plan
    subscription: Subscription | None
    pending: Subscription | None
    following: Subscription | None
    in_grace: bool
    #: The last day the plan holds when nothing is paid (its end, or the grace's).
    holds_until: date | None


def overview(company: Company, *, today: date | None = None) -> Overview:
    today = _today(today)
    subscription = current_subscription(company, today=today)
    following = scheduled_next(subscription) if subscription is not None else None
    holds_until = None
    in_grace = False
    if subscription is not None:
        in_grace = subscription.ends_on <= today
        end = subscription.ends_on
        if subscription.auto_renew:
            end += timedelta(grace_days())
        holds_until = end - timedelta(1)
    return Overview(
        plan=subscription.plan if subscription is not None else default_plan(),
        subscription=subscription,
        pending=pending_change(company),
        following=following,
        in_grace=in_grace,
        holds_until=holds_until,
    )


# --- a change of plan, before it is made ------------------------------------------------------


@dataclass(frozen=True)
class ChangeQuote:
    """What choosing `plan` would do: its kind, its period and its money (in the plan's
    currency). `previous` is the paid period it follows (a downgrade) or replaces (an
    upgrade); an upgrade also replaces the period already paid to follow it, if any, and
    credits both (`replaced`)."""

    kind: str
    plan: Plan
    starts_on: date
    ends_on: date
    price: Decimal
    credit: Decimal
    total: Decimal
    previous: Subscription | None = None
    replaced: tuple[Subscription, ...] = ()

    @property
    def last_day(self) -> date:
        return self.ends_on - timedelta(days=1)


def _monthly_usd(plan: Plan) -> Decimal:
    """A paid plan's price per month in US dollars, to tell an upgrade from a downgrade."""
    dollars = Money(plan.price, plan.currency).to("USD")
    if dollars is None:
        raise _no_rate(plan.currency)
    return dollars.amount / Decimal(plan.term_months or 1)


def _no_rate(currency: str) -> MembershipError:
    return MembershipError(
        MembershipErrorCode.NO_EXCHANGE_RATE,
        _("There is no exchange rate for %(currency)s yet.") % {"currency": currency},
    )


def _usd_per_unit(currency: str) -> Decimal:
    """US dollars for one unit of `currency` (the exchange-rate table's), or refused."""
    rate = usd_per_unit(currency)
    if rate is None:
        raise _no_rate(currency)
    return rate


def change_quote(company: Company, plan: Plan, *, today: date | None = None) -> ChangeQuote:
    """The kind, period and amounts of moving the company to the paid `plan` today.

    From Free: a new period from today. To a dearer plan (per month, in US dollars): an
    upgrade from today, with the credit of what is paid and unused. To a cheaper one: a
    downgrade from the end of what is paid, at full price. The same plan: refused.
    """
    today = _today(today)
    term = plan.term_months or 12
    current = current_subscription(company, today=today)
    if current is None:
        return ChangeQuote(
            SubscriptionKind.NEW,
            plan,
            today,
            add_months(today, term),
            plan.price,
            Decimal(0),
            plan.price,
        )
    if current.plan_id == plan.pk:
        raise MembershipError(
            MembershipErrorCode.SAME_PLAN, _("Your company is already on this plan.")
        )
    following = scheduled_next(current)
    if _monthly_usd(plan) <= _monthly_usd(current.plan):
        last = following or current
        starts = max(last.ends_on, today)
        return ChangeQuote(
            SubscriptionKind.DOWNGRADE,
            plan,
            starts,
            add_months(starts, term),
            plan.price,
            Decimal(0),
            plan.price,
            previous=last,
        )
    replaced = (current,) if following is None else (current, following)
    credit = sum(
        (
            credit_for(
                price_paid=_price_paid(paid),
                starts_on=paid.starts_on,
                ends_on=paid.ends_on,
                on=today,
                **conversion(paid.plan.currency, plan.currency),
                currency=plan.currency,
            )
            for paid in replaced
        ),
        Decimal(0),
    )
    credit = min(credit, plan.price)
    return ChangeQuote(
        SubscriptionKind.UPGRADE,
        plan,
        today,
        add_months(today, term),
        plan.price,
        credit,
        total_after_credit(plan.price, credit),
        previous=current,
        replaced=replaced,
    )


def conversion(source: str, target: str) -> dict[str, Decimal]:
    """The rates `proration.credit_for` converts a credit with (none within one currency)."""
    if source == target:
        return {}
    return {"source_usd": _usd_per_unit(source), "target_usd": _usd_per_unit(target)}


def _price_paid(subscription: Subscription) -> Decimal:
    """What the period cost before any credit (its invoice's price; the plan's without one)."""
    invoice = Invoice.objects.filter(subscription_id=subscription.pk).first()
    return invoice.price if invoice is not None else subscription.plan.price


# --- invoices --------------------------------------------------------------------------------


def invoices_of(company: Company) -> QuerySet[Invoice]:
    return Invoice.objects.filter(company_id=company.pk).order_by("-year", "-sequence")


def invoices_awaiting_payment(*, user: Any) -> QuerySet[Invoice]:
    """Open invoices for the operators' payments page, oldest first (operators only)."""
    require_operator(user)
    return (
        Invoice.objects.filter(status=InvoiceStatus.OPEN)
        .select_related("company")
        .order_by("issued_on", "year", "sequence")
    )


def access_invoice(*, user: Any, invoice_id: Any) -> Invoice:
    """An invoice of the user's company (any member) or, for an operator, any invoice;
    `InvoiceNotFound` for every other id."""
    pk = parse_id(invoice_id)
    if pk is None or user is None or not getattr(user, "is_authenticated", False):
        raise InvoiceNotFound()
    invoice = Invoice.objects.select_related("subscription", "company").filter(pk=pk).first()
    if invoice is None:
        raise InvoiceNotFound()
    if not is_operator(user) and invoice.company_id != actor_for(user).company_id:
        raise InvoiceNotFound()
    return invoice
