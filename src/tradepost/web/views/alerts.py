"""The trade-alert pages under /<lang>/dashboard/alerts/ (docs/adr/0037-trade-alerts.md):
"Alert me" on each tab of the search results, the company's alerts (each with its search in
words, its latest matches and its buttons) and the plan's count of them, one alert's matches
page by page, its edit, pause, resume and delete, and the page that an alert email's
unsubscribe link opens without signing in (RFC 8058 one-click included).

Any member of a company keeps its alerts; an alert id of another company answers 404 like a
missing one (`selectors.access_alert`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import overload

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language, gettext_lazy, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from tradepost.alerts import selectors, services
from tradepost.alerts.errors import AlertError
from tradepost.alerts.forms import AlertCreateForm, AlertEditForm
from tradepost.alerts.models import AlertKind, SavedSearch
from tradepost.companies.models import BusinessType, Company
from tradepost.core.countries import country_name
from tradepost.core.languages import normalise_ui_language
from tradepost.search.alerting import parse_filters
from tradepost.search.facets import format_amount, language_names, price_label
from tradepost.search.selectors import category_tree
from tradepost.web.guards import company_required
from tradepost.web.pagination import paginate
from tradepost.web.refusals import flash_form_errors, flash_refusal, show_on_form
from tradepost.web.views.accounts import AuthenticatedRequest

#: Matches the alerts page shows under each alert.
LATEST_MATCHES = 3
#: Matches an alert's page shows at a time.
MATCHES_PAGE_SIZE = 20

#: The guard of the pages: every member keeps the company's alerts.
members_only = company_required(
    gettext_lazy("Create your company profile first: trade alerts are kept for a company.")
)


def _language() -> str:
    return normalise_ui_language(get_language())


# --- what the pages show of an alert ----------------------------------------------------------


@dataclass
class MatchLine:
    """One match as a line of the pages: the listing's title and link as the viewer reads
    them, or `shown` False when it is no longer shown."""

    matched_at: datetime
    shown: bool
    title: str = ""
    url: str = ""
    lang: str = ""


@dataclass
class AlertView:
    alert: SavedSearch
    #: The filters in words: (what, which) pairs.
    filters: list[tuple[str, str]]
    category_removed: bool
    search_url: str
    latest: list[MatchLine]
    #: Its matches, when counted (the alerts page: `alerts_of_company`).
    match_count: int | None = None


def _line(kind: str, found: selectors.MatchItem, language: str) -> MatchLine:
    item, at = found.item, found.match.matched_at
    if item is None:
        return MatchLine(matched_at=at, shown=False)
    if kind == AlertKind.PRODUCT:
        url = item.product.get_absolute_url()
        return MatchLine(at, True, item.text.title, url, item.text.lang_tag)
    if kind == AlertKind.REQUEST:
        url = reverse("sourcing:request_detail", args=[item.pk])
        return MatchLine(at, True, item.text.title, url, item.text.lang_tag)
    url = reverse("catalog:company_detail", args=[item.slug])
    return MatchLine(at, True, item.name_for(language), url)


def _countries(codes: Sequence[str], language: str) -> str:
    return ", ".join(country_name(code, language) for code in codes)


def _quantity_range(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return _("From %(low)s to %(high)s") % {
            "low": format_amount(low),
            "high": format_amount(high),
        }
    if low is not None:
        return _("At least %(quantity)s") % {"quantity": format_amount(low)}
    return _("At most %(quantity)s") % {"quantity": format_amount(high or 0)}


def _filters_in_words(alert: SavedSearch, language: str) -> list[tuple[str, str]]:
    """The alert's saved filters as the search page's facets name them."""
    parsed = parse_filters(alert.kind, alert.params or {})
    words: list[tuple[str, str]] = []
    category_id = getattr(parsed, "category_id", None)
    if category_id is not None:
        node = category_tree(must_have=[category_id]).nodes.get(category_id)
        if node is not None:
            words.append((_("Category"), node.name_for(language)))
    if getattr(parsed, "countries", ()):
        label = _("Supplier country") if alert.kind == AlertKind.PRODUCT else _("Country")
        words.append((label, _countries(parsed.countries, language)))
    if getattr(parsed, "destinations", ()):
        words.append((_("Destination"), _countries(parsed.destinations, language)))
    if getattr(parsed, "verified_only", False):
        words.append((_("Verified supplier"), _("Verified suppliers only")))
    if getattr(parsed, "business_types", ()):
        labels = dict(BusinessType.choices)
        types = ", ".join(str(labels.get(code, code)) for code in parsed.business_types)
        words.append((_("Business type"), types))
    if getattr(parsed, "languages", ()):
        names = language_names()
        words.append((_("Listing language"), ", ".join(names.get(c, c) for c in parsed.languages)))
    if getattr(parsed, "incoterms", ()):
        words.append((_("Incoterms"), ", ".join(parsed.incoterms)))
    if getattr(parsed, "moq_max", None) is not None:
        words.append(
            (_("Minimum order"), _("At most %(quantity)s") % {"quantity": f"{parsed.moq_max:,g}"})
        )
    low, high = getattr(parsed, "price_min_usd", None), getattr(parsed, "price_max_usd", None)
    if low is not None or high is not None:
        words.append((_("Price (US$)"), price_label(low, high)))
    days = getattr(parsed, "lead_time_max", None)
    if days is not None:
        within = ngettext("Within %(days)d day", "Within %(days)d days", days) % {"days": days}
        words.append((_("Lead time"), within))
    low, high = getattr(parsed, "quantity_min", None), getattr(parsed, "quantity_max", None)
    if low is not None or high is not None:
        words.append((_("Quantity"), _quantity_range(low, high)))
    return words


def _alert_view(alert: SavedSearch, language: str, *, latest: bool) -> AlertView:
    filters = _filters_in_words(alert, language)
    found = (
        selectors.alert_matches(alert, language, limit=LATEST_MATCHES)
        # Only alerts with matches ask for them (alerts_of_company counted them).
        if latest and getattr(alert, "match_count", None) != 0
        else []
    )
    return AlertView(
        alert=alert,
        filters=filters,
        category_removed=selectors.category_removed(alert),
        search_url=selectors.search_path(alert, language),
        latest=[_line(alert.kind, item, language) for item in found],
        match_count=getattr(alert, "match_count", None),
    )


class _Matches(Sequence[MatchLine]):
    """An alert's matches as `paginate` reads a list: counted once, the page's read alone."""

    def __init__(self, alert: SavedSearch, language: str) -> None:
        self.alert = alert
        self.language = language

    def __len__(self) -> int:
        return self.alert.matches.count()

    @overload
    def __getitem__(self, index: int) -> MatchLine: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[MatchLine]: ...

    def __getitem__(self, index: int | slice) -> MatchLine | Sequence[MatchLine]:
        if isinstance(index, int):
            return self[index : index + 1][0]
        # `paginate` asks for [start:start + per_page]: no count needed to read it.
        start = index.start or 0
        stop = len(self) if index.stop is None else index.stop
        found = selectors.alert_matches(
            self.alert, self.language, limit=max(0, stop - start), offset=start
        )
        return [_line(self.alert.kind, item, self.language) for item in found]

    def __iter__(self) -> Iterator[MatchLine]:
        return iter(self[0:])


# --- the pages --------------------------------------------------------------------------------


def _search_again(request: HttpRequest) -> str:
    """The search results page "Alert me" was sent from (its query string came along)."""
    query = request.GET.urlencode()
    return reverse("search:results") + (f"?{query}" if query else "")


@members_only
@require_POST
def alert_create(request: AuthenticatedRequest, company: Company) -> HttpResponse:
    """ "Alert me": the search's words and tab (posted), its filters (the query string) and
    the page's language (the address) saved as an alert; a refusal goes back to the search."""
    form = AlertCreateForm(request.POST)
    if form.is_valid():
        kind = form.cleaned_data["kind"]
        try:
            services.saved_search_create(
                actor=request.user,
                params=services.params_from_query_dict(kind, request.GET),
                language=_language(),
                **form.cleaned_data,
            )
        except AlertError as exc:
            show_on_form(form, exc)
        else:
            messages.success(
                request, _("The alert is saved: Tradepost emails you what newly matches it.")
            )
            return redirect("alerts:list")
    flash_form_errors(request, form, labelled=True)
    return redirect(_search_again(request))


