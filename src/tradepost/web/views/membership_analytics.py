"""The operator's membership analytics (#14): the headline renewal rate, renewals and churn by
year, cohort and plan, active paying members by month and country, revenue by month; charts,
tables and a CSV download of each table. Operators only: 404 for everyone else.

The measures are defined once, in `membership.analytics` (and docs/operations.md). Each table
is described here once (`Table`) and rendered twice: as HTML (the `analytics_cell` filter
formats a cell by its column's kind, in the viewer's language) and as CSV (plain numbers,
rates as 0-1, months as YYYY-MM; `web.spreadsheets` adds the byte-order mark and guards
formulas). The charts are drawn by static/tradepost/membership-analytics.js (Chart.js) from
the page's `json_script` block, as the supplier desk's are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from babel.dates import format_skeleton
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from tradepost.core.countries import country_name
from tradepost.core.languages import babel_date_locale, normalise_ui_language
from tradepost.membership.analytics import (
    MembershipAnalytics,
    Renewals,
    membership_analytics,
    paid_plans,
)
from tradepost.membership.forms import AnalyticsFilterForm
from tradepost.web.guards import operator_only
from tradepost.web.spreadsheets import csv_response
from tradepost.web.views.insights import CHART_LOCALES

#: The kinds of column: how a cell is shown and exported.
TEXT, MONTH, COUNT, RATE, USD, RENEWALS = "text", "month", "count", "rate", "usd", "renewals"


@dataclass(frozen=True)
class Column:
    label: str
    kind: str = COUNT


@dataclass(frozen=True)
class Table:
    slug: str
    title: str
    columns: list[Column]
    rows: list[list[Any]]

    @property
    def cells(self) -> list[list[tuple[Any, str]]]:
        """Each row's cells with their column's kind (what the template formats by)."""
        kinds = [column.kind for column in self.columns]
        return [list(zip(row, kinds, strict=True)) for row in self.rows]


def _renewal_tables(analytics: MembershipAnalytics, language: str) -> list[Table]:
    years = [Column(str(year), RENEWALS) for year in analytics.years]
    every_year = Column(_("All years"), RENEWALS)
    return [
        Table(
            "renewals-by-year",
            _("Renewals and churn by year"),
            [
                Column(_("Year"), TEXT),
                Column(_("Came up for renewal")),
                Column(_("Renewed")),
                Column(_("Churned")),
                Column(_("Renewal rate"), RATE),
                Column(_("Churn rate"), RATE),
            ],
            [
                [str(year), cell.came_up, cell.renewed, cell.churned, cell.rate, cell.churn_rate]
                for year, cell in analytics.by_year
            ],
        ),
        Table(
            "renewals-by-cohort",
            _("Renewal rate by cohort"),
            [Column(_("Cohort (year of the first paid period)"), TEXT), *years, every_year],
            [[str(row.key), *row.by_year, row.total] for row in analytics.by_cohort],
        ),
        Table(
            "renewals-by-plan",
            _("Renewal rate by plan"),
            [Column(_("Plan"), TEXT), *years, every_year],
            [[row.key.name_for(language), *row.by_year, row.total] for row in analytics.by_plan],
        ),
    ]


def _member_tables(analytics: MembershipAnalytics, language: str) -> list[Table]:
    names = [plan.name_for(language) for plan in analytics.plans]
    return [
        Table(
            "members-by-month",
            _("Active paying members by month"),
            [Column(_("Month"), MONTH), *(Column(name) for name in names), Column(_("All plans"))],
            [[row.key, *row.by_plan, row.total] for row in analytics.actives_by_month],
        ),
        Table(
            "members-by-country",
            _("Active paying members by country"),
            [
                Column(_("Country code"), TEXT),
                Column(_("Country"), TEXT),
                *(Column(name) for name in names),
                Column(_("All plans")),
            ],
            [
                [
                    row.key,
                    country_name(row.key, language) if row.key else "",
                    *row.by_plan,
                    row.total,
                ]
                for row in analytics.actives_by_country
            ],
        ),
        Table(
            "revenue-by-month",
            _("Revenue by month (US dollars)"),
            [
                Column(_("Month"), MONTH),
                *(Column(name, USD) for name in names),
                Column(_("All plans"), USD),
            ],
            [[row.key, *row.by_plan, row.total] for row in analytics.revenue_by_month],
        ),
    ]


def analytics_tables(analytics: MembershipAnalytics, language: str) -> list[Table]:
    return _renewal_tables(analytics, language) + _member_tables(analytics, language)


def _rate_text(rate: float | None) -> str:
    return "" if rate is None else f"{rate:.4f}"


def _csv_header(columns: list[Column]) -> list[str]:
    header: list[str] = []
    for column in columns:
        if column.kind == RENEWALS:
            header += [
                _("%(column)s: came up for renewal") % {"column": column.label},
                _("%(column)s: renewed") % {"column": column.label},
                _("%(column)s: renewal rate") % {"column": column.label},
            ]
        else:
            header.append(column.label)
    return header


def _csv_cells(value: Any, kind: str) -> list[Any]:
    if kind == RENEWALS:
        assert isinstance(value, Renewals)
        return [value.came_up, value.renewed, _rate_text(value.rate)]
    if kind == RATE:
        return [_rate_text(value)]
    if kind == MONTH:
        return [value.strftime("%Y-%m")]
    return [value]


def _chart_data(analytics: MembershipAnalytics, language: str) -> dict[str, Any]:
    """What membership-analytics.js draws: labels in the viewer's language, the series."""
    locale = babel_date_locale(language)
    names = [plan.name_for(language) for plan in analytics.plans]
    members, revenue = analytics.actives_by_month, analytics.revenue_by_month
    return {
        "locale": CHART_LOCALES[language],
        "years": [str(year) for year, _cell in analytics.by_year],
        "rate": [cell.rate for _year, cell in analytics.by_year],
        "plan_rates": [
            {"name": row.key.name_for(language), "data": [cell.rate for cell in row.by_year]}
            for row in analytics.by_plan
        ],
        "months": [format_skeleton("yMMM", month, locale=locale) for month in analytics.months],
        "members": [
            {"name": name, "data": [row.by_plan[index] for row in members]}
            for index, name in enumerate(names)
        ],
        "members_total": [row.total for row in members],
        "revenue": [
            {"name": name, "data": [float(row.by_plan[index]) for row in revenue]}
            for index, name in enumerate(names)
        ],
        "names": {
            "rate": _("Renewal rate"),
            "total": _("All plans"),
            # A tooltip's line: the series' name and the value under the pointer.
            "label": _("%(name)s: %(value)s"),
        },
    }


