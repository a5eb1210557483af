"""Plans the demo marketplace's membership history from a seed: three years of paid periods
for a share of the companies, so the operator's renewal analytics have cohorts, renewals,
churn, upgrades and revenue to show.

Plain Python and deterministic, like counters.py; the dates count back from `today`. A chosen
company subscribes to Silver or Gold on a day of the last three years; at each period's end it
renews (most, a few late in their grace period), moves down from Gold to Silver, cancels at
the term's end or leaves its renewal invoice unpaid; a Silver member may move up to Gold in the
middle of a period; some who left come back later. What is due by `today` and not paid yet is
left waiting, as the timer would have left it. The demo logins' own companies get no history
(their pages start on the free plan).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal

from tradepost.companies.models import Company
from tradepost.membership.models import Plan, SubscriptionKind
from tradepost.membership.proration import add_months
from tradepost.membership.services import RENEWAL_NOTICE_DAYS, PastPeriod

#: A different stream from the catalogue's, the requests' and the counters'.
SEED_SALT = 0x5E11
#: The share of the companies with a paid history, and how far back it goes.
SHARE = 0.35
YEARS_BACK = 3
TERM_MONTHS = 12
#: Of the periods that come up, the share renewed, by plan (the rest cancel or do not pay).
RENEWS = {"gold": 0.82, "silver": 0.72}
#: Silver members who move up to Gold during a period; Gold renewals that move down.
UPGRADES = 0.3
DOWNGRADES = 0.1
#: Renewals paid after the period's end, in the grace period.
LATE = 0.12
#: Companies that left and subscribe again later.
COMES_BACK = 0.25
#: The demo's second paid plan: cheaper than Gold, priced in yuan (so revenue is converted).
SILVER: dict[str, object] = {
    "code": "silver",
    "name_en": "Silver Supplier",
    "name_zh_hans": "银牌供应商",
    "name_zh_hant": "銀牌供應商",
    "price": Decimal("4800.00"),
    "currency": "CNY",
    "term_months": 12,
    "monthly_quotation_quota": 50,
    "showcase_slots": 1,
    "position": 5,
}


@dataclass(frozen=True)
class PeriodPlan:
    """One paid (or invoiced) period: `plan` is a plan code ("gold", "silver"); `previous`
    is the position in the plan's list of the period it follows or replaces."""

    company_index: int
    plan: str
    kind: str
    starts_on: date
    ends_on: date
    issued_on: date
    paid_on: date | None
    auto_renew: bool = True
    previous: int | None = None


