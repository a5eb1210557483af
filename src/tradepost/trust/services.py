"""Writes of the trust app: a company sends its documents, withdraws them; an operator
approves (saying what was checked) or refuses (saying why, in the company's language).

Each function checks the actor's right itself (so pages, the API and the admin behave the
same), runs in one transaction, writes its audit entry in it, and queues its emails on commit.
Two operators deciding the same request at once: the request's row is locked and its state
read again under the lock, so the second decision is refused (`ALREADY_DECIDED`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tradepost.accounts.models import User
from tradepost.audit.services import audit_record
from tradepost.companies.models import Company, Role
from tradepost.companies.services import companies_mark
from tradepost.core.cleaning import FieldErrors, FieldInvalid, clean_choices, clean_text
from tradepost.core.languages import normalise_ui_language
from tradepost.notify.models import NotificationKind
from tradepost.notify.services import absolute_url, notification_create, queue_email
from tradepost.trust.documents import CheckedDocument, check_documents
from tradepost.trust.errors import TrustError, TrustErrorCode, VerificationNotFound
from tradepost.trust.models import (
    CheckedItem,
    VerificationDocument,
    VerificationRequest,
    VerificationStatus,
)
from tradepost.trust.selectors import manages_verification, require_operator

REASON_MAX_LENGTH = 1000
#: The page a company reads its verification on (as reversed in English, for notifications).
VERIFICATION_PAGE = "trust:verification"


# --- permissions and checks ------------------------------------------------------------------


def _require_manager(actor: Any, company: Company) -> None:
    if not manages_verification(actor, company):
        raise TrustError(
            TrustErrorCode.PERMISSION_DENIED,
            _("Only the owner and the admins of a company may do this."),
        )


def _full_clean(obj: Any) -> None:
    TrustError.clean_model(obj, code=TrustErrorCode.INVALID, validate_constraints=False)


def _already_pending() -> TrustError:
    return TrustError(
        TrustErrorCode.ALREADY_PENDING,
        _(
            "Your company's documents are already waiting for review. Withdraw that request "
            "first to send others."
        ),
    )


def _storable(text: str) -> str:
    if any("\ud800" <= char <= "\udfff" for char in text):
        raise FieldInvalid(
            _("Contains a character that cannot be stored (a NUL or an unpaired surrogate).")
        )
    return text


def _clean_reason(value: Any) -> str:
    text = clean_text(value, max_length=REASON_MAX_LENGTH, required=True, single_line=False)
    return _storable(text)


def _clean_checked(value: Any) -> list[str]:
    items = clean_choices(
        value,
        allowed=CheckedItem.values,
        message=_("“%(value)s” is not one of the items an operator can check."),
        canonical_order=True,
    )
    if not items:
        raise FieldInvalid(_("Tick at least one item you checked."))
    return items


# --- the company's side ----------------------------------------------------------------------


def _store(request: VerificationRequest, documents: list[CheckedDocument]) -> None:
    """Save each checked file under a random name, and its row; on a failure the files
    already saved are deleted again."""
    stored: list[VerificationDocument] = []
    try:
        for checked in documents:
            document = VerificationDocument(
                request=request,
                kind=checked.kind,
                original_name=checked.original_name,
                size=checked.size,
                content_type=checked.content_type,
                sha256=checked.sha256,
            )
            checked.upload.seek(0)
            document.file.save("document", checked.upload, save=False)
            stored.append(document)
            _full_clean(document)
            document.save()
    except BaseException:
        for document in stored:
            document.file.storage.delete(document.file.name or "")
        raise


@transaction.atomic
def verification_submit(
    *, actor: Any, company: Company, files: Mapping[str, Sequence[Any]]
) -> VerificationRequest:
    """Send documents for `company` to be verified (its owner or an admin): `files` by kind
    (`DocumentKind` values), 1 to 10 files in all. One request may wait at a time; a request
    may be sent again after a refusal or a withdrawal."""
    _require_manager(actor, company)
    documents = check_documents(files)
    pending = VerificationRequest.objects.filter(company=company, status=VerificationStatus.PENDING)
    if pending.exists():
        raise _already_pending()
    request = VerificationRequest(company=company, submitted_by=actor, submitted_at=timezone.now())
    _full_clean(request)
    try:
        with transaction.atomic():
            request.save()
    except IntegrityError:  # a parallel submission of the same company
        raise _already_pending() from None
    _store(request, documents)
    audit_record(
        actor=actor,
        action="verification.submit",
        target=request,
        changes={"status": [None, request.status], "documents": [None, len(documents)]},
    )
    return request


@transaction.atomic
def verification_withdraw(*, actor: Any, company: Company) -> VerificationRequest:
    """Withdraw the company's request that waits for review (its owner or an admin)."""
    _require_manager(actor, company)
    request = (
        VerificationRequest.objects.select_for_update()
        .filter(company=company, status=VerificationStatus.PENDING)
        .first()
    )
    if request is None:
        raise TrustError(
            TrustErrorCode.NOTHING_PENDING, _("No verification request is waiting for review.")
        )
    return _close(request, actor=actor, status=VerificationStatus.WITHDRAWN, action="withdraw")


