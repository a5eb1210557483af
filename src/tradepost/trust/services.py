"""Writes of the trust app: a company sends its documents, withdraws them; an operator
approves (saying what was checked) or refuses (saying why, in the company's language).
Anybody signed in reports a listing, a company, a buying request or a message; an operator
hides or restores it, warns, suspends or bans the company behind it (or lifts that), or
dismisses the reports (docs/adr/0022-reports-and-moderation.md).

Each function checks the actor's right itself (so pages, the API and the admin behave the
same), runs in one transaction, writes its audit entry in it, and queues its emails on commit.
Two operators deciding the same request at once: the request's row is locked and its state
read again under the lock, so the second decision is refused (`ALREADY_DECIDED`); the same
holds for two decisions on the reports of one target (`REPORT_DECIDED`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any, TypedDict, Unpack

from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tradepost.accounts.models import User
from tradepost.accounts.selectors import require_operator
from tradepost.accounts.throttle import throttle, throttle_key
from tradepost.audit.services import audit_record
from tradepost.catalog.services import product_hide, product_restore
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company, Standing
from tradepost.companies.selectors import company_managers, suspensions_due
from tradepost.companies.services import companies_mark, company_standing_set, suspension_end
from tradepost.core.cleaning import (
    FieldErrors,
    FieldInvalid,
    clean_choice,
    clean_choices,
    clean_text,
    clean_whole_number,
    refuse_unstorable,
)
from tradepost.core.errors import DomainError, ErrorKind
from tradepost.core.languages import normalise_ui_language
from tradepost.messaging.services import message_hide, message_restore
from tradepost.notify.models import NotificationKind
from tradepost.notify.services import link_in, notification_create, queue_email
from tradepost.reviews.services import review_hide, review_restore
from tradepost.sourcing.services import request_hide, request_restore
from tradepost.trust.documents import CheckedDocument, check_documents
from tradepost.trust.errors import (
    ReportNotFound,
    TrustError,
    TrustErrorCode,
    VerificationNotFound,
)
from tradepost.trust.models import (
    CheckedItem,
    ModerationAction,
    Report,
    ReportReason,
    ReportStatus,
    ReportTarget,
    VerificationDocument,
    VerificationRequest,
    VerificationStatus,
)
from tradepost.trust.selectors import (
    Subject,
    manages_verification,
    moderation_target,
    reportable,
)

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


def _clean_reason(value: Any) -> str:
    text = clean_text(value, max_length=REASON_MAX_LENGTH, required=True, single_line=False)
    return refuse_unstorable(text)


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
        link = link_in(language, VERIFICATION_PAGE)
        company_name = company.name_for(language)
    managers = company_managers(company.pk)
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


# --- reports ---------------------------------------------------------------------------------

NOTE_MAX_LENGTH = 1000
#: A person's reports are counted by the one rate limiter (`accounts.throttle`) under this
#: action, over this window.
REPORT_THROTTLE_ACTION = "reports"
REPORT_WINDOW = timedelta(days=1)
REPORTER_KEY = "reporter"


class ReportFields(TypedDict, total=False):
    """What a report takes (the web form and the API body send exactly these)."""

    target: str  # a ReportTarget value
    target_id: int
    reason: str  # a ReportReason value
    note: str


REPORT_FIELDS = frozenset(ReportFields.__annotations__)


def reports_per_day() -> int:
    """Reports one person may send in 24 hours (TRADEPOST_REPORTS_PER_DAY)."""
    return settings.TRADEPOST_REPORTS_PER_DAY


def reporter_throttle_key(actor: Any) -> str:
    """The throttle's key for `actor`'s reports."""
    return throttle_key(REPORTER_KEY, str(actor.pk))


def _clean_note(value: Any) -> str:
    return refuse_unstorable(clean_text(value, max_length=NOTE_MAX_LENGTH, single_line=False))


def _clean_target(value: Any) -> str:
    return clean_choice(
        value,
        allowed=ReportTarget.values,
        required=True,
        message=_("Report a listing, a company, a buying request or a message."),
    )


def _clean_reason_choice(value: Any, *, required: bool = True) -> str:
    return clean_choice(
        value,
        allowed=ReportReason.values,
        required=required,
        message=_("Choose one of the reasons in the list."),
    )


def _clean_report(fields: Mapping[str, Any]) -> dict[str, Any]:
    errors = FieldErrors()
    cleaned = {
        "target": errors.clean("target", _clean_target, fields.get("target")),
        "reason": errors.clean("reason", _clean_reason_choice, fields.get("reason")),
        "note": errors.clean("note", _clean_note, fields.get("note")),
    }
    errors.raise_if_any(TrustError, TrustErrorCode.INVALID)
    return cleaned


def _already_reported() -> TrustError:
    return TrustError(
        TrustErrorCode.REPORT_DUPLICATE,
        _("You have already reported this. Thank you: an operator will look at it."),
    )


def _lock_reporter(actor: Any) -> None:
    """Serialise one person's reports: the reporter's row locked (on PostgreSQL; SQLite's
    write transactions run one at a time), so that parallel reports can neither pass the
    daily limit together nor both be the open report of one target."""
    User.objects.select_for_update(no_key=True).filter(pk=actor.pk).values_list("pk").first()


def _count_report(actor: Any) -> None:
    """Count one report of the actor with the one rate limiter, or refuse it when the last 24
    hours already hold `reports_per_day()`. Called after `_lock_reporter`, in the report's
    transaction, once the report is sure to be written: in the database store the count
    commits or rolls back with it, and a report refused for another reason counts nothing."""
    answer = throttle(
        action=REPORT_THROTTLE_ACTION,
        limits=[(reporter_throttle_key(actor), reports_per_day())],
        window=REPORT_WINDOW,
    )
    if not answer:
        raise TrustError(
            TrustErrorCode.REPORT_RATE_LIMIT,
            _("You have sent %(limit)d reports in the last 24 hours. Please try again later.")
            % {"limit": answer.limit},
        )


def _refuse_own(actor: Any, subject: Subject) -> None:
    if actor_for(actor).company_id == subject.company.pk:
        raise TrustError(
            TrustErrorCode.REPORT_OWN_COMPANY,
            _("You cannot report your own company or what it published."),
        )


@transaction.atomic
def report_submit(*, actor: Any, **fields: Unpack[ReportFields]) -> Report:
    """Report what the actor (anybody signed in) can see: `target` and `target_id` name it,
    `reason` says what is wrong, `note` (at most 1,000 characters) adds detail. One open
    report per person and target (a second is refused as already reported), at most
    `reports_per_day()` a day; a company's own things are not reported by its members."""
    if not getattr(actor, "is_authenticated", False) or not actor.is_active:
        raise TrustError(TrustErrorCode.PERMISSION_DENIED, _("Sign in to report something."))
    cleaned = _clean_report(fields)
    subject = reportable(user=actor, target=cleaned["target"], target_id=fields.get("target_id"))
    _refuse_own(actor, subject)
    _lock_reporter(actor)
    duplicate = Report.objects.filter(
        reporter=actor, target=subject.target, target_id=subject.target_id, status=ReportStatus.OPEN
    )
    if duplicate.exists():
        raise _already_reported()
    report = Report(
        reporter=actor,
        target=subject.target,
        target_id=subject.target_id,
        company=subject.company,
        target_label=subject.label[:300],
        reason=cleaned["reason"],
        note=cleaned["note"],
        created_at=timezone.now(),
    )
    _full_clean(report)
    _count_report(actor)
    try:
        with transaction.atomic():
            report.save()
    except IntegrityError:  # the same person's parallel report of the same target
        raise _already_reported() from None
    return report


