"""A company's request to be verified, the documents it sent, and the operator's decision."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tradepost.companies.models import Company
from tradepost.trust.storage import document_path, private_documents


class VerificationStatus(models.TextChoices):
    PENDING = "pending", _("Waiting for review")
    APPROVED = "approved", _("Approved")
    REJECTED = "rejected", _("Not approved")
    WITHDRAWN = "withdrawn", _("Withdrawn")


class DocumentKind(models.TextChoices):
    BUSINESS_LICENCE = "business_licence", _("Business licence")
    EXPORT_LICENCE = "export_licence", _("Export licence")
    CERTIFICATION = "certification", _("Certification")
    OTHER = "other", _("Other document")


class CheckedItem(models.TextChoices):
    """What an operator compared between the documents and the company's profile."""

    LEGAL_NAME = "legal_name", _("Legal name")
    REGISTRATION_NUMBER = "registration_number", _("Registration number")
    ADDRESS = "address", _("Address")
    EXPORT_LICENCE = "export_licence", _("Export licence")
    CERTIFICATIONS = "certifications", _("Listed certifications")


class VerificationRequest(models.Model):
    """Documents a company sent to be verified, and what an operator decided.

    A company has at most one request waiting at a time (a unique constraint); a decided or
    withdrawn request stays as history. Written only by `trust.services`.
    """

    company = models.ForeignKey(
        Company, on_delete=models.CASCADE, related_name="verification_requests"
    )
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    status = models.CharField(
        _("status"),
        max_length=10,
        choices=VerificationStatus.choices,
        default=VerificationStatus.PENDING,
    )
    submitted_at = models.DateTimeField(_("submitted at"))
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("decided by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    #: The `CheckedItem` values the operator checked before approving.
    checked = models.JSONField(_("checked"), default=list, blank=True)
    #: Why it was not approved, written by the operator in the company's language.
    rejection_reason = models.TextField(_("reason"), blank=True)

    class Meta:
        verbose_name = _("verification request")
        verbose_name_plural = _("verification requests")
        ordering = ["-submitted_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["company"],
                condition=Q(status="pending"),
                name="one_pending_verification_per_company",
            )
        ]
        indexes = [models.Index(fields=["status", "submitted_at"], name="verification_queue")]

    def __str__(self) -> str:
        return f"{self.company} ({self.status}, {self.submitted_at:%Y-%m-%d})"

    @property
    def checked_labels(self) -> list[str]:
        """What was checked, in the active language, in the list's order."""
        return [str(item.label) for item in CheckedItem if item.value in (self.checked or [])]


class VerificationDocument(models.Model):
    """One file of a request: a PDF, JPEG or PNG (its type checked from its content), stored
    under a random name in the private storage."""

    request = models.ForeignKey(
        VerificationRequest, on_delete=models.CASCADE, related_name="documents"
    )
    kind = models.CharField(_("kind"), max_length=20, choices=DocumentKind.choices)
    file = models.FileField(upload_to=document_path, storage=private_documents, max_length=200)
    original_name = models.CharField(_("file name"), max_length=200)
    size = models.PositiveIntegerField(_("size in bytes"))
    content_type = models.CharField(_("type"), max_length=40)
    sha256 = models.CharField(_("SHA-256"), max_length=64)

    class Meta:
        verbose_name = _("verification document")
        verbose_name_plural = _("verification documents")
        ordering = ["id"]

    def __str__(self) -> str:
        return self.original_name


# --- reports and moderation ------------------------------------------------------------------


class ReportTarget(models.TextChoices):
    """What a report is about; its id is the product's, company's, request's, message's or
    review's."""

    PRODUCT = "product", _("Listing")
    COMPANY = "company", _("Company")
    REQUEST = "request", _("Buying request")
    MESSAGE = "message", _("Message")
    REVIEW = "review", _("Review")


class ReportReason(models.TextChoices):
    PROHIBITED = "prohibited", _("Prohibited item")
    COUNTERFEIT = "counterfeit", _("Counterfeit")
    FRAUD = "fraud", _("Fraud or scam")
    MISLEADING = "misleading", _("Misleading")
    OFFENSIVE = "offensive", _("Offensive")
    SPAM = "spam", _("Spam")
    OTHER = "other", _("Other")


class ReportStatus(models.TextChoices):
    OPEN = "open", _("Waiting for an operator")
    ACTIONED = "actioned", _("Acted on")
    DISMISSED = "dismissed", _("Dismissed")


class ModerationAction(models.TextChoices):
    """What an operator does about a report's target (or, for warn, suspend, ban and lift,
    about the company behind it); dismissing closes the reports without acting."""

    HIDE = "hide", _("Hide it")
    RESTORE = "restore", _("Show it again")
    WARN = "warn", _("Warn the company")
    SUSPEND = "suspend", _("Suspend the company")
    BAN = "ban", _("Ban the company")
    LIFT = "lift", _("Lift the company's suspension or ban")
    DISMISS = "dismiss", _("Dismiss the reports")


class Report(models.Model):
    """Somebody signed in says a listing, a company, a buying request or a message breaks the
    rules. A person has at most one open report per target (a unique constraint); an
    operator's decision closes every open report on the target at once. Written only by
    `trust.services`."""

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("reported by"),
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
    )
    target = models.CharField(_("about"), max_length=10, choices=ReportTarget.choices)
    target_id = models.PositiveBigIntegerField(_("id of what is reported"))
    #: The company behind the target (the listing's, the request's buyer, the message's
    #: sender), whom warnings, suspensions and bans concern.
    company = models.ForeignKey(
        Company,
        verbose_name=_("company"),
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
    )
    #: What the target was called when it was reported (a title, a name, a message's start).
    target_label = models.CharField(_("reported"), max_length=300, blank=True)
    reason = models.CharField(_("reason"), max_length=12, choices=ReportReason.choices)
    note = models.TextField(_("note"), blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=ReportStatus.choices, default=ReportStatus.OPEN
    )
    created_at = models.DateTimeField(_("reported at"))
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("decided by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    action = models.CharField(
        _("action taken"), max_length=10, choices=ModerationAction.choices, blank=True
    )
    #: What the operator wrote to the company with the action (may be empty).
    decision_note = models.TextField(_("operator's message"), blank=True)

    class Meta:
        verbose_name = _("report")
        verbose_name_plural = _("reports")
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["reporter", "target", "target_id"],
                condition=Q(status="open"),
                name="one_open_report_per_reporter_and_target",
            )
        ]
        indexes = [
            models.Index(fields=["status", "created_at"], name="report_queue"),
            models.Index(fields=["target", "target_id", "status"], name="report_target"),
            models.Index(fields=["reporter", "created_at"], name="report_reporter_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.get_target_display()} {self.target_id}: {self.get_reason_display()}"
