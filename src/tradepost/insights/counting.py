"""Counting product views and search impressions after the response, without slowing it.

A page that should be counted says so on its response with a marker header
(`mark_product_view`, `mark_search_impressions`). `CountingMiddleware`, which sits above the
public page cache, takes the marker off every response (a cached answer carries the marker
it was stored with, so a page answered from the cache is counted too) and, unless the visitor
is a robot or a member of the company shown, adds to the day's counters once the server has
closed the response, after its last byte was handed over (Django's `request_finished` signal,
which the WSGI server's call to `close()` sends in the thread that served the request; the
count waiting for it is kept in a context variable): a tally in the process's memory, written
every few seconds in one transaction (`insights.services`).

Nothing about the visitor is kept: not the user, the address, a cookie or the whole query;
only (product, day) and (company, word, day) counts.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from typing import Any
from urllib.parse import quote, unquote

from django.conf import settings
from django.core.signals import request_finished
from django.http import HttpRequest, HttpResponse

from tradepost.companies.actors import actor_for
from tradepost.insights.services import tally_product_view, tally_search_impressions
from tradepost.search.analysis import query_words

logger = logging.getLogger(__name__)

#: The response header a page marks itself with; never sent to the browser.
MARKER = "X-Tradepost-Count"

#: User agents of crawlers, link previewers, monitors, scripts and headless browsers. A
#: visitor who sends no User-Agent is not counted either.
ROBOT = re.compile(
    r"bot|crawl|spider|slurp|archiver|preview|facebookexternalhit|embedly|headless|"
    r"lighthouse|pagespeed|phantomjs|monitor|uptime|python|curl|wget|httpclient|okhttp|"
    r"java/|go-http|libwww|scrapy|axios|node-fetch",
    re.IGNORECASE,
)


#: The count the request being served makes once its response is closed: (request, marker).
_pending: ContextVar[tuple[HttpRequest, str] | None] = ContextVar(
    "tradepost_insights_pending", default=None
)


def is_robot(user_agent: str) -> bool:
    return not user_agent.strip() or bool(ROBOT.search(user_agent))


def mark_product_view(response: HttpResponse, *, product_id: int, company_id: int) -> None:
    """Count this answer as a view of the product (when a person other than the company's
    own members reads it)."""
    response[MARKER] = f"product {int(product_id)} {int(company_id)}"


def mark_search_impressions(
    response: HttpResponse, *, company_ids: Iterable[int], query: str
) -> None:
    """Count this results page for each company whose listings it shows, for each word of
    `query`. Nothing is marked for an empty query or a page without listings."""
    ids = sorted({int(pk) for pk in company_ids})
    if ids and query.strip():
        response[MARKER] = f"search {','.join(map(str, ids))} {quote(query[:200], safe='')}"


def _viewer_company_id(request: HttpRequest) -> int | None:
    """The signed-in visitor's company (their own listings are not counted). A page answered
    from the public cache went to a visitor who is not signed in: no user there."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    return actor_for(user).company_id


def _count(request: HttpRequest, marker: str) -> None:
    kind, _, rest = marker.partition(" ")
    if kind == "product":
        product_id, company_id = (int(part) for part in rest.split())
        if _viewer_company_id(request) != company_id:
            tally_product_view(product_id=product_id, company_id=company_id)
    elif kind == "search":
        ids, _, quoted = rest.partition(" ")
        own = _viewer_company_id(request)
        company_ids = [int(pk) for pk in ids.split(",") if pk and int(pk) != own]
        tally_search_impressions(company_ids=company_ids, words=query_words(unquote(quoted)))


class CountingMiddleware:
    """Takes the counting marker off each response and counts it once the response is
    closed (TRADEPOST_INSIGHTS_COUNTING=0 turns counting off)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        request_finished.connect(count_finished_request, dispatch_uid=__name__)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # Nothing waits from an earlier request served by this thread whose response was
        # never closed.
        _pending.set(None)
        response = self.get_response(request)
        marker = response.headers.get(MARKER)
        if marker is not None:
            del response.headers[MARKER]
        if (
            marker
            and request.method == "GET"
            and response.status_code == 200
            and settings.TRADEPOST_INSIGHTS_COUNTING
            and not is_robot(request.META.get("HTTP_USER_AGENT", ""))
        ):
            # Counted by `count_finished_request` when the server closes the response, after
            # the body has gone out (the test client closes it too).
            _pending.set((request, marker))
        return response


def count_finished_request(sender: Any, **kwargs: Any) -> None:
    """The receiver of `request_finished`: counts what the request whose response was just
    closed is waiting for, once; a failure is logged, never shown."""
    pending = _pending.get()
    if pending is None:
        return
    _pending.set(None)
    request, marker = pending
    try:
        _count(request, marker)
    except Exception:
        logger.warning("could not count %r", marker, exc_info=True)