@members_only
def alert_list(request: AuthenticatedRequest, company: Company) -> HttpResponse:
    language = _language()
    context = {
        "company": company,
        "alerts": [
            _alert_view(alert, language, latest=True)
            for alert in selectors.alerts_of_company(company)
        ],
        "usage": selectors.alert_usage(company),
    }
    return render(request, "alerts/list.html", context)


@members_only
def alert_detail(request: AuthenticatedRequest, alert_id: int, company: Company) -> HttpResponse:
    alert = selectors.access_alert(user=request.user, alert_id=alert_id)
    language = _language()
    page = paginate(request, _Matches(alert, language), MATCHES_PAGE_SIZE)
    context = {"view": _alert_view(alert, language, latest=False), "page": page}
    return render(request, "alerts/detail.html", context)


@members_only
def alert_update(request: AuthenticatedRequest, alert_id: int, company: Company) -> HttpResponse:
    alert = selectors.access_alert(user=request.user, alert_id=alert_id)
    posted = request.method == "POST"
    form = (
        AlertEditForm(request.POST)
        if posted
        else AlertEditForm(initial={"query": alert.query, "frequency": alert.frequency})
    )
    if posted and form.is_valid():
        try:
            services.saved_search_update(actor=request.user, alert=alert, **form.cleaned_data)
        except AlertError as exc:
            show_on_form(form, exc)
        else:
            messages.success(request, _("The alert is saved."))
            return redirect("alerts:list")
    context = {"view": _alert_view(alert, _language(), latest=False), "form": form}
    status = 400 if form.is_bound and form.errors else 200
    return render(request, "alerts/update.html", context, status=status)


