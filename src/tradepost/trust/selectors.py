"""Reads of the trust app. `access_verification` and `access_verification_document` are the
only way to fetch a request or a document on a user's behalf: operators see every company's,
a company's owner and admins their own; anybody else (a plain member, another company,
a visitor) gets the same 404 as for an id that names nothing.

Reports: `reportable` finds what a person may report through the other apps' public reads
and access helpers (a published listing, a public company, a request they can see, a message
of their own conversation), so another company's private thing answers like a missing one;
`access_report` and `moderation_target` are the operators'; `report_queue` groups the open
reports by target, oldest first."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Count, Min, Prefetch, Q, QuerySet

from tradepost.accounts.selectors import is_operator, require_operator
from tradepost.catalog.models import Product, ProductStatus
from tradepost.catalog.public_companies import public_companies
from tradepost.catalog.selectors import get_published_product
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company, Standing
from tradepost.core.cleaning import one_line
from tradepost.core.errors import DomainError, ErrorKind
from tradepost.core.ids import parse_id
from tradepost.messaging.models import Message
from tradepost.messaging.selectors import access_message
from tradepost.reviews.models import Review
from tradepost.reviews.selectors import access_review
from tradepost.sourcing.models import BuyingRequest, RequestStatus
from tradepost.sourcing.selectors import access_request
from tradepost.trust.errors import (
    ReportNotFound,
    TrustErrorCode,
    VerificationNotFound,
)
from tradepost.trust.models import (
    Report,
    ReportStatus,
    ReportTarget,
    VerificationDocument,
    VerificationRequest,
    VerificationStatus,
)

#: How many characters of a message name it in the queue and in the company's notice.
MESSAGE_LABEL_LENGTH = 80


def manages_verification(user: Any, company: Company) -> bool:
    """Whether `user` is an owner or an admin of `company` (who may send its documents, read
    them and withdraw a request). Operators read and decide; they do not submit."""
    return actor_for(user).managed_company_id == company.pk


def _may_read(user: Any, company_id: int) -> bool:
    acting = actor_for(user)
    return acting.is_operator or acting.managed_company_id == company_id


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


# --- reports ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Subject:
    """What a report or a moderation action is about: the object, the company behind it and
    what it is called."""

    target: str
    target_id: int
    obj: Any
    company: Company
    label: str

    @property
    def hidden(self) -> bool:
        """Hidden by moderation (a company: suspended or banned)."""
        if self.target == ReportTarget.PRODUCT:
            return self.obj.status == ProductStatus.HIDDEN
        if self.target == ReportTarget.REQUEST:
            return self.obj.status == RequestStatus.HIDDEN
        if self.target in (ReportTarget.MESSAGE, ReportTarget.REVIEW):
            return self.obj.is_hidden
        return self.company.is_suspended


def _short_label(text: str) -> str:
    text = one_line(text)
    return text if len(text) <= MESSAGE_LABEL_LENGTH else text[: MESSAGE_LABEL_LENGTH - 1] + "…"


def _message_label(message: Message) -> str:
    return _short_label(message.body)


def _subject(target: str, obj: Any) -> Subject:
    if target == ReportTarget.PRODUCT:
        return Subject(target, obj.pk, obj, obj.company, obj.title)
    if target == ReportTarget.COMPANY:
        return Subject(target, obj.pk, obj, obj, obj.legal_name)
    if target == ReportTarget.REQUEST:
        return Subject(target, obj.pk, obj, obj.buyer, obj.title)
    if target == ReportTarget.REVIEW:  # the company behind a review is its author's
        return Subject(target, obj.pk, obj, obj.buyer, _short_label(obj.text))
    return Subject(target, obj.pk, obj, obj.sender_company, _message_label(obj))


def _visible_to(user: Any, target: str, pk: int) -> Any:
    """The object `user` may see, through the app that owns it; None otherwise."""
    if target == ReportTarget.PRODUCT:
        return get_published_product(pk)
    if target == ReportTarget.COMPANY:
        return public_companies().filter(pk=pk).first()
    try:
        if target == ReportTarget.REQUEST:
            return access_request(user=user, request_id=pk)
        if target == ReportTarget.REVIEW:
            review = access_review(user=user, review_id=pk)
            return review if review.buyer_id is not None else None  # its author is gone
        return access_message(user=user, message_id=pk)
    except DomainError as refused:  # the app's not-found: answered as the trust app's
        if refused.kind is not ErrorKind.NOT_FOUND:
            raise
        return None


def reportable(*, user: Any, target: str, target_id: Any) -> Subject:
    """What `user` may report: a published listing, a public company, a buying request they
    can see, a message of a conversation of their company; else `ReportNotFound` (a
    missing object and another company's private one alike). `target` is a `ReportTarget`
    value, checked by the caller."""
    pk = parse_id(target_id)
    found = _visible_to(user, target, pk) if pk is not None else None
    if found is None:
        raise ReportNotFound(TrustErrorCode.TARGET_NOT_FOUND)
    return _subject(target, found)


def _any_state(target: str) -> QuerySet[Any]:
    if target == ReportTarget.PRODUCT:
        return Product.objects.select_related("company").exclude(status=ProductStatus.DELETED)
    if target == ReportTarget.COMPANY:
        return Company.objects.all()
    if target == ReportTarget.REQUEST:
        return BuyingRequest.objects.select_related("buyer")
    if target == ReportTarget.REVIEW:
        return Review.objects.select_related("buyer", "supplier").filter(buyer__isnull=False)
    return Message.objects.select_related("sender_company", "conversation")


def moderation_target(*, user: Any, target: str, target_id: Any) -> Subject:
    """What an operator acts on, in whatever state it is (a deleted listing and a deleted
    company are gone); `ReportNotFound` otherwise, and for anybody but an operator."""
    require_operator(user)
    pk = parse_id(target_id)
    found = _any_state(target).filter(pk=pk).first() if pk is not None else None
    if found is None:
        raise ReportNotFound(TrustErrorCode.TARGET_NOT_FOUND)
    return _subject(target, found)


def access_report(*, user: Any, report_id: Any) -> Report:
    """A report, with its reporter and company, for an operator; `ReportNotFound` for an
    id that names nothing and for anybody else."""
    pk = parse_id(report_id)
    found = (
        Report.objects.select_related("reporter", "company", "decided_by").filter(pk=pk).first()
        if pk is not None and is_operator(user)
        else None
    )
    if found is None:
        raise ReportNotFound()
    return found


def open_report_count() -> int:
    return Report.objects.filter(status=ReportStatus.OPEN).count()


def report_targets() -> QuerySet[Any]:
    """The targets with open reports, oldest report first: rows of `target`, `target_id`,
    `first_reported_at`, `first_id` and `count` (page them, then `report_groups`)."""
    return (
        Report.objects.filter(status=ReportStatus.OPEN)
        .values("target", "target_id")
        .annotate(first_reported_at=Min("created_at"), first_id=Min("id"), count=Count("id"))
        .order_by("first_reported_at", "first_id")
    )


@dataclass
class ReportGroup:
    """The open reports on one target, oldest first, and the target as it is now (None when
    it is gone: deleted meanwhile)."""

    target: str
    target_id: int
    first_reported_at: datetime
    reports: list[Report] = field(default_factory=list)
    subject: Subject | None = None

    @property
    def first(self) -> Report:
        return self.reports[0]

    @property
    def label(self) -> str:
        return self.subject.label if self.subject else self.first.target_label

    @property
    def company(self) -> Company | None:
        return self.subject.company if self.subject else self.first.company


def _subjects(keys: Iterable[tuple[str, int]]) -> dict[tuple[str, int], Subject]:
    ids: dict[str, list[int]] = {}
    for target, pk in keys:
        ids.setdefault(target, []).append(pk)
    found: dict[tuple[str, int], Subject] = {}
    for target, pks in ids.items():
        for obj in _any_state(target).filter(pk__in=pks):
            found[(target, obj.pk)] = _subject(target, obj)
    return found


def report_groups(rows: Iterable[dict[str, Any]]) -> list[ReportGroup]:
    """The groups of a page of `report_targets()`, each with its open reports (reporters
    included) and its target: one query for the reports, one per kind of target."""
    groups = {
        (row["target"], row["target_id"]): ReportGroup(
            target=row["target"],
            target_id=row["target_id"],
            first_reported_at=row["first_reported_at"],
        )
        for row in rows
    }
    if not groups:
        return []
    wanted = Q()
    for target, pk in groups:
        wanted |= Q(target=target, target_id=pk)
    reports = (
        Report.objects.filter(wanted, status=ReportStatus.OPEN)
        .select_related("reporter", "company")
        .order_by("created_at", "id")
    )
    for report in reports:
        groups[(report.target, report.target_id)].reports.append(report)
    for key, subject in _subjects(groups).items():
        groups[key].subject = subject
    return [group for group in groups.values() if group.reports]


def suspended_companies() -> QuerySet[Company]:
    """Companies suspended or banned, the latest first."""
    return Company.objects.exclude(standing=Standing.ACTIVE).order_by("-standing_changed_at", "-id")
