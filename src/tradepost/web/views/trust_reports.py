"""Reports and moderation pages: the report form anybody signed in reaches from a listing, a
company, a buying request or a message (/<lang>/dashboard/reports/new/?target=…&target_id=…),
and the operators' queue under /<lang>/dashboard/operator/reports/ (open reports grouped by
what they are about, oldest first, each group with its actions; the suspended and banned
companies; an action on anything by its id).

What a person may report is what they can see (`trust.selectors.reportable`): anything else
answers 404 like a missing object. The queue and the actions are for operators only (404 for
anybody else, as the verification queue).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from tradepost.core.errors import ErrorKind
from tradepost.trust import selectors, services
from tradepost.trust.errors import ReportNotFound, TrustError, TrustErrorCode
from tradepost.trust.forms import DecisionForm, ModerationForm, ReportForm
from tradepost.trust.models import ModerationAction, ReportTarget
from tradepost.trust.selectors import ReportGroup, Subject
from tradepost.web.guards import operator_only
from tradepost.web.pagination import paginate
from tradepost.web.refusals import flash_refusal, show_on_form
from tradepost.web.views.accounts import AuthenticatedRequest

#: Targets the operators' queue shows on a page, and suspended companies it lists.
QUEUE_PAGE_SIZE = 20
SUSPENDED_SHOWN = 50
#: The status of a report form refused by the service, by kind of refusal.
_STATUS = {ErrorKind.FORBIDDEN: 403, ErrorKind.RATE_LIMITED: 429}


def _public_url(subject: Subject) -> str:
    """Where the reporter saw what they report."""
    if subject.target == ReportTarget.PRODUCT:
        return subject.obj.get_absolute_url()
    if subject.target == ReportTarget.COMPANY:
        return reverse("catalog:company_detail", args=[subject.obj.slug])
    if subject.target == ReportTarget.REQUEST:
        return reverse("sourcing:request_detail", kwargs={"pk": subject.target_id})
    if subject.target == ReportTarget.REVIEW:
        url = reverse("reviews:company_reviews", args=[subject.obj.supplier.slug])
        return f"{url}#review-{subject.target_id}"
    url = reverse("messaging:detail", args=[subject.obj.conversation_id])
    return f"{url}#message-{subject.target_id}"


@login_required
@require_http_methods(["GET", "POST"])
def report_create(request: AuthenticatedRequest) -> HttpResponse:
    posted = request.method == "POST"
    source = request.POST if posted else request.GET
    target = source.get("target")
    if target not in ReportTarget.values:
        raise ReportNotFound(TrustErrorCode.TARGET_NOT_FOUND)
    subject = selectors.reportable(
        user=request.user, target=target, target_id=source.get("target_id")
    )
    form = ReportForm(
        request.POST if posted else None, initial={"target": target, "target_id": subject.target_id}
    )
    status = 400 if posted else 200
    if posted and form.is_valid():
        try:
            services.report_submit(actor=request.user, **form.cleaned_data)
        except TrustError as exc:
            if exc.code != TrustErrorCode.REPORT_DUPLICATE:
                show_on_form(form, exc)
                status = _STATUS.get(exc.kind, 400)
            else:  # friendly: nothing is wrong with sending it twice
                messages.info(request, exc.message)
                return redirect(_public_url(subject))
        else:
            messages.success(
                request, _("Thank you for your report. An operator will look at it soon.")
            )
            return redirect(_public_url(subject))
    context = {
        "form": form,
        "subject": subject,
        "kind": ReportTarget(subject.target).label,
        "back": _public_url(subject),
    }
    return render(request, "trust/report_form.html", context, status=status)


def _operator_url(group: ReportGroup) -> str:
    """Where an operator looks at a group's target (empty when it is gone)."""
    if group.subject is None:
        return ""
    if group.target == ReportTarget.PRODUCT:
        return reverse("admin:catalog_product_change", args=[group.target_id])
    if group.target == ReportTarget.COMPANY:
        return reverse("admin:companies_company_change", args=[group.target_id])
    return _public_url(group.subject)


def _decision_form(group: ReportGroup) -> DecisionForm:
    """The group's form, its reason preset to the one reported most."""
    reasons = Counter(report.reason for report in group.reports)
    return DecisionForm(
        auto_id=f"id_%s_{group.first.pk}",
        initial={"action": ModerationAction.HIDE, "reason": reasons.most_common(1)[0][0]},
    )


@login_required
@require_GET
def report_queue(request: AuthenticatedRequest) -> HttpResponse:
    operator_only(request)
    page = paginate(request, selectors.report_targets(), QUEUE_PAGE_SIZE)
    items = [
        {"group": group, "url": _operator_url(group), "form": _decision_form(group)}
        for group in selectors.report_groups(page.object_list)
    ]
    context = {
        "page": page,
        "items": items,
        "suspended": selectors.suspended_companies()[:SUSPENDED_SHOWN],
        "moderation_form": ModerationForm(auto_id="id_moderation_%s"),
    }
    return render(request, "trust/reports_queue.html", context)


def _flash_form_errors(request: AuthenticatedRequest, form: DecisionForm) -> None:
    for name, errors in form.errors.items():
        label = form.fields[name].label if name in form.fields else ""
        for error in errors:
            messages.error(request, f"{label}: {error}" if label else str(error))


def _operator_action(
    request: AuthenticatedRequest, form: DecisionForm, act: Callable[[dict[str, Any]], str]
) -> HttpResponse:
    """Back to the queue after `act(form's values)`, flashing what it answers, or the
    form's or the service's refusal."""
    if not form.is_valid():
        _flash_form_errors(request, form)
    else:
        try:
            messages.success(request, act(form.cleaned_data))
        except TrustError as exc:
            flash_refusal(request, exc)
    return redirect("trust:reports")


@login_required
@require_POST
def report_decide(request: AuthenticatedRequest, report_id: int) -> HttpResponse:
    operator_only(request)
    report = selectors.access_report(user=request.user, report_id=report_id)

    def decide(values: dict[str, Any]) -> str:
        services.report_decide(actor=request.user, report=report, **values)
        return _("The reports are decided.")

    return _operator_action(request, DecisionForm(request.POST), decide)


@login_required
@require_POST
def moderate(request: AuthenticatedRequest) -> HttpResponse:
    operator_only(request)

    def act(values: dict[str, Any]) -> str:
        done = services.moderation_apply(actor=request.user, **values)
        if done.changed:
            return _("Done. The company is told in its language.")
        return _("Done. Nothing had to change.")

    return _operator_action(request, ModerationForm(request.POST), act)
