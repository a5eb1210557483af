"""The desks: the supplier's numbers over the last weeks, and the operator's queues.

The supplier's desk shows the user's own company only (there is no company parameter);
its charts are drawn by the page's own script (static/tradepost/desk.js, Chart.js) from a
`json_script` block, and every chart's numbers are also in a table (no script needed).
The operator's desk answers 404 to everyone who is not an operator.
"""

from __future__ import annotations

from typing import Any

from babel.dates import format_skeleton
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from tradepost.companies.models import Company
from tradepost.core.chinese_scripts import convert_script
from tradepost.core.languages import babel_date_locale, normalise_ui_language
from tradepost.insights.selectors import (
    SupplierDesk,
    deeper_statistics,
    operator_numbers,
    supplier_desk,
)
from tradepost.web.guards import company_required, operator_only
from tradepost.web.views.health import INDEX_STALE_SECONDS, node_health
from tradepost.web.views.membership import badge_context

#: The language tags the charts format numbers with (Intl.NumberFormat).
CHART_LOCALES = {"en": "en", "zh-hans": "zh-Hans", "zh-hant": "zh-Hant"}


def _words(desk: SupplierDesk, language: str) -> list[tuple[str, int]]:
    """The top search words as the viewer reads them: the words are kept in simplified
    Chinese (the search's normal form) and shown converted on traditional pages."""
    return [
        (convert_script(word.word, written_in="zh-hans", reader=language), word.impressions)
        for word in desk.top_words
    ]


def _chart_data(desk: SupplierDesk, language: str) -> dict[str, Any]:
    """What desk.js draws: week labels in the viewer's language, the series, their names."""
    locale = babel_date_locale(language)
    return {
        "locale": CHART_LOCALES[language],
        "weeks": [format_skeleton("MMMd", week.start, locale=locale) for week in desk.weeks],
        "views": [week.views for week in desk.weeks],
        "inquiries": [week.inquiries for week in desk.weeks],
        "sent": [week.quotations_sent for week in desk.weeks],
        "won": [week.quotations_won for week in desk.weeks],
        "rate": [week.response_rate for week in desk.weeks],
        "hours": [week.median_response_hours for week in desk.weeks],
        "words": [word for word, _impressions in _words(desk, language)],
        "impressions": [impressions for _word, impressions in _words(desk, language)],
        "names": {
            "views": _("Product page views"),
            "inquiries": _("Inquiries received"),
            "sent": _("Quotations sent"),
            "won": _("Quotations won"),
            "rate": _("Response rate"),
            "hours": _("Median first response (hours)"),
            "impressions": _("Searches that showed your listings"),
            # A tooltip's line: the series' name and the value under the pointer.
            "label": _("%(name)s: %(value)s"),
        },
    }


@company_required(
    gettext_lazy("Create your company profile to see its numbers."),
    operators_to="insights:operator_desk",
)
@require_GET
def supplier_desk_page(request: HttpRequest, company: Company) -> HttpResponse:
    language = normalise_ui_language(get_language())
    desk = supplier_desk(company=company)
    return render(
        request,
        "insights/supplier_desk.html",
        {
            "desk": desk,
            "company_name": company.name_for(language),
            "top_words": _words(desk, language),
            "chart_data": _chart_data(desk, language),
            # A paid plan's listing-by-listing numbers; None: the plans page is offered.
            "deeper": deeper_statistics(company=company, since=desk.start),
            **badge_context(company),
        },
    )


@login_required
@require_GET
def operator_desk_page(request: HttpRequest) -> HttpResponse:
    operator_only(request)
    reachable, health = node_health()
    search = health.get("search") if reachable else None
    return render(
        request,
        "insights/operator_desk.html",
        {
            "numbers": operator_numbers(),
            "health": health,
            "search": search if isinstance(search, dict) else None,
            "index_stale_seconds": INDEX_STALE_SECONDS,
        },
    )