def _pause(request: AuthenticatedRequest, alert_id: int, *, paused: bool) -> HttpResponse:
    alert = selectors.access_alert(user=request.user, alert_id=alert_id)
    try:
        services.saved_search_update(actor=request.user, alert=alert, paused=paused)
    except AlertError as exc:
        flash_refusal(request, exc)
    else:
        messages.success(
            request,
            _("The alert is paused: it sends no emails until you resume it.")
            if paused
            else _("The alert is resumed: it tells you of new matches again."),
        )
    return redirect("alerts:list")


@login_required
@require_POST
def alert_pause(request: AuthenticatedRequest, alert_id: int) -> HttpResponse:
    return _pause(request, alert_id, paused=True)


@login_required
@require_POST
def alert_resume(request: AuthenticatedRequest, alert_id: int) -> HttpResponse:
    return _pause(request, alert_id, paused=False)


@members_only
@require_http_methods(["GET", "POST"])
def alert_delete(request: AuthenticatedRequest, alert_id: int, company: Company) -> HttpResponse:
    """GET asks to confirm; POST deletes the alert and its matches."""
    alert = selectors.access_alert(user=request.user, alert_id=alert_id)
    if request.method == "POST":
        try:
            services.saved_search_delete(actor=request.user, alert=alert)
        except AlertError as exc:
            flash_refusal(request, exc)
        else:
            messages.success(request, _("The alert is deleted."))
        return redirect("alerts:list")
    context = {"view": _alert_view(alert, _language(), latest=False)}
    return render(request, "alerts/delete_confirm.html", context)


@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """An alert email's link, without signing in: GET shows the alert it pauses and asks
    (mail scanners open links); POST pauses it, from the page's button or from a mail
    program's one-click unsubscribe (RFC 8058: `List-Unsubscribe=One-Click`, posted without
    a CSRF token or cookies: the signed token is the proof, so no CSRF check here)."""
    if request.method == "POST":
        outcome, alert = services.unsubscribe_with_token(token=token)
    else:
        outcome, alert = selectors.unsubscribe_target(token)
    context = {
        "outcome": outcome,
        "view": None if alert is None else _alert_view(alert, _language(), latest=False),
    }
    status = 400 if outcome in ("invalid", "expired") else 200
    response = render(request, "alerts/unsubscribe.html", context, status=status)
    response["Cache-Control"] = "no-store"
    return response
