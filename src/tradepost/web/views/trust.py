"""Verification pages: the company's page under /<lang>/dashboard/company/verification/
(status, what was checked, the documents and their history, the upload form) and the
operators' queue under /<lang>/dashboard/operator/verification/.

Documents are sent only by `document`, after `access_verification_document` (the company's
owner and admins, operators); any other id answers 404 like a missing one.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from tradepost.companies.models import Company
from tradepost.core.languages import LISTING_LANGUAGES, normalise_ui_language
from tradepost.core.private_files import megabytes
from tradepost.trust import selectors, services
from tradepost.trust.documents import document_response, max_document_bytes, max_documents
from tradepost.trust.errors import TrustError
from tradepost.trust.forms import ApproveForm, RejectForm, VerificationSubmitForm
from tradepost.web.guards import actor, company_required, denied, operator_only
from tradepost.web.pagination import paginate
from tradepost.web.refusals import flash_form_errors, flash_refusal, show_on_form
from tradepost.web.views.accounts import AuthenticatedRequest

#: Requests the operators' queue shows on a page.
QUEUE_PAGE_SIZE = 20
_LANGUAGE_NAMES = dict(LISTING_LANGUAGES)
#: Why the company's verification pages send someone without a company to create one.
NO_COMPANY = gettext_lazy("Create your company profile first.")


@company_required(NO_COMPANY, operators_to="trust:queue")
def verification(request: AuthenticatedRequest, company: Company) -> HttpResponse:
    # Its owner and admins send the documents; operators decide, they do not submit.
    can_manage = actor(request).managed_company == company
    posted = request.method == "POST"
    form = (
        VerificationSubmitForm(request.POST, request.FILES) if posted else VerificationSubmitForm()
    )
    if posted:
        if not can_manage:
            return denied(request, _("Only the owner and the admins of a company may do this."))
        if form.is_valid():
            try:
                services.verification_submit(
                    actor=request.user, company=company, files=form.cleaned_data
                )
            except TrustError as exc:
                show_on_form(form, exc)
            else:
                messages.success(
                    request, _("Your documents are sent. An operator will review them soon.")
                )
                return redirect("trust:verification")
    context = {
        "company": company,
        "status": selectors.company_verification(company=company),
        "history": selectors.verification_requests_of(company=company),
        "can_manage": can_manage,
        "form": form,
        "max_megabytes": megabytes(max_document_bytes()),
        "max_files": max_documents(),
    }
    status = 400 if form.is_bound and form.errors else 200
    return render(request, "trust/verification.html", context, status=status)


@company_required(NO_COMPANY, operators_to="trust:queue")
@require_POST
def withdraw(request: AuthenticatedRequest, company: Company) -> HttpResponse:
    try:
        services.verification_withdraw(actor=request.user, company=company)
    except TrustError as exc:
        flash_refusal(request, exc)
    else:
        messages.success(request, _("Your verification request is withdrawn."))
    return redirect("trust:verification")


@login_required
@require_GET
def document(request: AuthenticatedRequest, document_id: int) -> FileResponse:
    found = selectors.access_verification_document(user=request.user, document_id=document_id)
    return document_response(found)


@login_required
@require_GET
def queue(request: AuthenticatedRequest) -> HttpResponse:
    operator_only(request)
    page = paginate(request, selectors.verification_queue(), QUEUE_PAGE_SIZE)
    items = [
        {
            "verification": item,
            "language": _LANGUAGE_NAMES.get(item.company.original_language, ""),
            "approve_form": ApproveForm(auto_id=f"id_%s_{item.pk}"),
            "reject_form": RejectForm(auto_id=f"id_%s_{item.pk}"),
        }
        for item in page
    ]
    return render(request, "trust/queue.html", {"page": page, "items": items})


def _decide(request: AuthenticatedRequest, verification_id: int, *, approve: bool) -> HttpResponse:
    operator_only(request)
    found = selectors.access_verification(user=request.user, verification_id=verification_id)
    form: forms.Form = ApproveForm(request.POST) if approve else RejectForm(request.POST)
    if not form.is_valid():
        flash_form_errors(request, form)
        return redirect("trust:queue")
    name = found.company.name_for(normalise_ui_language(get_language()))
    try:
        if approve:
            services.verification_approve(
                actor=request.user, verification=found, checked=form.cleaned_data["checked"]
            )
            messages.success(request, _("%(company)s is verified.") % {"company": name})
        else:
            services.verification_reject(
                actor=request.user, verification=found, reason=form.cleaned_data["reason"]
            )
            messages.success(
                request,
                _("%(company)s is not approved; the company can read your reason.")
                % {"company": name},
            )
    except TrustError as exc:
        flash_refusal(request, exc)
    return redirect("trust:queue")


@login_required
@require_POST
def approve(request: AuthenticatedRequest, verification_id: int) -> HttpResponse:
    return _decide(request, verification_id, approve=True)


@login_required
@require_POST
def reject(request: AuthenticatedRequest, verification_id: int) -> HttpResponse:
    return _decide(request, verification_id, approve=False)