def _analytics(request: HttpRequest) -> tuple[AnalyticsFilterForm, MembershipAnalytics]:
    """The filters as asked for and the analytics they give (404 for non-operators)."""
    operator_only(request)
    form = AnalyticsFilterForm(request.GET or None, plans=paid_plans())
    return form, membership_analytics(user=request.user, **form.filters())


def _query(analytics: MembershipAnalytics) -> str:
    """The filters in force, for the CSV links ("" without any)."""
    filters = {"plan": analytics.plan.code if analytics.plan is not None else None}
    filters["year"] = str(analytics.year) if analytics.year is not None else None
    return urlencode({name: value for name, value in filters.items() if value})


@login_required
@require_GET
def analytics_page(request: HttpRequest) -> HttpResponse:
    form, analytics = _analytics(request)
    language = normalise_ui_language(get_language())
    return render(
        request,
        "membership/analytics.html",
        {
            "form": form,
            "analytics": analytics,
            "tables": analytics_tables(analytics, language),
            "chart_data": _chart_data(analytics, language),
            "query": _query(analytics),
        },
    )


@login_required
@require_GET
def analytics_csv(request: HttpRequest, table: str) -> HttpResponse:
    form, analytics = _analytics(request)
    if form.is_bound and not form.is_valid():
        return HttpResponseBadRequest(form.errors.as_text(), content_type="text/plain")
    found = {
        each.slug: each
        for each in analytics_tables(analytics, normalise_ui_language(get_language()))
    }.get(table)
    if found is None:
        raise Http404
    parts = ["membership", found.slug]
    parts += [str(analytics.year)] if analytics.year is not None else []
    parts += [analytics.plan.code] if analytics.plan is not None else []
    return csv_response(
        filename="-".join(parts) + ".csv",
        header=_csv_header(found.columns),
        rows=(
            [cell for value, kind in row for cell in _csv_cells(value, kind)] for row in found.cells
        ),
    )
