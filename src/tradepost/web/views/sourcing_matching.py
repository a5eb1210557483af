"""Matching requests: the open buying requests that fit the supplier's own products."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from tradepost.companies.selectors import acting_company
from tradepost.sourcing.first_look import first_look_labels
from tradepost.sourcing.matching import matching_requests
from tradepost.sourcing.selectors import quoted_request_ids
from tradepost.web.views.sourcing import _decorate

PAGE_LIMIT = 50


@login_required
def matching(request: HttpRequest) -> HttpResponse:
    company = acting_company(request.user)
    if company is None:
        messages.info(request, _("Create your company profile to see matching requests."))
        return redirect("companies:create")
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