# --- moderation ------------------------------------------------------------------------------

#: Actions on the target itself; the others concern the company behind it.
_ON_TARGET = frozenset({ModerationAction.HIDE, ModerationAction.RESTORE})
#: Actions the company is told why about (the reason is then required).
_NEEDS_REASON = frozenset(
    {ModerationAction.HIDE, ModerationAction.WARN, ModerationAction.SUSPEND, ModerationAction.BAN}
)
_STANDINGS: dict[str, str] = {
    ModerationAction.SUSPEND: Standing.SUSPENDED,
    ModerationAction.BAN: Standing.BANNED,
    ModerationAction.LIFT: Standing.ACTIVE,
}
#: (actor, the object, what the company is told) -> the object as it is after.
_HIDE: dict[str, Callable[[Any, Any, str], Any]] = {
    ReportTarget.PRODUCT: lambda actor, obj, told: product_hide(actor=actor, product=obj),
    ReportTarget.REQUEST: lambda actor, obj, told: request_hide(actor=actor, buying_request=obj),
    ReportTarget.MESSAGE: lambda actor, obj, told: message_hide(actor=actor, message=obj),
    ReportTarget.REVIEW: lambda actor, obj, told: (
        review_hide(actor=actor, review=obj, reason=told).review
    ),
}
_RESTORE: dict[str, Callable[[Any, Any, str], Any]] = {
    ReportTarget.PRODUCT: lambda actor, obj, told: product_restore(actor=actor, product=obj),
    ReportTarget.REQUEST: lambda actor, obj, told: request_restore(actor=actor, buying_request=obj),
    ReportTarget.MESSAGE: lambda actor, obj, told: message_restore(actor=actor, message=obj),
    ReportTarget.REVIEW: lambda actor, obj, told: review_restore(actor=actor, review=obj).review,
}


