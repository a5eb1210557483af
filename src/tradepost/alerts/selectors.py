"""Reads of trade alerts: a company's alerts, one alert guarded by its owner, its matches
as the viewer reads them, and the search it stands for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.core import signing
from django.db.models import Count, Max, Q
from django.urls import reverse
from django.utils import translation

from tradepost.alerts.errors import AlertNotFound
from tradepost.alerts.models import AlertKind, AlertMatch, SavedSearch
from tradepost.companies.actors import actor_for
from tradepost.core.ids import parse_id
from tradepost.membership.selectors import benefit
from tradepost.search import sources
from tradepost.search.alerting import parse_filters

#: The search page's tab of each kind of alert.
SEARCH_TABS: dict[str, str] = {
    AlertKind.PRODUCT: "products",
    AlertKind.REQUEST: "requests",
    AlertKind.COMPANY: "companies",
}


def access_alert(*, user: Any, alert_id: Any) -> SavedSearch:
    """An alert of the company `user` acts for; AlertNotFound for any other id."""
    pk = parse_id(alert_id)
    if pk is None:
        raise AlertNotFound()
    company_id = actor_for(user).company_id
    if company_id is None:
        raise AlertNotFound()
    alert = SavedSearch.objects.filter(pk=pk, company_id=company_id).first()
    if alert is None:
        raise AlertNotFound()
    return alert


def alerts_of_company(company: Any) -> list[SavedSearch]:
    """The company's alerts, newest first, each with `match_count`, `unsent_count` and
    `last_match_at`."""
    return list(
        SavedSearch.objects.filter(company=company)
        .select_related("user")
        .annotate(
            match_count=Count("matches"),
            unsent_count=Count("matches", filter=Q(matches__digest__isnull=True)),
            last_match_at=Max("matches__matched_at"),
        )
        .order_by("-created_at", "-pk")
    )


@dataclass
class AlertUsage:
    used: int
    limit: int

    @property
    def full(self) -> bool:
        return self.used >= self.limit


def alert_usage(company: Any) -> AlertUsage:
    return AlertUsage(
        used=SavedSearch.objects.filter(company=company).count(),
        limit=int(benefit(company, "saved_searches") or 0),
    )


def search_path(alert: SavedSearch, language: str) -> str:
    """The search page of the alert's search, as it runs today (path and query string)."""
    params: list[tuple[str, str]] = []
    if alert.query:
        params.append(("q", alert.query))
    params.append(("tab", SEARCH_TABS.get(alert.kind, "products")))
    for name, values in sorted((alert.params or {}).items()):
        params.extend((name, str(value)) for value in values)
    with translation.override(language):
        path = reverse("search:results")
    return f"{path}?{urlencode(params)}"


def category_removed(alert: SavedSearch) -> bool:
    """Whether the alert filters on a category that no longer exists (it then matches
    nothing; the alerts page says so)."""
    from tradepost.search.engine import category_tree

    category_id = getattr(parse_filters(alert.kind, alert.params or {}), "category_id", None)
    return category_id is not None and category_id not in category_tree().nodes


@dataclass
class MatchItem:
    """A match as the viewer reads it: the product card, the request or the company (None
    when it is no longer shown: unpublished, hidden by moderation, closed)."""

    match: AlertMatch
    item: Any


def alert_matches(
    alert: SavedSearch, language: str, *, limit: int = 20, offset: int = 0, unsent: bool = False
) -> list[MatchItem]:
    """The alert's matches, newest first, with what each shows now (`MatchItem.item` is
    None for one no longer shown)."""
    rows = AlertMatch.objects.filter(alert=alert)
    if unsent:
        rows = rows.filter(digest__isnull=True)
    page = list(rows.order_by("-matched_at", "-pk")[offset : offset + limit])
    shown = visible_items(alert.kind, [m.object_id for m in page], language)
    return [MatchItem(match=m, item=shown.get(m.object_id)) for m in page]


def visible_items(kind: str, ids: list[int], language: str) -> dict[int, Any]:
    """What the search shows of these documents now, in `language`: product cards, buying
    requests, companies (those no longer shown are absent)."""
    if not ids:
        return {}
    if kind == AlertKind.PRODUCT:
        return sources.products().cards(ids, language)
    if kind == AlertKind.REQUEST:
        return sources.requests().objects(ids, language)
    return sources.companies().objects(ids)


def unsubscribe_target(token: Any) -> tuple[str, SavedSearch | None]:
    """The alert an emailed unsubscribe link names, read without pausing it (the page asks
    first: mail scanners open links): ("ready", alert), ("already", alert) when it is paused,
    or ("expired" | "invalid", None). `services.unsubscribe_with_token` pauses it."""
    from tradepost.alerts.services import UNSUBSCRIBE_MAX_AGE, UNSUBSCRIBE_SALT

    if not isinstance(token, str) or not token or len(token) > 300:
        return "invalid", None
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT, max_age=UNSUBSCRIBE_MAX_AGE)
    except signing.SignatureExpired:
        return "expired", None
    except signing.BadSignature:
        return "invalid", None
    if not isinstance(data, dict) or not all(isinstance(data.get(k), int) for k in ("a", "u")):
        return "invalid", None
    alert = SavedSearch.objects.filter(pk=data["a"], user_id=data["u"]).first()
    if alert is None:
        return "invalid", None
    return ("already" if alert.paused else "ready"), alert
