"""Renewal analytics for the operator (#14): renewal rate by yearly cohort and by plan, churn,
active paying members by month, plan and country, and revenue by month and plan in US dollars.

The measures, as docs/operations.md ("Membership analytics") gives them to operators:

- A **paid period** is a `Subscription` whose invoice was paid (`activated_at` set): active,
  ended, replaced or expired. A period waiting for its payment, or withdrawn unpaid, is none.
- A company's **cohort** is the year its first paid period started (whatever its plan).
- A paid period **comes up for renewal** on its end date (`ends_on`, the day after its last
  day), in that date's year, unless an upgrade replaced it (the company moved up; it did not
  leave). It **was renewed** when another paid period of the company starts within its
  renewal window, `ends_on` up to the end of the grace period (`ends_on + grace days`,
  exclusive; at least `ends_on` itself): the renewal, a downgrade taking effect, on any plan.
  A period is counted once its grace period is over (`ends_on + grace ≤ today`); until then
  it is **undecided** and in neither number (`undecided` says how many there are).
- **Renewal rate** = renewed ÷ came up; **churned** = came up − renewed; **churn rate** =
  churned ÷ came up. When nothing came up there is no rate (None, shown "—").
- The **headline** renewal rate: the periods that came up in the twelve months up to the last
  decided end date (`ends_on` in (H − 12 months, H], H = today − grace days); with a year
  chosen, that year's periods.
- A company is an **active paying member in a month** when one of its paid periods covers any
  day of it: the period starts on or before the month's last day and ends after its first day
  (the end is `ends_on`, or the day it was replaced for a replaced period; the grace days
  are not paid days). The month's total counts a company once; each plan's column counts the
  companies that had that plan in the month (the month of an upgrade counts both plans).
  By country: the company's country, in the last month shown.
- **Revenue** of a month: the totals of the invoices paid in it (`paid_at`, the site's time
  zone), converted into US dollars with `money.rates.convert` at the operator's table (one
  rate per currency: today's), by the plan of the invoice's period. An invoice in a currency
  the table lacks is left out and its currency listed in `missing_currencies`.
- Filters: a plan (renewals of its periods, members on it, revenue of its invoices; cohorts
  are still a company's first paid period of any plan) and a year (the periods that came up
  in it, its months). Without a year the months run from the first paid month to this one.

One query reads every paid period (with its company's country), one every paid invoice, one
the exchange rates; the rest is counted in Python: an installation's paid periods number in
the tens of thousands at most.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import Any, Generic, TypeVar

from django.utils import timezone
from django.utils.translation import gettext as _

from tradepost.accounts.selectors import require_operator
from tradepost.membership.errors import MembershipError, MembershipErrorCode
from tradepost.membership.models import (
    Invoice,
    InvoiceStatus,
    Plan,
    Subscription,
    SubscriptionStatus,
)
from tradepost.membership.proration import add_months
from tradepost.membership.selectors import grace_days
from tradepost.money.amounts import Money

#: The years a filter may name, and the most months a table shows without a year.
FIRST_YEAR, LAST_YEAR = 2000, 2100
MAX_MONTHS = 120
CENTS = Decimal("0.01")


@dataclass(frozen=True)
class Renewals:
    """Paid periods that came up for renewal, and how many of them were renewed."""

    came_up: int = 0
    renewed: int = 0

    @property
    def churned(self) -> int:
        return self.came_up - self.renewed

    @property
    def rate(self) -> float | None:
        """renewed ÷ came up, 0-1; None when nothing came up."""
        return self.renewed / self.came_up if self.came_up else None

    @property
    def churn_rate(self) -> float | None:
        return self.churned / self.came_up if self.came_up else None

    def plus(self, renewed: bool) -> Renewals:
        return Renewals(self.came_up + 1, self.renewed + int(renewed))


@dataclass(frozen=True)
class RenewalRow:
    """A cohort's (a year) or a plan's renewals, year by year (`MembershipAnalytics.years`)."""

    key: Any
    by_year: list[Renewals]
    total: Renewals


#: What a `PlanRow` counts: paying members, or US dollars.
N = TypeVar("N", int, Decimal)


@dataclass(frozen=True)
class PlanRow(Generic[N]):
    """A month's (or a country's) numbers under each plan and in all: the active paying
    members, or the US dollars received."""

    key: Any
    by_plan: list[N]
    total: N


@dataclass(frozen=True)
class MembershipAnalytics:
    today: date
    plan: Plan | None
    year: int | None
    grace_days: int
    #: The columns: the paid plans (the chosen one only, with a plan filter).
    plans: list[Plan]
    #: The years periods came up in (the renewal tables' columns).
    years: list[int]
    #: The years a filter may choose (those with a paid period).
    available_years: list[int]
    headline: Renewals
    #: The end dates of the periods the headline counts (first, last).
    headline_span: tuple[date, date]
    undecided: int
    by_year: list[tuple[int, Renewals]]
    by_cohort: list[RenewalRow]
    by_plan: list[RenewalRow]
    months: list[date]
    actives_by_month: list[PlanRow[int]]
    #: The month the country table counts (None without months).
    country_month: date | None
    actives_by_country: list[PlanRow[int]]
    revenue_by_month: list[PlanRow[Decimal]]
    revenue_total: Decimal
    missing_currencies: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Period:
    company_id: int
    country: str
    plan_id: int
    starts_on: date
    ends_on: date
    #: The first day it no longer covers: `ends_on`, or the day it was replaced.
    paid_until: date
    replaced: bool


# --- reading ---------------------------------------------------------------------------------


def _paid_periods() -> list[_Period]:
    rows = Subscription.objects.filter(activated_at__isnull=False).values_list(
        "company_id", "company__country", "plan_id", "starts_on", "ends_on", "status", "closed_at"
    )
    periods = []
    for company_id, country, plan_id, starts_on, ends_on, status, closed_at in rows:
        replaced = status == SubscriptionStatus.REPLACED
        paid_until = ends_on
        if replaced and closed_at is not None:
            paid_until = min(ends_on, max(starts_on, timezone.localdate(closed_at)))
        periods.append(
            _Period(company_id, country, plan_id, starts_on, ends_on, paid_until, replaced)
        )
    return periods


def _month(day: date) -> date:
    return day.replace(day=1)


def _months(first: date, last: date) -> list[date]:
    months, month = [], _month(first)
    while month <= last:
        months.append(month)
        month = add_months(month, 1)
    return months


# --- renewals --------------------------------------------------------------------------------


def _outcomes(
    periods: list[_Period], every: list[_Period], *, today: date, grace: int
) -> tuple[list[tuple[_Period, bool]], list[_Period]]:
    """The `periods` that came up and were decided, each with whether it was renewed (by any
    of `every` paid period); and the undecided ones (ended, their grace period not over)."""
    starts: dict[int, list[date]] = defaultdict(list)
    for period in every:
        starts[period.company_id].append(period.starts_on)
    for days in starts.values():
        days.sort()
    window = timedelta(max(grace, 1))
    decided, undecided = [], []
    for period in periods:
        if period.replaced or period.ends_on > today:
            continue
        if period.ends_on + timedelta(grace) > today:
            undecided.append(period)
            continue
        days = starts[period.company_id]
        first_after = bisect.bisect_left(days, period.ends_on)
        renewed = first_after < len(days) and days[first_after] < period.ends_on + window
        decided.append((period, renewed))
    return decided, undecided


def _renewal_rows(
    outcomes: list[tuple[_Period, bool]], keys: list[Any], key_of: Any, years: list[int]
) -> list[RenewalRow]:
    cells: dict[tuple[Any, int], Renewals] = defaultdict(Renewals)
    totals: dict[Any, Renewals] = defaultdict(Renewals)
    for period, renewed in outcomes:
        key = key_of(period)
        cells[key, period.ends_on.year] = cells[key, period.ends_on.year].plus(renewed)
        totals[key] = totals[key].plus(renewed)
    return [
        RenewalRow(key, [cells[key, year] for year in years], totals[key])
        for key in keys
        if totals[key].came_up
    ]


def _headline(
    outcomes: list[tuple[_Period, bool]], *, today: date, grace: int, year: int | None
) -> tuple[Renewals, tuple[date, date]]:
    if year is not None:
        span = (date(year, 1, 1), date(year, 12, 31))
    else:
        last = today - timedelta(grace)
        span = (add_months(last, -12) + timedelta(1), last)
    headline = Renewals()
    for period, renewed in outcomes:
        if span[0] <= period.ends_on <= span[1]:
            headline = headline.plus(renewed)
    return headline, span


# --- members and revenue ---------------------------------------------------------------------


def _count_row(key: Any, cells: list[set[int]]) -> PlanRow[int]:
    return PlanRow(key, [len(ids) for ids in cells], len(set().union(*cells)))


def _actives(
    periods: list[_Period], months: list[date], plans: list[Plan]
) -> tuple[list[PlanRow[int]], list[PlanRow[int]]]:
    """Members by month (and plan), and by country (and plan) in the last month."""
    if not months:
        return [], []
    columns = {plan.pk: index for index, plan in enumerate(plans)}
    rows = {month: index for index, month in enumerate(months)}
    members: list[list[set[int]]] = [[set() for _plan in plans] for _month in months]
    for period in periods:
        if period.paid_until <= period.starts_on:
            continue  # replaced on its first day: no day paid
        month = max(_month(period.starts_on), months[0])
        last = min(_month(period.paid_until - timedelta(1)), months[-1])
        while month <= last:
            members[rows[month]][columns[period.plan_id]].add(period.company_id)
            month = add_months(month, 1)
    country_of = {period.company_id: period.country for period in periods}
    by_country: dict[str, list[set[int]]] = defaultdict(lambda: [set() for _plan in plans])
    for column, companies in enumerate(members[-1]):
        for company in companies:
            by_country[country_of[company]][column].add(company)
    countries = [_count_row(country, cells) for country, cells in by_country.items()]
    countries.sort(key=lambda row: (-row.total, row.key))
    return [
        _count_row(month, cells) for month, cells in zip(months, members, strict=True)
    ], countries


def _to_usd(rows: Iterable[tuple[Decimal, str]]) -> tuple[list[Decimal | None], set[str]]:
    """Each amount in US dollars through the operator's table (None where it has no rate)."""
    amounts: list[Decimal | None] = []
    missing: set[str] = set()
    for total, currency in rows:
        dollars = Money(total, currency).to("USD")
        amounts.append(dollars.amount if dollars is not None else None)
        if dollars is None:
            missing.add(currency)
    return amounts, missing