class _History:
    """One company's periods as they are drawn, appended to the demo's whole list."""

    def __init__(
        self, rng: random.Random, out: list[PeriodPlan], *, company: int, today: date, grace: int
    ) -> None:
        self.rng, self.out, self.company = rng, out, company
        self.today, self.grace = today, grace

    def add(
        self,
        plan: str,
        kind: str,
        starts_on: date,
        *,
        issued_on: date,
        paid_on: date | None,
        previous: int | None,
    ) -> int:
        self.out.append(
            PeriodPlan(
                company_index=self.company,
                plan=plan,
                kind=kind,
                starts_on=starts_on,
                ends_on=add_months(starts_on, TERM_MONTHS),
                issued_on=issued_on,
                paid_on=paid_on,
                previous=previous,
            )
        )
        return len(self.out) - 1

    def follow(
        self, current: int, plan: str, kind: str, *, issued_on: date, paid_on: date | None
    ) -> int:
        """A period that follows `current` from its end (a renewal, a downgrade)."""
        ends_on = self.out[current].ends_on
        return self.add(plan, kind, ends_on, issued_on=issued_on, paid_on=paid_on, previous=current)

    def chosen(self, plan: str, kind: str, day: date, previous: int | None) -> int:
        """A plan chosen on `day` (a new subscription, an upgrade), paid within days."""
        paid = min(self.today, day + timedelta(self.rng.randint(0, 5)))
        return self.add(plan, kind, day, issued_on=day, paid_on=paid, previous=previous)

    def run(self, first: date, plan: str) -> None:
        current: int | None = self.chosen(plan, SubscriptionKind.NEW, first, None)
        while current is not None:
            current = self.period_end(self.upgrade(current))

    def upgrade(self, current: int) -> int:
        """A Silver member may move up to Gold in the middle of a period (before its renewal
        is invoiced): answers the period that runs on (the upgrade, or the same one)."""
        period = self.out[current]
        if period.plan != "silver" or self.rng.random() >= UPGRADES:
            return current
        last = period.ends_on - timedelta(RENEWAL_NOTICE_DAYS + 1)
        day = period.starts_on + timedelta(self.rng.randint(45, (last - period.starts_on).days))
        if day > self.today - timedelta(7):
            return current
        return self.chosen("gold", SubscriptionKind.UPGRADE, day, current)

    def period_end(self, current: int) -> int | None:
        """What happens when the period comes up: the next period to follow, or None."""
        period = self.out[current]
        notice = period.ends_on - timedelta(RENEWAL_NOTICE_DAYS)
        if notice > self.today:
            return None  # nothing invoiced yet
        fate = self.rng.random()
        if fate < RENEWS[period.plan]:
            return self.renewal(current, notice)
        if fate < (1 + RENEWS[period.plan]) / 2:  # cancelled at the term's end
            self.out[current] = replace(period, auto_renew=False)
        else:  # the renewal invoice is never paid
            self.follow(
                current, period.plan, SubscriptionKind.RENEWAL, issued_on=notice, paid_on=None
            )
        return self.come_back(period)

    def renewal(self, current: int, notice: date) -> int | None:
        period = self.out[current]
        if period.plan == "gold" and self.rng.random() < DOWNGRADES:
            chosen = period.ends_on - timedelta(self.rng.randint(40, 80))
            if chosen + timedelta(10) <= self.today and chosen >= period.starts_on:
                paid_on = chosen + timedelta(self.rng.randint(0, 10))
                kind = SubscriptionKind.DOWNGRADE
                return self.follow(current, "silver", kind, issued_on=chosen, paid_on=paid_on)
        late = self.rng.random() < LATE
        days = (
            self.rng.randint(0, max(0, self.grace - 2)) + RENEWAL_NOTICE_DAYS
            if late
            else self.rng.randint(0, RENEWAL_NOTICE_DAYS - 1)
        )
        # Due and not paid yet: waiting (in its grace period once the period is over).
        on = notice + timedelta(days)
        paid = on if on <= self.today else None
        kind = SubscriptionKind.RENEWAL
        renewal = self.follow(current, period.plan, kind, issued_on=notice, paid_on=paid)
        return renewal if paid is not None else None

    def come_back(self, period: PeriodPlan) -> int | None:
        if self.rng.random() >= COMES_BACK:
            return None
        day = period.ends_on + timedelta(self.grace + self.rng.randint(30, 300))
        if day > self.today - timedelta(20):
            return None
        plan = "gold" if self.rng.random() < 0.5 else "silver"
        return self.chosen(plan, SubscriptionKind.NEW, day, None)


def plan_memberships(
    *, seed: int, companies: int, today: date, grace_days: int, skip: frozenset[int]
) -> list[PeriodPlan]:
    """The paid history of a share of the `companies` (by index, none of `skip`), oldest
    company first; each period after the one it follows or replaces."""
    rng = random.Random(seed ^ SEED_SALT)
    out: list[PeriodPlan] = []
    span = YEARS_BACK * 365
    for index in range(companies):
        if rng.random() >= SHARE or index in skip:
            continue
        first = today - timedelta(rng.randint(20, span))
        plan = "gold" if rng.random() < 0.55 else "silver"
        _History(rng, out, company=index, today=today, grace=grace_days).run(first, plan)
    return out


def past_periods(
    history: list[PeriodPlan], *, companies: list[Company], plans: dict[str, Plan]
) -> list[PastPeriod]:
    """The planned periods as `membership.services.subscriptions_record_history` takes them:
    `companies` in the plan's order, `plans` by code."""
    copied = ("kind", "starts_on", "ends_on", "issued_on", "paid_on", "auto_renew", "previous")
    return [
        PastPeriod(
            company=companies[item.company_index],
            plan=plans[item.plan],
            **{name: getattr(item, name) for name in copied},
        )
        for item in history
    ]
