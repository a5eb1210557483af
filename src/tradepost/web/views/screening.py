"""The operators' banned-term pages under /<lang>/dashboard/operator/: the list (search,
filter, add one, paste many, edit, deactivate, delete) and the review queue of listings held
for review (the terms found shown in their context; approve or reject with a reason told to
the company in its language). Operators only: anybody else gets the 404 page, as the other
operator queues answer (docs/adr/0023-banned-terms.md).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from tradepost.catalog import services as catalog_services
from tradepost.catalog.errors import ProductError
from tradepost.catalog.listing_screening import access_held_product, held_listings, held_reviews
from tradepost.screening import selectors, services
from tradepost.screening.errors import ScreeningError
from tradepost.screening.forms import (
    BannedTermBulkForm,
    BannedTermForm,
    HeldRejectForm,
    language_choices,
)
from tradepost.screening.models import BannedTerm
from tradepost.web.guards import operator_only
from tradepost.web.pagination import paginate
from tradepost.web.refusals import flash_form_errors, flash_refusal, show_on_form
from tradepost.web.views.accounts import AuthenticatedRequest

TERMS_PAGE_SIZE = 50
HELD_PAGE_SIZE = 20
_ACTIVE_FILTER = {"1": True, "0": False}


def _terms_page(
    request: AuthenticatedRequest,
    *,
    form: BannedTermForm | None = None,
    bulk_form: BannedTermBulkForm | None = None,
    status: int = 200,
) -> HttpResponse:
    query = request.GET.get("q", "")[:100]
    language = request.GET.get("language", "")
    if language not in services.TERM_LANGUAGES:
        language = ""
    active = _ACTIVE_FILTER.get(request.GET.get("active", ""))
    terms = selectors.banned_terms(query=query, language=language, active=active)
    page = paginate(request, terms, TERMS_PAGE_SIZE)
    context = {
        "page": page,
        "query": query,
        "language": language,
        "active": request.GET.get("active", "") if active is not None else "",
        "term_languages": language_choices(),
        "counts": selectors.banned_term_counts(),
        "form": form or BannedTermForm(auto_id="id_term_%s"),
        "bulk_form": bulk_form or BannedTermBulkForm(auto_id="id_bulk_%s"),
        "bulk_limit": services.BULK_MAX_LINES,
    }
    return render(request, "screening/terms.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def terms(request: AuthenticatedRequest) -> HttpResponse:
    """The list, and adding one term (POST)."""
    operator_only(request)
    if request.method != "POST":
        return _terms_page(request)
    form = BannedTermForm(request.POST, auto_id="id_term_%s")
    if form.is_valid():
        try:
            term = services.banned_term_create(actor=request.user, **form.cleaned_data)
        except ScreeningError as error:
            show_on_form(form, error)
        else:
            messages.success(request, _("“%(term)s” is on the list.") % {"term": term.term})
            return redirect("screening:terms")
    return _terms_page(request, form=form, status=400)


@login_required
@require_POST
def terms_bulk(request: AuthenticatedRequest) -> HttpResponse:
    """Adding pasted terms, one per line."""
    operator_only(request)
    form = BannedTermBulkForm(request.POST, auto_id="id_bulk_%s")
    if form.is_valid():
        try:
            result = services.banned_terms_bulk_add(actor=request.user, **form.cleaned_data)
        except ScreeningError as error:
            show_on_form(form, error)
        else:
            added = len(result.added)
            messages.success(
                request,
                ngettext(
                    "%(count)d term added to the list.", "%(count)d terms added to the list.", added
                )
                % {"count": added},
            )
            if result.skipped:
                messages.info(
                    request,
                    _("Already on the list, skipped: %(terms)s")
                    % {"terms": ", ".join(result.skipped[:50])},
                )
            return redirect("screening:terms")
    return _terms_page(request, bulk_form=form, status=400)


def _term(request: AuthenticatedRequest, banned_term_id: int) -> BannedTerm:
    operator_only(request)
    return selectors.access_banned_term(user=request.user, banned_term_id=banned_term_id)


@login_required
@require_http_methods(["GET", "POST"])
def term_update(request: AuthenticatedRequest, banned_term_id: int) -> HttpResponse:
    term = _term(request, banned_term_id)
    status = 200
    if request.method == "POST":
        form = BannedTermForm(request.POST)
        if form.is_valid():
            try:
                services.banned_term_update(
                    actor=request.user, banned_term=term, **form.cleaned_data
                )
            except ScreeningError as error:
                show_on_form(form, error)
            else:
                messages.success(request, _("Your changes were saved."))
                return redirect("screening:terms")
        status = 400
    else:
        form = BannedTermForm(
            initial={
                "term": term.term,
                "language": term.language,
                "note": term.note,
                "active": term.active,
            }
        )
    return render(request, "screening/term_form.html", {"term": term, "form": form}, status=status)


def _set_active(request: AuthenticatedRequest, banned_term_id: int, active: bool) -> HttpResponse:
    term = _term(request, banned_term_id)
    try:
        services.banned_term_update(actor=request.user, banned_term=term, active=active)
    except ScreeningError as error:
        flash_refusal(request, error)
    else:
        done = _("“%(term)s” matches again.") if active else _("“%(term)s” no longer matches.")
        messages.success(request, done % {"term": term.term})
    return redirect("screening:terms")


@login_required
@require_POST
def term_deactivate(request: AuthenticatedRequest, banned_term_id: int) -> HttpResponse:
    return _set_active(request, banned_term_id, False)


@login_required
@require_POST
def term_activate(request: AuthenticatedRequest, banned_term_id: int) -> HttpResponse:
    return _set_active(request, banned_term_id, True)


@login_required
@require_http_methods(["GET", "POST"])
def term_delete(request: AuthenticatedRequest, banned_term_id: int) -> HttpResponse:
    term = _term(request, banned_term_id)
    if request.method == "POST":
        services.banned_term_delete(actor=request.user, banned_term=term)
        messages.success(request, _("“%(term)s” was deleted from the list.") % {"term": term.term})
        return redirect("screening:terms")
    return render(request, "screening/term_delete.html", {"term": term})


# --- the review queue --------------------------------------------------------------------------


@login_required
@require_GET
def held(request: AuthenticatedRequest) -> HttpResponse:
    operator_only(request)
    page = paginate(request, held_listings(), HELD_PAGE_SIZE)
    items = [
        {
            "review": review,
            "reject_form": HeldRejectForm(auto_id=f"id_reject_{review.product.pk}_%s"),
        }
        for review in held_reviews(page.object_list)
    ]
    return render(request, "screening/held.html", {"page": page, "items": items})


def _decide(request: AuthenticatedRequest, product_id: int, act: Any, done: str) -> HttpResponse:
    operator_only(request)
    product = access_held_product(user=request.user, product_id=product_id)
    try:
        act(product)
    except ProductError as error:
        flash_refusal(request, error)
    else:
        messages.success(request, done)
    return redirect("screening:held")


@login_required
@require_POST
def held_approve(request: AuthenticatedRequest, product_id: int) -> HttpResponse:
    return _decide(
        request,
        product_id,
        lambda product: catalog_services.product_review_approve(
            actor=request.user, product=product
        ),
        _("The listing is published. The company is told in its language."),
    )


@login_required
@require_POST
def held_reject(request: AuthenticatedRequest, product_id: int) -> HttpResponse:
    form = HeldRejectForm(request.POST)
    if not form.is_valid():
        operator_only(request)
        access_held_product(user=request.user, product_id=product_id)
        flash_form_errors(request, form, labelled=True)
        return redirect("screening:held")
    return _decide(
        request,
        product_id,
        lambda product: catalog_services.product_review_reject(
            actor=request.user, product=product, **form.cleaned_data
        ),
        _("The listing is back among the company's drafts; the company is told why."),
    )