def _revenue(
    months: list[date], plans: list[Plan]
) -> tuple[list[PlanRow[Decimal]], Decimal, list[str]]:
    columns = {plan.pk: index for index, plan in enumerate(plans)}
    invoices = list(
        Invoice.objects.filter(
            status=InvoiceStatus.PAID,
            paid_at__isnull=False,
            subscription__plan_id__in=list(columns),
        ).values_list("paid_at", "total", "currency", "subscription__plan_id")
    )
    amounts, missing = _to_usd((total, currency) for _at, total, currency, _plan in invoices)
    cells: dict[date, list[Decimal]] = {month: [Decimal(0)] * len(plans) for month in months}
    for (paid_at, _total, _currency, plan_id), amount in zip(invoices, amounts, strict=True):
        month = _month(timezone.localdate(paid_at))
        if amount is not None and month in cells:
            cells[month][columns[plan_id]] += amount
    rows = [
        PlanRow(
            month,
            [value.quantize(CENTS) for value in cells[month]],
            sum(cells[month], Decimal(0)).quantize(CENTS),
        )
        for month in months
    ]
    return rows, sum((row.total for row in rows), Decimal(0)), sorted(missing)


# --- the whole -------------------------------------------------------------------------------


def paid_plans() -> list[Plan]:
    """The plans the analytics' plan filter offers (every paid plan, offered or not)."""
    return list(Plan.objects.filter(is_default=False))


