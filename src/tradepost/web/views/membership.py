"""Membership pages: the plans (public), the company's membership with its invoices, the
confirmation steps of a change of plan and of a cancellation, the billing details, a printable
invoice, and the operators' list of transfers to confirm.

A company's pages work on the signed-in user's own company; every member sees them, only the
owner and admins change anything (others get the "not allowed" page). An invoice of another
company answers 404. The operators' page answers 404 to everyone else.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from tradepost.companies.models import Company
from tradepost.core.downloads import pdf_response
from tradepost.core.languages import normalise_ui_language
from tradepost.membership import invoices, selectors, services
from tradepost.membership.badges import badge_standing
from tradepost.membership.errors import MembershipError, MembershipErrorCode
from tradepost.membership.forms import BillingForm
from tradepost.membership.invoices import invoice_context
from tradepost.membership.models import SubscriptionKind
from tradepost.trust.selectors import company_verification
from tradepost.web.guards import actor, company_required, operator_only
from tradepost.web.pagination import paginate
from tradepost.web.refusals import flash_refusal, show_on_form

PER_PAGE = 20
#: The action each kind of change is confirmed with (what the service is told).
KIND_ACTIONS: dict[str, str] = {
    SubscriptionKind.NEW: "subscribe",
    SubscriptionKind.UPGRADE: "upgrade",
    SubscriptionKind.DOWNGRADE: "downgrade",
}


def _language() -> str:
    return normalise_ui_language(get_language())


def badge_context(company: Company) -> dict[str, Any]:
    """What `membership/_badge_standing.html` shows a company about its Gold Supplier badge:
    carried, or waiting for its verification (and whether its documents are with us)."""
    badge = badge_standing(company)
    pending = badge.needs_verification and company_verification(company=company).pending
    return {"badge": badge, "verification_pending": bool(pending)}


#: The guard of the pages that change a company's membership: its owner and admins (and
#: operators) only.
managers_only = company_required(
    manage=gettext_lazy("Only the company's owner and admins can change its membership.")
)


@require_GET
def plans(request: HttpRequest) -> HttpResponse:
    company = actor(request).company
    current = selectors.current_plan(company) if company is not None else None
    return render(
        request,
        "membership/plans.html",
        {
            "plans": list(selectors.offered_plans()),
            "current": current,
            "language": _language(),
            "can_change": company is not None and actor(request).manages(company),
        },
    )


@company_required(operators_to="membership:payments")
@require_GET
def overview(request: HttpRequest, company: Company) -> HttpResponse:
    page = paginate(request, selectors.invoices_of(company), PER_PAGE)
    return render(
        request,
        "membership/overview.html",
        {
            "company": company,
            "company_name": company.name_for(_language()),
            "state": selectors.overview(company),
            "plans": [plan for plan in selectors.offered_plans() if not plan.is_default],
            "page": page,
            "history": selectors.history(company)[:20],
            "can_manage": actor(request).manages(company),
            "language": _language(),
            "grace_days": selectors.grace_days(),
            **badge_context(company),
        },
    )


@managers_only
@require_http_methods(["GET", "POST"])
def change(request: HttpRequest, plan_id: int, company: Company) -> HttpResponse:
    """GET: what the change would be (its kind, period and money); POST: do it."""
    plan = selectors.offered_plan(plan_id=plan_id)
    if request.method == "POST":
        try:
            subscription = services.plan_change(
                actor=request.user,
                company=company,
                plan_id=plan.pk,
                action=request.POST.get("action", ""),  # type: ignore[arg-type]
            )
        except MembershipError as error:
            flash_refusal(request, error)
            return redirect("membership:overview")
        invoice = getattr(subscription, "invoice", None)
        if invoice is not None and invoice.status == "open":
            messages.success(request, _("Your invoice is ready: pay it by bank transfer."))
            return redirect("membership:invoice", invoice_id=invoice.pk)
        messages.success(request, _("Your membership is updated."))
        return redirect("membership:overview")
    try:
        quote = selectors.change_quote(company, plan)
    except MembershipError as error:
        flash_refusal(request, error)
        return redirect("membership:overview")
    return render(
        request,
        "membership/change_confirm.html",
        {
            "quote": quote,
            "action": KIND_ACTIONS[quote.kind],
            "plan_name": plan.name_for(_language()),
            "current": selectors.current_subscription(company),
            "pending": selectors.pending_change(company),
        },
    )


@managers_only
@require_http_methods(["GET", "POST"])
def cancel(request: HttpRequest, company: Company) -> HttpResponse:
    if request.method == "POST":
        try:
            services.subscription_cancel(actor=request.user, company=company)
        except MembershipError as error:
            flash_refusal(request, error)
        else:
            messages.success(request, _("Your membership will not renew."))
        return redirect("membership:overview")
    current = selectors.current_subscription(company)
    if current is None or not current.auto_renew:
        flash_refusal(
            request,
            MembershipError(
                MembershipErrorCode.NOTHING_TO_CANCEL,
                _("There is no renewing membership to cancel."),
            ),
        )
        return redirect("membership:overview")
    return render(
        request,
        "membership/cancel_confirm.html",
        {"current": current, "plan_name": current.plan.name_for(_language())},
    )


@managers_only
@require_http_methods(["GET", "POST"])
def billing(request: HttpRequest, company: Company) -> HttpResponse:
    details = selectors.billing_details(company)
    form = BillingForm(request.POST or None, initial=BillingForm.initial_for(details))
    if request.method == "POST" and form.is_valid():
        try:
            services.billing_details_set(actor=request.user, company=company, **form.cleaned_data)
        except MembershipError as error:
            show_on_form(form, error)
        else:
            messages.success(request, _("Your billing details are saved."))
            return redirect("membership:overview")
    return render(
        request,
        "membership/billing.html",
        {"form": form},
        status=400 if form.is_bound and form.errors else 200,
    )


@login_required
@require_GET
def invoice(request: HttpRequest, invoice_id: int) -> HttpResponse:
    item = selectors.access_invoice(user=request.user, invoice_id=invoice_id)
    return render(request, "membership/invoice.html", invoice_context(item, language=_language()))


@login_required
@require_GET
def invoice_pdf(request: HttpRequest, invoice_id: int) -> HttpResponse:
    """The invoice as a PDF in the page's language, for the same people as the page."""
    item = selectors.access_invoice(user=request.user, invoice_id=invoice_id)
    return pdf_response(
        invoices.invoice_pdf(item, language=_language()), invoices.pdf_file_name(item)
    )


@login_required
@require_GET
def payments(request: HttpRequest) -> HttpResponse:
    operator_only(request)
    page = paginate(request, selectors.invoices_awaiting_payment(user=request.user), PER_PAGE)
    return render(request, "membership/payments.html", {"page": page})


@login_required
@require_POST
def payment_confirm(request: HttpRequest, invoice_id: int) -> HttpResponse:
    operator_only(request)
    try:
        item = services.invoice_confirm_payment(actor=request.user, invoice_id=invoice_id)
    except MembershipError as error:
        flash_refusal(request, error)
    else:
        messages.success(
            request, _("Payment of invoice %(number)s confirmed.") % {"number": item.number}
        )
    return redirect("membership:payments")
