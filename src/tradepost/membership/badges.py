"""The Gold Supplier badge: a verified company on a plan that gives it.

Gold Supplier's benefit is "verified badge once verification passes": the plan's
`verified_badge_eligible` flag and the company's verified mark (`Company.is_verified`, set
when an operator approves its documents, trust) must both hold. A company that pays but is
not verified yet shows no Gold badge (its desk tells it to send its documents); a verified
company on Free shows the plain Verified badge only; when the paid period ends (back on
Free) the badge goes. The badge is bought; the verification is Tradepost's check, and the
two badges say so (docs/adr/0021-membership-and-invoices.md, "The Gold Supplier badge").

Pages of one company ask `shows_gold_badge`; lists ask `gold_badge_companies` (one query
for a page). Search result cards read the badge from the index: each product and company
document keeps the last day its company carries the badge (`gold_badge_until`, registered
as the search engine's `badges` source), so a card shows it without a query and a period
that ends takes it off the cards that very day, whenever the timer runs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from django.db.models import Q
from django.utils import timezone

from tradepost.companies.models import Company
from tradepost.membership.models import Subscription, SubscriptionStatus
from tradepost.membership.selectors import default_plan, grace_days, has_benefit

#: The benefit the badge comes with (`models.BENEFITS`).
BADGE_BENEFIT = "verified_badge_eligible"


def shows_gold_badge(company: Company, *, today: date | None = None) -> bool:
    """Whether `company` carries the Gold Supplier badge today: verified, and on a plan that
    gives the badge."""
    return bool(company.is_verified) and has_benefit(company, BADGE_BENEFIT, today=today)


@dataclass(frozen=True)
class _Period:
    """A paid period as `selectors.current_plan` counts it: from `starts_on` up to (not
    including) `covered_until`, its end or, for one that renews, the end of its grace."""

    starts_on: date
    covered_until: date
    pk: int
    gives_badge: bool


def _badge_plan_on(periods: list[_Period], day: date, default_gives: bool) -> bool:
    """Whether the plan the company is on on `day` gives the badge: the latest begun of the
    periods covering the day (as `current_subscription` picks it), else the default plan."""
    covering = [p for p in periods if p.starts_on <= day < p.covered_until]
    if not covering:
        return default_gives
    return max(covering, key=lambda p: (p.starts_on, p.pk)).gives_badge


def _last_badge_day(periods: list[_Period], today: date, default_gives: bool) -> date | None:
    """The last day of the run of badge days that contains `today` (None: no badge today)."""
    if not _badge_plan_on(periods, today, default_gives):
        return None
    changes = sorted({d for p in periods for d in (p.starts_on, p.covered_until) if d > today})
    for day in changes:
        if not _badge_plan_on(periods, day, default_gives):
            return day - timedelta(days=1)
    return date.max


def gold_badge_until(company_ids: Iterable[int], *, today: date | None = None) -> dict[int, date]:
    """For each company among `company_ids` that carries the badge today, the last day it
    carries it if nothing changes: the end of its badge plan's paid periods (through the
    grace period of one that renews; a renewal or a downgrade paid ahead counts from its
    start), `date.max` when the default plan gives the badge. Companies without the badge
    today are absent. One query (two when the default plan gives the badge)."""
    today = today or timezone.localdate()
    ids = {int(pk) for pk in company_ids}
    if not ids:
        return {}
    grace = timedelta(grace_days())
    rows = Subscription.objects.filter(
        Q(ends_on__gt=today) | Q(auto_renew=True, ends_on__gt=today - grace),
        company_id__in=ids,
        company__is_verified=True,
        status=SubscriptionStatus.ACTIVE,
    ).values_list(
        "company_id", "pk", "starts_on", "ends_on", "auto_renew", f"plan__{BADGE_BENEFIT}"
    )
    periods: dict[int, list[_Period]] = defaultdict(list)
    for company_id, pk, starts_on, ends_on, renews, gives_badge in rows:
        covered_until = ends_on + grace if renews else ends_on
        periods[company_id].append(_Period(starts_on, covered_until, pk, bool(gives_badge)))
    default_gives = bool(getattr(default_plan(), BADGE_BENEFIT))
    verified: Iterable[int] = (
        Company.objects.filter(pk__in=ids, is_verified=True).values_list("pk", flat=True)
        if default_gives
        else list(periods)
    )
    found: dict[int, date] = {}
    for company_id in verified:
        last = _last_badge_day(periods.get(company_id, []), today, default_gives)
        if last is not None:
            found[company_id] = last
    return found


def gold_badge_companies(companies: Iterable[Company], *, today: date | None = None) -> set[int]:
    """The ids of the companies among `companies` (a list page's, loaded) that carry the
    badge today: no query when none of them is verified, two otherwise."""
    verified = {company.pk for company in companies if company.is_verified}
    return set(gold_badge_until(verified, today=today)) if verified else set()


@dataclass(frozen=True)
class BadgeStanding:
    """Where a company stands with the badge, for its own desk and membership page."""

    plan_gives_badge: bool
    verified: bool

    @property
    def shown(self) -> bool:
        return self.plan_gives_badge and self.verified

    @property
    def needs_verification(self) -> bool:
        """Its plan gives the badge, but it is not verified yet: it should send documents."""
        return self.plan_gives_badge and not self.verified


def badge_standing(company: Company, *, today: date | None = None) -> BadgeStanding:
    return BadgeStanding(
        plan_gives_badge=has_benefit(company, BADGE_BENEFIT, today=today),
        verified=bool(company.is_verified),
    )
