"""Reports and moderation: POST /api/v1/reports (anybody signed in reports a listing, a company,
a buying request or a message they can see), and for operators /api/v1/operator/reports (the
open reports grouped by what they are about, oldest first), POST
/api/v1/operator/reports/{report_id}/decision (decide every open report on that target) and
POST /api/v1/operator/moderation (act on anything by its id: restore, lift...).

Something the caller cannot see answers exactly like a missing one (404); a second open report
of the same thing by the same person 409 `report-duplicate`; too many reports in a day 429.
Refusals become problem documents in one place, `api/urls.py`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema, Status
from pydantic import Field

from tradepost.api.auth import API_AUTH, caller, operator_caller
from tradepost.api.bodies import JsonBody
from tradepost.api.pagination import CutPage, paged
from tradepost.trust import selectors, services
from tradepost.trust.models import Report
from tradepost.trust.selectors import ReportGroup, Subject

router = Router(auth=API_AUTH, tags=["reports"])

TARGETS = "product, company, request or message"
REASONS = "prohibited, counterfeit, fraud, misleading, offensive, spam or other"
ACTIONS = "hide, restore, warn, suspend, ban, lift"

# --- schemas ---------------------------------------------------------------------------------


class ReportIn(JsonBody):
    target: str = Field(description=f"What is reported: {TARGETS}")
    target_id: int = Field(description="Its id (a message's id, not its conversation's)")
    reason: str = Field(description=REASONS)
    note: str = Field("", description="What an operator should know (at most 1,000 characters)")


class ReportOut(Schema):
    id: int
    target: str
    target_id: int
    reason: str
    note: str
    status: str = Field(description="open, actioned or dismissed")
    created_at: datetime


class QueuedReportOut(ReportOut):
    reporter_email: str = Field(description="Empty when the account is gone")


class ReportedCompanyOut(Schema):
    id: int
    name: str
    standing: str = Field(description="active, suspended or banned")
    suspended_until: datetime | None = Field(
        None, description="When a suspension for a time ends by itself"
    )


class ReportGroupOut(Schema):
    target: str
    target_id: int
    label: str = Field(description="The title, name or first words of what is reported")
    exists: bool = Field(description="False when it was deleted meanwhile")
    hidden: bool = Field(description="Hidden by moderation (a company: suspended or banned)")
    company: ReportedCompanyOut | None = Field(description="The company behind it")
    first_reported_at: datetime
    decide_with: int = Field(description="The report id to post a decision to")
    reports: list[QueuedReportOut]


class DecisionIn(JsonBody):
    action: str = Field(description=f"dismiss, or one of {ACTIONS}")
    reason: str = Field(
        "", description=f"What the company is told ({REASONS}); the report's when left out"
    )
    message: str = Field(
        "", description="Added to what the company is told, in its language (at most 1,000)"
    )
    days: int | None = Field(
        None, description="suspend only: lifted by itself after this many days (1-365)"
    )


class ModerationIn(JsonBody):
    target: str = Field(description=TARGETS)
    target_id: int
    action: str = Field(description=ACTIONS)
    reason: str = Field("", description=f"Required to hide, warn, suspend and ban: {REASONS}")
    message: str = Field("", description="Added to what the company is told (at most 1,000)")
    days: int | None = Field(
        None, description="suspend only: lifted by itself after this many days (1-365)"
    )


class ModerationOut(Schema):
    target: str
    target_id: int
    action: str
    changed: bool = Field(description="False when it was so already (nobody is told then)")
    hidden: bool
    company: ReportedCompanyOut


# --- helpers ---------------------------------------------------------------------------------


def _report_out(report: Report) -> dict[str, Any]:
    return {
        "id": report.pk,
        "target": report.target,
        "target_id": report.target_id,
        "reason": report.reason,
        "note": report.note,
        "status": report.status,
        "created_at": report.created_at,
    }


def _company_out(company: Any) -> dict[str, Any] | None:
    if company is None:
        return None
    return {
        "id": company.pk,
        "name": company.legal_name,
        "standing": company.standing,
        "suspended_until": company.standing_until,
    }


def _group_out(group: ReportGroup) -> dict[str, Any]:
    subject: Subject | None = group.subject
    return {
        "target": group.target,
        "target_id": group.target_id,
        "label": group.label,
        "exists": subject is not None,
        "hidden": subject.hidden if subject else False,
        "company": _company_out(group.company),
        "first_reported_at": group.first_reported_at,
        "decide_with": group.first.pk,
        "reports": [
            {
                **_report_out(report),
                "reporter_email": report.reporter.email if report.reporter else "",
            }
            for report in group.reports
        ],
    }


# --- endpoints -------------------------------------------------------------------------------


@router.post(
    "/reports",
    response={201: ReportOut},
    summary="Report a listing, a company, a buying request or a message you can see",
)
def report_create(request: HttpRequest, payload: ReportIn) -> Status[dict[str, Any]]:
    report = services.report_submit(
        actor=caller(request),
        **payload.dict(),
    )
    return Status(201, _report_out(report))


@router.get(
    "/operator/reports",
    response=list[ReportGroupOut],
    summary="Open reports grouped by what they are about, oldest first (operators)",
)
@paged(pass_parameter="paging")
def report_queue(request: HttpRequest, **kwargs: Any) -> CutPage:
    operator_caller(request)
    paging = kwargs["paging"]
    targets = selectors.report_targets()
    start = (paging.page - 1) * paging.page_size
    rows = list(targets[start : start + paging.page_size])
    groups = selectors.report_groups(rows)
    return CutPage([_group_out(group) for group in groups], targets.count())


@router.post(
    "/operator/reports/{int:report_id}/decision",
    response=ReportOut,
    summary="Decide every open report on the report's target (operators)",
)
def report_decide(request: HttpRequest, report_id: int, payload: DecisionIn) -> dict[str, Any]:
    user = caller(request)
    report = selectors.access_report(user=user, report_id=report_id)
    decided = services.report_decide(actor=user, report=report, **payload.dict())
    return _report_out(decided)


@router.post(
    "/operator/moderation",
    response=ModerationOut,
    summary="Act on a listing, company, request or message by its id (operators)",
)
def moderate(request: HttpRequest, payload: ModerationIn) -> dict[str, Any]:
    done = services.moderation_apply(
        actor=caller(request),
        **payload.dict(),
    )
    subject = done.subject
    return {
        "target": subject.target,
        "target_id": subject.target_id,
        "action": done.action,
        "changed": done.changed,
        "hidden": subject.hidden,
        "company": _company_out(subject.company),
    }