# --- the operator's side ---------------------------------------------------------------------


def _locked_pending(verification: VerificationRequest) -> VerificationRequest:
    locked = (
        VerificationRequest.objects.select_for_update(of=("self",))
        .select_related("company")
        .filter(pk=verification.pk)
        .first()
    )
    if locked is None:  # its company was deleted meanwhile
        raise VerificationNotFound()
    if locked.status != VerificationStatus.PENDING:
        raise TrustError(
            TrustErrorCode.ALREADY_DECIDED,
            _("This request is no longer waiting for review: it is “%(status)s”.")
            % {"status": locked.get_status_display()},
        )
    return locked


def _close(
    request: VerificationRequest,
    *,
    actor: Any,
    status: str,
    action: str,
    decider: Any = None,
    **fields: Any,
) -> VerificationRequest:
    """Give a locked, waiting request its final `status` and `fields` (`decider`: the
    operator who decided), with its audit entry."""
    changes = {"status": [request.status, status], **{n: [None, v] for n, v in fields.items()}}
    request.status = status
    request.decided_at = timezone.now()
    request.decided_by = decider
    for name, value in fields.items():
        setattr(request, name, value)
    _full_clean(request)
    request.save(update_fields=["status", "decided_at", "decided_by", *fields])
    audit_record(actor=actor, action=f"verification.{action}", target=request, changes=changes)
    return request


@dataclass(frozen=True)
class _Decision:
    status: str
    action: str  # of the audit entry: verification.<action>
    argument: str  # the service's argument, as refusals name it
    stored_as: str  # the request's field
    cleaner: Callable[[Any], Any]


_APPROVAL = _Decision(VerificationStatus.APPROVED, "approve", "checked", "checked", _clean_checked)
_REFUSAL = _Decision(
    VerificationStatus.REJECTED, "reject", "reason", "rejection_reason", _clean_reason
)


def _decide(
    verification: VerificationRequest, *, actor: Any, decision: _Decision, value: Any
) -> VerificationRequest:
    """An operator's decision: `value` cleaned, then the request locked, found still
    waiting, and closed."""
    require_operator(actor)
    errors = FieldErrors()
    cleaned = errors.clean(decision.argument, decision.cleaner, value)
    errors.raise_if_any(TrustError, TrustErrorCode.INVALID)
    request = _locked_pending(verification)
    fields = {decision.stored_as: cleaned}
    return _close(
        request,
        actor=actor,
        status=decision.status,
        action=decision.action,
        decider=actor,
        **fields,
    )


@transaction.atomic
def verification_approve(
    *, actor: Any, verification: VerificationRequest, checked: Any
) -> VerificationRequest:
    """Approve a waiting request (operators): `checked` says what was compared with the
    documents (`CheckedItem` values, at least one). The company gets the verified mark and
    its owner and admins a notification and an email in the company's language."""
    request = _decide(verification, actor=actor, decision=_APPROVAL, value=checked)
    companies_mark(actor=actor, company_ids=[request.company_id], is_verified=True)
    request.company.refresh_from_db(fields=["is_verified"])
    _tell_company(request)
    return request


@transaction.atomic
def verification_reject(
    *, actor: Any, verification: VerificationRequest, reason: Any
) -> VerificationRequest:
    """Refuse a waiting request (operators), with the reason, written in the company's
    language; its owner and admins are notified. The company may send documents again."""
    request = _decide(verification, actor=actor, decision=_REFUSAL, value=reason)
    _tell_company(request)
    return request


# --- telling the company ---------------------------------------------------------------------


def _tell_company(request: VerificationRequest) -> None:
    """An in-app notification and an email, in the company's language, to each active owner
    and admin of the company."""
    company = request.company
    language = normalise_ui_language(company.original_language)
    approved = request.status == VerificationStatus.APPROVED
    with translation.override("en"):
        path = reverse(VERIFICATION_PAGE)
    with translation.override(language):
        link = absolute_url(reverse(VERIFICATION_PAGE))
        company_name = company.name_for(language)
    managers = User.objects.filter(
        membership__company=company,
        membership__role__in=(Role.OWNER, Role.ADMIN),
        is_active=True,
    ).order_by("pk")
    kind = (
        NotificationKind.VERIFICATION_APPROVED
        if approved
        else NotificationKind.VERIFICATION_REJECTED
    )
    params = {"subject": company_name}
    if not approved:
        params["reason"] = request.rejection_reason
    subject = (
        gettext_lazy("Your company is verified on Tradepost")
        if approved
        else gettext_lazy("Your verification request was not approved")
    )
    for manager in managers:
        notification_create(recipient=manager, kind=kind, params=params, link=path)
        queue_email(
            to=manager.email,
            subject=subject,
            template="trust_verification_decided",
            context={"verification": request, "company_name": company_name, "link": link},
            language=language,
        )