@dataclass(frozen=True)
class Moderation:
    """What an operator did: the target as it is now, the action, and whether anything
    changed (hiding what is hidden changes nothing and tells nobody)."""

    subject: Subject
    action: str
    changed: bool


@dataclass(frozen=True)
class _ModerationInput:
    action: str
    reason: str  # a ReportReason value, or ""
    message: str  # the operator's words to the company, or ""
    days: int | None = None  # a suspension's length; None: until an operator lifts it

    @property
    def until(self) -> Any:
        return None if self.days is None else timezone.now() + timedelta(days=self.days)


#: The longest suspension for a time, in days (a longer one is a suspension until lifted).
SUSPENSION_MAX_DAYS = 365


def _clean_moderation(
    action: Any, reason: Any, message: Any, *, on_reports: bool, days: Any = None
) -> _ModerationInput:
    errors = FieldErrors()
    allowed = [v for v in ModerationAction.values if on_reports or v != ModerationAction.DISMISS]
    chosen = errors.clean(
        "action",
        clean_choice,
        action,
        allowed=allowed,
        required=True,
        message=_("Choose one of the actions in the list."),
    )
    why = errors.clean("reason", _clean_reason_choice, reason, required=chosen in _NEEDS_REASON)
    words = errors.clean("message", _clean_note, message)
    length = errors.clean(
        "days",
        clean_whole_number,
        days,
        low=1,
        high=SUSPENSION_MAX_DAYS,
        range_message=_("A suspension lasts from %(low)d to %(high)d days."),
    )
    if length is not None and chosen and chosen != ModerationAction.SUSPEND:
        errors.add("days", _("Only a suspension can last a number of days."))
    errors.raise_if_any(TrustError, TrustErrorCode.INVALID)
    return _ModerationInput(chosen or "", why or "", words or "", length)


def _check_fits(subject: Subject, action: str) -> None:
    if action in _ON_TARGET and subject.target == ReportTarget.COMPANY:
        raise TrustError(
            TrustErrorCode.INVALID,
            _("A company is not hidden: suspend or ban it, and lift that to show it again."),
            field="action",
        )


def _as_trust_error(refused: DomainError) -> TrustError:
    """Another app's refusal of a moderation step, as the trust app's."""
    if refused.kind is ErrorKind.NOT_FOUND:
        return ReportNotFound(TrustErrorCode.TARGET_NOT_FOUND)
    return TrustError(TrustErrorCode.MODERATION_REFUSED, refused.message)


def _act(actor: Any, subject: Subject, decision: _ModerationInput, told: str) -> Moderation:
    """Do `decision.action` to the subject (or its company): the subject as it is after,
    and whether anything changed."""
    action = decision.action
    try:
        if action in _ON_TARGET:
            acting = _HIDE if action == ModerationAction.HIDE else _RESTORE
            after = replace(subject, obj=acting[subject.target](actor, subject.obj, told))
            return Moderation(after, action, changed=after.hidden != subject.hidden)
        if action in _STANDINGS:
            company, changed = company_standing_set(
                actor=actor,
                company=subject.company,
                standing=_STANDINGS[action],
                reason=told,
                until=decision.until if action == ModerationAction.SUSPEND else None,
            )
            about_company = subject.target == ReportTarget.COMPANY
            after = replace(subject, company=company, obj=company if about_company else subject.obj)
            return Moderation(after, action, changed=changed)
    except TrustError:
        raise
    except DomainError as refused:
        raise _as_trust_error(refused) from None
    audit_record(  # a warning changes nothing but what the company was told
        actor=actor,
        action="company.warn",
        target=subject.company,
        changes={"warning": [None, told], "about": [None, f"{subject.target} {subject.target_id}"]},
    )
    return Moderation(subject, action, changed=True)


