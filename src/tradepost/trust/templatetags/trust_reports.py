"""`{% open_report_count %}`: the number of reports waiting for an operator (the operator desk
shows it beside its other queues)."""

from __future__ import annotations

from django import template

from tradepost.trust.selectors import open_report_count as count_open_reports

register = template.Library()


@register.simple_tag
def open_report_count() -> int:
    return count_open_reports()