def analytics_plan(code: str | None) -> Plan | None:
    """The paid plan a filter names by its code (None: every plan); an unknown code or the
    free plan is refused."""
    if not code:
        return None
    plan = Plan.objects.filter(code=code, is_default=False).first()
    if plan is None:
        raise MembershipError(MembershipErrorCode.INVALID, {"plan": [_("Choose a paid plan.")]})
    return plan


def _check_year(year: int | None) -> None:
    if year is not None and not FIRST_YEAR <= year <= LAST_YEAR:
        raise MembershipError(
            MembershipErrorCode.INVALID,
            {
                "year": [
                    _("Choose a year between %(first)d and %(last)d.")
                    % {"first": FIRST_YEAR, "last": LAST_YEAR}
                ]
            },
        )


def _window(periods: list[_Period], *, today: date, year: int | None) -> list[date]:
    if year is not None:
        return _months(date(year, 1, 1), min(date(year, 12, 31), today))
    if not periods:
        return []
    first = max(min(period.starts_on for period in periods), add_months(today, 1 - MAX_MONTHS))
    return _months(first, today)


def _cohorts(periods: list[_Period]) -> dict[int, int]:
    """Each company's cohort: the year its first paid period started."""
    cohorts: dict[int, int] = {}
    for period in periods:
        year = period.starts_on.year
        cohorts[period.company_id] = min(cohorts.get(period.company_id, year), year)
    return cohorts


