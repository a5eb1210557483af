"""Matching requests: the open buying requests that fit the supplier's own products."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language, gettext_lazy

from tradepost.companies.models import Company
from tradepost.sourcing.first_look import first_look_labels
from tradepost.sourcing.matching import matching_requests
from tradepost.sourcing.selectors import quoted_request_ids
from tradepost.web.guards import company_required
from tradepost.web.views.sourcing import _decorate

PAGE_LIMIT = 50


@company_required(gettext_lazy("Create your company profile to see matching requests."))
def matching(request: HttpRequest, company: Company) -> HttpResponse:
    language = get_language()
    matches = matching_requests(company=company, language=language, limit=PAGE_LIMIT)
    _decorate([match.request for match in matches], language)
    quoted = quoted_request_ids(
        company_id=company.pk, request_ids=[match.request.pk for match in matches]
    )
    # A plan's first look (Gold): the requests whose other suppliers are not told yet.
    first_look = first_look_labels(company, [match.request for match in matches])
    return render(
        request,
        "sourcing/matching.html",
        {"matches": matches, "quoted": quoted, "first_look": first_look},
    )
