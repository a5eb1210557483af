"""The first look at new matching buying requests: a plan benefit (Gold Supplier's).

When a buying request is posted, the suppliers whose products match it are told (in the app
and by email, `sourcing.tasks`). A supplier whose plan has `early_look_minutes` (Gold: 60)
is told that many minutes before the others: the others are told
`TRADEPOST_FIRST_LOOK_MINUTES` (60 by default) after the request was posted, a plan with a
first look that much sooner, at once when its minutes cover the whole delay.

The first look is about the alert only. The request is on the public board, in search and
on every supplier's matching list from the moment it is posted, and any supplier may quote
on it at any time; nothing is hidden and no quotation waits. A supplier with the benefit
sees a "First look" label on the requests still in their first look (until the others are
told) in its matching list and in its alerts. With TRADEPOST_FIRST_LOOK_MINUTES=0 everyone
is told at once and no label shows (docs/adr/0026-showcase-and-first-look.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from tradepost.companies.models import Company
from tradepost.membership.selectors import benefit
from tradepost.sourcing.models import BuyingRequest


def first_look_minutes() -> int:
    """Minutes between a request's posting and the alert of suppliers without a first look."""
    return max(0, int(settings.TRADEPOST_FIRST_LOOK_MINUTES))


def alert_delay(early_look_minutes: Any) -> timedelta:
    """How long after a request is posted a supplier whose plan gives `early_look_minutes`
    is told of it."""
    early = max(0, int(early_look_minutes or 0))
    return timedelta(minutes=max(0, first_look_minutes() - early))


def gives_first_look(early_look_minutes: Any) -> bool:
    """Whether a plan's `early_look_minutes` tells its suppliers before the others."""
    return first_look_minutes() > 0 and int(early_look_minutes or 0) > 0


def has_first_look(company: Company | None) -> bool:
    """Whether `company`'s plan gives it a first look at new matching requests now."""
    if company is None:
        return False
    return gives_first_look(benefit(company, "early_look_minutes"))


def first_look_ends(request: BuyingRequest) -> datetime:
    """When the suppliers without a first look are told of `request`."""
    return request.created_at + timedelta(minutes=first_look_minutes())


def first_look_labels(
    company: Company | None, requests: Iterable[BuyingRequest], *, now: datetime | None = None
) -> dict[int, datetime]:
    """{request id: end of its first look} for those of `requests` still in their first look,
    when `company`'s plan gives one (else nothing): what the "First look" label marks. The
    plan is asked only when one of the requests is that young."""
    now = now or timezone.now()
    fresh = {item.pk: first_look_ends(item) for item in requests if now < first_look_ends(item)}
    if not fresh or not has_first_look(company):
        return {}
    return fresh
