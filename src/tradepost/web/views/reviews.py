"""Reviews: a company's reviews page (public, newest first, with the supplier's replies), the
buyer's review of the supplier it awarded (/<lang>/requests/quotations/<id>/review/), the
supplier's reply, and the operators' hide and restore buttons (docs/adr/0025-reviews.md).

Views fetch objects through the `access_*` helpers (another company's quotation or a review
one may not see is a 404, like a missing one), call one service and render; the services say
who may do what (`reviews.selectors`), and the pages show the same reasons.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from tradepost.accounts.selectors import is_operator
from tradepost.catalog.public_companies import company_profile, get_public_company
from tradepost.core.errors import ErrorKind
from tradepost.core.languages import normalise_ui_language
from tradepost.reviews import selectors, services
from tradepost.reviews.errors import ReviewError, ReviewNotFound
from tradepost.reviews.forms import HideForm, ReplyForm, ReviewForm
from tradepost.reviews.models import Review
from tradepost.sourcing.selectors import access_quotation
from tradepost.web.guards import operator_only
from tradepost.web.pagination import paginate
from tradepost.web.refusals import flash_form_errors, flash_refusal, show_on_form

REVIEWS_PER_PAGE = 10
#: The status of a review form the service refused, by kind of refusal.
_STATUS = {ErrorKind.INVALID: 400, ErrorKind.FORBIDDEN: 403, ErrorKind.CONFLICT: 409}


def _language() -> str:
    return normalise_ui_language(get_language())


def _reviews_url(review: Review) -> str:
    return reverse("reviews:company_reviews", args=[review.supplier.slug])


def company_reviews(request: HttpRequest, slug: str) -> HttpResponse:
    """A company's reviews, newest first, ten a page, with the replies; its owner and admins
    find a reply form under each review they may still answer, operators hide and restore."""
    company = get_public_company(slug)
    if company is None:
        raise Http404
    page = paginate(
        request, selectors.company_reviews(company=company, viewer=request.user), REVIEWS_PER_PAGE
    )
    replies = selectors.replies_for(user=request.user, company=company)
    now = timezone.now()
    language = _language()
    for review in page.object_list:
        review.can_reply = replies and selectors.reply_open(review, now=now)  # type: ignore[attr-defined]
        review.buyer_name = review.buyer.name_for(language) if review.buyer else ""  # type: ignore[attr-defined]
    return render(
        request,
        "reviews/company_reviews.html",
        {
            "company": company,
            "profile": company_profile(company, language=language),
            "page": page,
            "reply_form": ReplyForm(),
            "hide_form": HideForm(),
            "operator": is_operator(request.user),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def review_create(request: HttpRequest, quotation_id: int) -> HttpResponse:
    """The buyer's review of the supplier whose quotation it awarded: the form, or why it
    cannot be written (not awarded yet, already reviewed: then the review itself)."""
    quotation = access_quotation(user=request.user, quotation_id=quotation_id)
    existing = selectors.review_of_quotation(quotation=quotation)
    if existing is not None:
        existing.buyer_name = quotation.request.buyer.name_for(_language())  # type: ignore[attr-defined]
    refusal = None if existing else selectors.review_refusal(user=request.user, quotation=quotation)
    if refusal is not None and refusal.kind is ErrorKind.NOT_FOUND:
        raise ReviewNotFound(refusal.code, refusal.message)
    form = ReviewForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            review = services.review_create(
                actor=request.user, quotation=quotation, **form.cleaned_data
            )
        except ReviewError as error:
            show_on_form(form, error)
            status = _STATUS.get(error.kind, 400)
        else:
            messages.success(request, _("Thank you: your review is published."))
            return redirect(_reviews_url(review))
    elif request.method == "POST":
        status = 400
    return render(
        request,
        "reviews/review_form.html",
        {
            "quotation": quotation,
            "buying_request": quotation.request,
            "supplier_name": quotation.supplier.name_for(_language()),
            "existing": existing,
            "refusal": refusal,
            "form": form,
        },
        status=status,
    )


@login_required
@require_POST
def review_reply(request: HttpRequest, review_id: int) -> HttpResponse:
    """The supplier's reply (or its change), from the reviews page."""
    review = selectors.access_review_for_reply(user=request.user, review_id=review_id)
    form = ReplyForm(request.POST)
    if not form.is_valid():  # a NUL character: say so, change nothing
        flash_form_errors(request, form)
        return redirect(_reviews_url(review))
    try:
        services.review_reply(actor=request.user, review=review, **form.cleaned_data)
    except ReviewError as error:
        flash_refusal(request, error)
    else:
        messages.success(request, _("Your reply is published under the review."))
    return redirect(_reviews_url(review))


def _operator_review(request: HttpRequest, review_id: int) -> Review:
    operator_only(request)
    return selectors.access_review(user=request.user, review_id=review_id)


@login_required
@require_POST
def review_hide(request: HttpRequest, review_id: int) -> HttpResponse:
    review = _operator_review(request, review_id)
    form = HideForm(request.POST)
    if not form.is_valid():
        flash_form_errors(request, form)
        return redirect(_reviews_url(review))
    try:
        services.review_hide(actor=request.user, review=review, **form.cleaned_data)
    except ReviewError as error:
        flash_refusal(request, error)
    else:
        messages.success(request, _("The review is hidden."))
    return redirect(_reviews_url(review))


@login_required
@require_POST
def review_restore(request: HttpRequest, review_id: int) -> HttpResponse:
    review = _operator_review(request, review_id)
    try:
        services.review_restore(actor=request.user, review=review)
    except ReviewError as error:
        flash_refusal(request, error)
    else:
        messages.success(request, _("The review is shown again."))
    return redirect(_reviews_url(review))