def _moderate(actor: Any, subject: Subject, decision: _ModerationInput) -> Moderation:
    """Act, then tell the company (in its language) when something changed."""
    _check_fits(subject, decision.action)
    language = normalise_ui_language(subject.company.original_language)
    with translation.override(language):
        reason = str(ReportReason(decision.reason).label) if decision.reason else ""
    told = "\n\n".join(part for part in (reason, decision.message) if part)
    done = _act(actor, subject, decision, told)
    if done.changed:
        _tell_moderation(done.subject, decision, reason=reason, language=language)
    return done


@transaction.atomic
def moderation_apply(
    *,
    actor: Any,
    target: Any,
    target_id: Any,
    action: Any,
    reason: Any = "",
    message: Any = "",
    days: Any = None,
) -> Moderation:
    """An operator's action on any listing, company, buying request or message, reported or
    not: hide or restore it (not a company), warn, suspend or ban the company behind it, or
    lift its suspension or ban. `reason` (a `ReportReason` value) is required to hide, warn,
    suspend and ban; `message` (at most 1,000 characters) is added to what the company is
    told; `days` (1-365, suspensions only) ends a suspension by itself after that many days
    (`suspensions_lift_due`). Audited; the company's owner and admins are told in the
    company's language."""
    require_operator(actor)
    errors = FieldErrors()
    kind = errors.clean("target", _clean_target, target)
    errors.raise_if_any(TrustError, TrustErrorCode.INVALID)
    decision = _clean_moderation(action, reason, message, on_reports=False, days=days)
    subject = moderation_target(user=actor, target=kind or "", target_id=target_id)
    return _moderate(actor, subject, decision)


def _locked_open_reports(report: Report) -> list[Report]:
    """Every open report on the report's target, row-locked in id order (so two decisions
    on one target queue behind each other); `REPORT_DECIDED` when `report` is not open."""
    reports = list(
        Report.objects.select_for_update()
        .filter(target=report.target, target_id=report.target_id, status=ReportStatus.OPEN)
        .order_by("pk")
    )
    if report.pk not in {item.pk for item in reports}:
        current = Report.objects.filter(pk=report.pk).first()
        if current is None:
            raise ReportNotFound()
        raise TrustError(
            TrustErrorCode.REPORT_DECIDED,
            _("These reports were already decided (“%(action)s”).")
            % {"action": current.get_action_display()},
        )
    return reports


@transaction.atomic
def report_decide(
    *,
    actor: Any,
    report: Report,
    action: Any,
    reason: Any = "",
    message: Any = "",
    days: Any = None,
) -> Report:
    """An operator's decision on a report, and so on every open report on its target: an
    action of `moderation_apply` (`reason` defaults to the report's), or `dismiss` (nothing
    is done, the company is not told). Each report closed is audited (`report.action`,
    `report.dismiss`), and each reporter is told in the app that their report was reviewed
    and whether it was acted on (not which action). A report already decided is refused
    (`REPORT_DECIDED`)."""
    require_operator(actor)
    decision = _clean_moderation(
        action, reason or report.reason, message, on_reports=True, days=days
    )
    reports = _locked_open_reports(report)
    if decision.action != ModerationAction.DISMISS:
        subject = moderation_target(user=actor, target=report.target, target_id=report.target_id)
        _moderate(actor, subject, decision)
    dismissed = decision.action == ModerationAction.DISMISS
    status = ReportStatus.DISMISSED if dismissed else ReportStatus.ACTIONED
    for item in reports:
        audit_record(
            actor=actor,
            action="report.dismiss" if dismissed else "report.action",
            target=item,
            changes={"status": [item.status, status], "action": [None, decision.action]},
        )
    Report.objects.filter(pk__in=[item.pk for item in reports]).update(
        status=status,
        decided_at=timezone.now(),
        decided_by=actor,
        action=decision.action,
        decision_note=decision.message,
    )
    _tell_reporters(reports, status)
    report.refresh_from_db()
    return report


def _tell_reporters(reports: Sequence[Report], status: str) -> None:
    """An in-app notification to each reporter still active: their report was reviewed, and
    acted on or dismissed (rendered in the reader's language)."""
    reporters = User.objects.filter(
        pk__in=[item.reporter_id for item in reports], is_active=True
    ).in_bulk()
    for item in reports:
        if item.reporter_id not in reporters:
            continue
        notification_create(
            recipient=reporters[item.reporter_id],
            kind=NotificationKind.REPORT_DECIDED,
            params={"subject": item.target_label, "outcome": status},
            link="",
        )