def _by_year(outcomes: list[tuple[_Period, bool]], years: list[int]) -> list[tuple[int, Renewals]]:
    totals: dict[int, Renewals] = defaultdict(Renewals)
    for period, renewed in outcomes:
        totals[period.ends_on.year] = totals[period.ends_on.year].plus(renewed)
    return [(year, totals[year]) for year in years]


def membership_analytics(
    *, user: Any, plan_code: str | None = None, year: int | None = None, today: date | None = None
) -> MembershipAnalytics:
    """The renewal analytics (the module's definitions), for operators only; `plan_code` and
    `year` filter them."""
    require_operator(user)
    today = today or timezone.localdate()
    _check_year(year)
    plan = analytics_plan(plan_code)
    grace = grace_days()
    plans = [plan] if plan is not None else paid_plans()
    by_id = {each.pk: each for each in plans}
    every = _paid_periods()
    cohorts = _cohorts(every)
    periods = [period for period in every if period.plan_id in by_id]
    outcomes, undecided = _outcomes(periods, every, today=today, grace=grace)
    headline, span = _headline(outcomes, today=today, grace=grace, year=year)
    if year is not None:
        outcomes = [
            (period, renewed) for period, renewed in outcomes if period.ends_on.year == year
        ]
        undecided = [period for period in undecided if period.ends_on.year == year]
    years = sorted({period.ends_on.year for period, _renewed in outcomes})
    months = _window(periods, today=today, year=year)
    actives, countries = _actives(periods, months, plans)
    revenue, revenue_total, missing = _revenue(months, plans)
    seen = {p.starts_on.year for p in every} | {p.ends_on.year for p in every}
    return MembershipAnalytics(
        today=today,
        plan=plan,
        year=year,
        grace_days=grace,
        plans=plans,
        years=years,
        available_years=sorted(seen_year for seen_year in seen if seen_year <= today.year),
        headline=headline,
        headline_span=span,
        undecided=len(undecided),
        by_year=_by_year(outcomes, years),
        by_cohort=_renewal_rows(
            outcomes, sorted(set(cohorts.values())), lambda p: cohorts[p.company_id], years
        ),
        by_plan=_renewal_rows(outcomes, plans, lambda p: by_id[p.plan_id], years),
        months=months,
        actives_by_month=actives,
        country_month=months[-1] if months else None,
        actives_by_country=countries,
        revenue_by_month=revenue,
        revenue_total=revenue_total,
        missing_currencies=missing,
    )
