"""Verification: /api/v1/me/verification (the caller's company) and
/api/v1/operator/verification (the operators' queue and decisions).

A company's owner and admins send documents (multipart, files under the part names
`business_licence`, `export_licence`, `certification` and `other`) and withdraw a waiting
request; every member reads the status and the history, the documents only the owner, the
admins and the operators. A document of another company answers exactly like a missing one
(404). Refusals become problem documents in one place, `api/urls.py`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import FileResponse, HttpRequest
from django.utils.translation import gettext as _
from ninja import File, Router, Schema, Status
from ninja.files import UploadedFile
from pydantic import Field

from tradepost.api.auth import API_AUTH, caller, caller_actor, operator_caller
from tradepost.api.bodies import JsonBody
from tradepost.api.pagination import Rows, paged
from tradepost.api.problems import validation_problem
from tradepost.api.refs import RejectIn
from tradepost.companies.models import Membership
from tradepost.trust import selectors, services
from tradepost.trust.documents import document_response
from tradepost.trust.models import DocumentKind, VerificationRequest

router = Router(auth=API_AUTH, tags=["verification"])
DOCUMENTS_PATH = "/api/v1/verification/documents"

# --- schemas ---------------------------------------------------------------------------------


class DocumentOut(Schema):
    id: int
    kind: str = Field(description="business_licence, export_licence, certification or other")
    name: str = Field(description="The name the file was sent as")
    content_type: str = Field(description="application/pdf, image/jpeg or image/png")
    size: int
    sha256: str
    url: str = Field(description="Download (the company's owner and admins, operators)")


class VerificationOut(Schema):
    id: int
    status: str = Field(description="pending, approved, rejected or withdrawn")
    submitted_at: datetime
    decided_at: datetime | None = Field(description="When it was decided or withdrawn")
    checked: list[str] = Field(
        description="What the operator checked: legal_name, registration_number, address, "
        "export_licence, certifications"
    )
    rejection_reason: str = Field(description="Why not approved, in the company's language")
    documents: list[DocumentOut] = Field(
        description="Listed to the company's owner and admins and to operators only"
    )


class QueuedVerificationOut(VerificationOut):
    company_id: int
    company_slug: str
    company_name: str
    company_country: str
    company_language: str = Field(description="The company's profile language")


class VerificationStatusOut(Schema):
    company_id: int
    verified: bool
    verified_at: datetime | None = Field(
        description="When the approval behind the verified mark was decided"
    )
    checked: list[str] = Field(description="What was checked for that approval")
    pending: VerificationOut | None = Field(description="The request waiting for review")


class ApproveIn(JsonBody):
    checked: list[str] = Field(
        description="At least one of legal_name, registration_number, address, "
        "export_licence, certifications"
    )


# --- helpers ---------------------------------------------------------------------------------


def _membership(request: HttpRequest) -> Membership:
    """The caller's membership of the company they act for (403 `no-company` without one)."""
    acting = caller_actor(request)
    acting.require_company()
    assert acting.membership is not None
    return acting.membership


def _verification_out(
    request: HttpRequest, item: VerificationRequest, *, documents: bool = True
) -> dict[str, Any]:
    return {
        "id": item.pk,
        "status": item.status,
        "submitted_at": item.submitted_at,
        "decided_at": item.decided_at,
        "checked": list(item.checked or []),
        "rejection_reason": item.rejection_reason,
        "documents": [
            {
                "id": document.pk,
                "kind": document.kind,
                "name": document.original_name,
                "content_type": document.content_type,
                "size": document.size,
                "sha256": document.sha256,
                "url": request.build_absolute_uri(f"{DOCUMENTS_PATH}/{document.pk}"),
            }
            for document in (item.documents.all() if documents else [])
        ],
    }


def _queued_out(request: HttpRequest, item: VerificationRequest) -> dict[str, Any]:
    company = item.company
    return {
        **_verification_out(request, item),
        "company_id": company.pk,
        "company_slug": company.slug,
        "company_name": company.legal_name,
        "company_country": company.country,
        "company_language": company.original_language,
    }


# --- the company's side ----------------------------------------------------------------------