# --- telling the company of a moderation action ------------------------------------------------

_NOTICE_KINDS: dict[str, str] = {
    ModerationAction.HIDE: NotificationKind.MODERATION_HIDDEN,
    ModerationAction.RESTORE: NotificationKind.MODERATION_RESTORED,
    ModerationAction.WARN: NotificationKind.MODERATION_WARNING,
    ModerationAction.SUSPEND: NotificationKind.COMPANY_SUSPENDED,
    ModerationAction.BAN: NotificationKind.COMPANY_BANNED,
    ModerationAction.LIFT: NotificationKind.COMPANY_REINSTATED,
}
_NOTICE_SUBJECTS: dict[str, Any] = {
    ModerationAction.HIDE: gettext_lazy("Tradepost has hidden something your company published"),
    ModerationAction.RESTORE: gettext_lazy("Tradepost no longer hides what your company published"),
    ModerationAction.WARN: gettext_lazy("A warning from Tradepost"),
    ModerationAction.SUSPEND: gettext_lazy("Your company is suspended on Tradepost"),
    ModerationAction.BAN: gettext_lazy("Your company is banned from Tradepost"),
    ModerationAction.LIFT: gettext_lazy("Your company's suspension on Tradepost is lifted"),
}
_TARGET_PAGES: dict[str, str] = {
    ReportTarget.PRODUCT: "products:update",
    ReportTarget.REQUEST: "sourcing:request_detail",
    ReportTarget.MESSAGE: "messaging:detail",
}


def _notice_page(subject: Subject, action: str) -> tuple[str, list[int]]:
    """The page the notice links to: the thing acted on, or the dashboard."""
    if action in _STANDINGS or subject.target == ReportTarget.COMPANY:
        return "accounts:dashboard", []
    if subject.target == ReportTarget.MESSAGE:
        return _TARGET_PAGES[subject.target], [subject.obj.conversation_id]
    if subject.target == ReportTarget.REVIEW:  # the reviewed supplier's reviews page
        return "reviews:company_reviews", [subject.obj.supplier.slug]
    return _TARGET_PAGES[subject.target], [subject.target_id]


def _tell_moderation(
    subject: Subject, decision: _ModerationInput, *, reason: str, language: str
) -> None:
    """An in-app notification and an email, in the company's language, to each active owner
    and admin of the company behind the subject."""
    company = subject.company
    page, args = _notice_page(subject, decision.action)
    with translation.override("en"):
        path = reverse(page, args=args)
    until = company.standing_until if decision.action == ModerationAction.SUSPEND else None
    with translation.override(language):
        link = link_in(language, page, args=args)
        company_name = company.name_for(language)
        what = str(ReportTarget(subject.target).label)
        until_text = date_format(timezone.localtime(until), "DATETIME_FORMAT") if until else ""
    about_company = decision.action in _STANDINGS or subject.target == ReportTarget.COMPANY
    label = company_name if about_company else subject.label
    context = {
        "action": decision.action,
        "kind_of_thing": what,
        "label": label,
        "company_name": company_name,
        "reason": reason,
        "message": decision.message,
        "link": link,
        "until": until_text,
    }
    for manager in company_managers(company.pk):
        notification_create(
            recipient=manager,
            kind=_NOTICE_KINDS[decision.action],
            params={"subject": label, "reason": reason, **({"date": until_text} if until else {})},
            link=path,
        )
        queue_email(
            to=manager.email,
            subject=_NOTICE_SUBJECTS[decision.action],
            template="trust_moderation",
            context=context,
            language=language,
        )


# --- suspensions for a time ----------------------------------------------------------------------


def suspensions_lift_due(*, now: Any = None) -> int:
    """Lift every suspension whose time is up (the worker's timer), each in its own
    transaction, audited as the system's and told to the company as an operator's lift is.
    Answers how many were lifted."""
    lifted = 0
    for company_id in suspensions_due(now):
        with transaction.atomic():
            company = suspension_end(company_id=company_id, now=now)
            if company is None:  # an operator acted first
                continue
            subject = Subject(
                ReportTarget.COMPANY, company.pk, company, company, company.legal_name
            )
            language = normalise_ui_language(company.original_language)
            _tell_moderation(
                subject,
                _ModerationInput(ModerationAction.LIFT, "", ""),
                reason="",
                language=language,
            )
            lifted += 1
    return lifted
