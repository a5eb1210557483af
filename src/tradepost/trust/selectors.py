"""Reads of the trust app. `access_verification` and `access_verification_document` are the
only way to fetch a request or a document on a user's behalf: operators see every company's,
a company's owner and admins their own; anybody else (a plain member, another company,
a visitor) gets the same 404 as for an id that names nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch, QuerySet
from django.utils.translation import gettext as _

from tradepost.accounts.selectors import is_operator
from tradepost.companies.models import Company
from tradepost.companies.selectors import membership_for
from tradepost.core.ids import parse_id
from tradepost.trust.errors import TrustError, TrustErrorCode, VerificationNotFound
from tradepost.trust.models import VerificationDocument, VerificationRequest, VerificationStatus


def _managed_company_id(user: Any) -> int | None:
    """The id of the company `user` is an owner or an admin of, or None."""
    membership = membership_for(user)
    return membership.company_id if membership and membership.can_manage_company else None


def manages_verification(user: Any, company: Company) -> bool:
    """Whether `user` is an owner or an admin of `company` (who may send its documents, read
    them and withdraw a request). Operators read and decide; they do not submit."""
    return _managed_company_id(user) == company.pk


def require_operator(user: Any) -> None:
    """Refuse (403) anybody but an operator: the queue and the decisions are theirs."""
    if not is_operator(user):
        raise TrustError(TrustErrorCode.PERMISSION_DENIED, _("Only operators can do this."))


def _may_read(user: Any, company_id: int) -> bool:
    return is_operator(user) or _managed_company_id(user) == company_id


def _with_documents(requests: QuerySet[VerificationRequest]) -> QuerySet[VerificationRequest]:
    return requests.prefetch_related(
        Prefetch("documents", queryset=VerificationDocument.objects.order_by("id"))
    )


def access_verification(*, user: Any, verification_id: Any) -> VerificationRequest:
    """A verification request (with its company and documents) the user may read."""
    pk = parse_id(verification_id)
    found = (
        _with_documents(VerificationRequest.objects.select_related("company")).filter(pk=pk).first()
        if pk is not None
        else None
    )
    if found is None or not _may_read(user, found.company_id):
        raise VerificationNotFound()
    return found


def access_verification_document(*, user: Any, document_id: Any) -> VerificationDocument:
    """A document (with its request) the user may download."""
    pk = parse_id(document_id)
    found = (
        VerificationDocument.objects.select_related("request").filter(pk=pk).first()
        if pk is not None
        else None
    )
    if found is None or not _may_read(user, found.request.company_id):
        raise VerificationNotFound()
    return found


def verification_requests_of(*, company: Company) -> QuerySet[VerificationRequest]:
    """The company's requests, newest first, with their documents."""
    return _with_documents(VerificationRequest.objects.filter(company=company)).order_by(
        "-submitted_at", "-id"
    )


def verification_queue() -> QuerySet[VerificationRequest]:
    """The requests waiting for an operator, oldest first, with companies and documents."""
    return _with_documents(
        VerificationRequest.objects.filter(status=VerificationStatus.PENDING).select_related(
            "company", "submitted_by"
        )
    ).order_by("submitted_at", "id")


def pending_verification_count() -> int:
    return VerificationRequest.objects.filter(status=VerificationStatus.PENDING).count()


def public_verification(company: Company) -> VerificationRequest | None:
    """The approval behind a company's badge (its date and what was checked): the latest
    approved request while the company carries the verified mark; None otherwise (also for
    a mark an operator set in the administration without a request)."""
    if not company.is_verified:
        return None
    return (
        VerificationRequest.objects.filter(company=company, status=VerificationStatus.APPROVED)
        .order_by("-decided_at", "-id")
        .first()
    )


@dataclass(frozen=True)
class CompanyVerification:
    """Where a company stands: its mark, the approval behind it, the request waiting."""

    company: Company
    approval: VerificationRequest | None
    pending: VerificationRequest | None

    @property
    def verified(self) -> bool:
        return self.company.is_verified


def company_verification(*, company: Company) -> CompanyVerification:
    pending = (
        _with_documents(
            VerificationRequest.objects.filter(company=company, status=VerificationStatus.PENDING)
        )
        .order_by("-id")
        .first()
    )
    return CompanyVerification(
        company=company, approval=public_verification(company), pending=pending
    )