@router.get("/me/verification", response=VerificationStatusOut, summary="My company's verification")
def verification_status(request: HttpRequest) -> dict[str, Any]:
    membership = _membership(request)
    status = selectors.company_verification(company=membership.company)
    approval = status.approval
    return {
        "company_id": membership.company_id,
        "verified": status.verified,
        "verified_at": approval.decided_at if approval else None,
        "checked": list(approval.checked or []) if approval else [],
        "pending": (
            _verification_out(request, status.pending, documents=membership.can_manage_company)
            if status.pending
            else None
        ),
    }


@router.post(
    "/me/verification",
    response={201: VerificationOut},
    summary="Send documents for verification (multipart; owner and admins)",
)
def verification_submit(
    request: HttpRequest,
    # Declared for the schema; the files are read by part name below, so that a part with
    # another name is refused rather than ignored.
    business_licence: File[list[UploadedFile]] = None,  # type: ignore[assignment]
    export_licence: File[list[UploadedFile]] = None,  # type: ignore[assignment]
    certification: File[list[UploadedFile]] = None,  # type: ignore[assignment]
    other: File[list[UploadedFile]] = None,  # type: ignore[assignment]
) -> Status[dict[str, Any]]:
    membership = _membership(request)
    as_text = sorted(set(request.POST) & set(DocumentKind.values))
    if as_text:
        message = _("Send the files as file parts, not as text.")
        raise validation_problem({name: [message] for name in as_text})
    created = services.verification_submit(
        actor=caller(request),
        company=membership.company,
        files={name: request.FILES.getlist(name) for name in request.FILES},
    )
    return Status(201, _verification_out(request, created))


@router.get(
    "/me/verification/requests",
    response=list[VerificationOut],
    summary="My company's verification requests, newest first",
)
@paged()
def verification_history(request: HttpRequest) -> Rows:
    membership = _membership(request)
    return Rows(
        selectors.verification_requests_of(company=membership.company),
        render=lambda item: _verification_out(
            request, item, documents=membership.can_manage_company
        ),
    )


@router.post(
    "/me/verification/withdraw",
    response=VerificationOut,
    summary="Withdraw the request waiting for review (owner and admins)",
)
def verification_withdraw(request: HttpRequest) -> dict[str, Any]:
    membership = _membership(request)
    withdrawn = services.verification_withdraw(
        actor=caller(request),
        company=membership.company,
    )
    return _verification_out(request, withdrawn)


@router.get(
    "/verification/documents/{int:document_id}",
    response={200: None},
    summary="Download a verification document (the company's owner and admins, operators)",
)
def verification_document(request: HttpRequest, document_id: int) -> FileResponse:
    found = selectors.access_verification_document(
        user=caller(request),
        document_id=document_id,
    )
    return document_response(found)


# --- the operators' side ---------------------------------------------------------------------


@router.get(
    "/operator/verification",
    response=list[QueuedVerificationOut],
    summary="Requests waiting for review, oldest first (operators)",
)
@paged()
def verification_queue(request: HttpRequest) -> Rows:
    operator_caller(request)
    return Rows(selectors.verification_queue(), render=lambda item: _queued_out(request, item))


def _decide(request: HttpRequest, verification_id: int, **decision: Any) -> dict[str, Any]:
    user = caller(request)
    found = selectors.access_verification(user=user, verification_id=verification_id)
    if "checked" in decision:
        decided = services.verification_approve(actor=user, verification=found, **decision)
    else:
        decided = services.verification_reject(actor=user, verification=found, **decision)
    return _queued_out(request, decided)


@router.post(
    "/operator/verification/{int:verification_id}/approve",
    response=QueuedVerificationOut,
    summary="Approve a request, saying what was checked (operators)",
)
def verification_approve(
    request: HttpRequest, verification_id: int, payload: ApproveIn
) -> dict[str, Any]:
    return _decide(request, verification_id, checked=payload.checked)


@router.post(
    "/operator/verification/{int:verification_id}/reject",
    response=QueuedVerificationOut,
    summary="Do not approve a request, saying why (operators)",
)
def verification_reject(
    request: HttpRequest, verification_id: int, payload: RejectIn
) -> dict[str, Any]:
    return _decide(request, verification_id, reason=payload.reason)
