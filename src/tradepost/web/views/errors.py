"""The pages of an unknown address (404) and of an unexpected error (500), in the site's
layout and the visitor's language: the header with its navigation and search box, a short
explanation, links home and to the search.

The API's errors are problem documents (`tradepost.config.middleware.ApiProblemMiddleware`
rewrites whatever these handlers answer under /api/), so an API address gets a bare answer
here and nothing is rendered for it.

The 500 page is rendered with the request, so a signed-in person keeps their header (their
name, their desks, the operator's tools). Should that fail too (the database or the session
store may be what failed), it is rendered again without the request and its context
processors, with the header of a visitor who is not signed in; should even that fail, a plain
page in the same language is answered.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound, HttpResponseServerError
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.views.decorators.csrf import requires_csrf_token

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"


def _language(request: HttpRequest) -> str:
    """The language of the address (/zh-hant/...), else the one already chosen for the
    request (cookie, Accept-Language), else the site's default."""
    return (
        translation.get_language_from_path(request.path_info)
        or translation.get_language()
        or settings.LANGUAGE_CODE
    )


@requires_csrf_token
def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if request.path_info.startswith(API_PREFIX):
        return HttpResponseNotFound()
    with translation.override(_language(request)):
        return render(request, "web/not_found.html", status=404)


@requires_csrf_token
def server_error(request: HttpRequest) -> HttpResponse:
    if request.path_info.startswith(API_PREFIX):
        return HttpResponseServerError()
    with translation.override(_language(request)):
        for context_request in (request, None):
            try:
                page = render_to_string("web/server_error.html", request=context_request)
            except Exception:  # the page of last resort must answer whatever else is broken
                logger.exception("the 500 page could not be rendered")
            else:
                return HttpResponseServerError(page)
        title = escape(_("Something went wrong on our side"))
        return HttpResponseServerError(
            f'<!DOCTYPE html><html lang="{escape(translation.get_language())}">'
            f'<meta charset="utf-8"><title>{title}</title><h1>{title}</h1>'
            f'<p><a href="/">Tradepost</a></p></html>'
        )
