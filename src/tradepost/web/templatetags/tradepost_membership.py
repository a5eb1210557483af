"""Template helpers of the membership pages: a plan's name in the viewer's language, the
quotation quota a plan gives, the plan a company is on (the dashboard's line), and the cells
of the operator's membership analytics."""

from __future__ import annotations

from typing import Any

from babel.dates import format_skeleton
from babel.numbers import format_percent
from django import template
from django.utils.translation import get_language, gettext

from tradepost.core.languages import babel_date_locale, babel_locale, normalise_ui_language
from tradepost.membership.models import Plan
from tradepost.membership.selectors import current_plan, quota_of
from tradepost.web.templatetags.tradepost_catalog import format_number, format_price

register = template.Library()


@register.simple_tag
def plan_name(plan: Plan) -> str:
    return plan.name_for(normalise_ui_language(get_language()))


@register.simple_tag
def plan_quota(plan: Plan) -> int:
    """Quotations a month on `plan` (the site's standard quota when it sets none)."""
    return quota_of(plan)


@register.simple_tag
def plan_of(company: Any) -> Plan | None:
    """The plan `company` is on today (None without a company)."""
    return current_plan(company) if company is not None else None


@register.filter
def plan_label(plan: Plan | None) -> str:
    """`plan`'s name in the viewer's language ("" for None)."""
    return plan.name_for(normalise_ui_language(get_language())) if plan is not None else ""


@register.filter
def analytics_cell(value: Any, kind: str) -> str:
    """A cell of the membership analytics' tables (`web.views.membership_analytics`) in the
    viewer's language, by its column's kind: a month, a count, a rate, US dollars, or a
    renewal rate with its counts ("75% (3 of 4)"); "—" where there is no rate."""
    language = normalise_ui_language(get_language())
    if kind == "month":
        return format_skeleton("yMMM", value, locale=babel_date_locale(language))
    if kind == "count":
        return format_number(value)
    if kind == "usd":
        return format_price(value, "USD")
    if kind == "rate":
        return "—" if value is None else format_percent(value, locale=babel_locale(language))
    if kind == "renewals":
        if value.rate is None:
            return "—"
        return gettext("%(rate)s (%(renewed)s of %(came_up)s)") % {
            "rate": format_percent(value.rate, locale=babel_locale(language)),
            "renewed": format_number(value.renewed),
            "came_up": format_number(value.came_up),
        }
    return str(value)
