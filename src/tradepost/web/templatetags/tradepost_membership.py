"""Template helpers of the membership pages: a plan's name in the viewer's language, the
quotation quota a plan gives, and the plan a company is on (the dashboard's line)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import get_language

from tradepost.core.languages import normalise_ui_language
from tradepost.membership.models import Plan
from tradepost.membership.selectors import current_plan, quota_of

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
