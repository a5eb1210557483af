"""In-app notifications and each person's email preference."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class NotificationKind(models.TextChoices):
    NEW_INQUIRY = "new_inquiry", _("New inquiry")
    NEW_MESSAGE = "new_message", _("New message")
    # For the sourcing app (params: "company", "subject"):
    NEW_QUOTATION = "new_quotation", _("New quotation")
    QUOTATION_AWARDED = "quotation_awarded", _("Quotation selected")
    QUOTATION_NOT_SELECTED = "quotation_not_selected", _("Quotation not selected")
    REQUEST_MATCHED = "request_matched", _("Matching buying request")
    REQUEST_EXPIRING = "request_expiring", _("Buying request closing soon")
    # For the trust app (params: "subject", the company's name; "reason" when not approved):
    VERIFICATION_APPROVED = "verification_approved", _("Company verified")
    VERIFICATION_REJECTED = "verification_rejected", _("Verification not approved")
    # For the trust app's moderation (params: "subject", what was acted on: a listing's or a
    # request's title, a message's first words, the company's name; "reason", in the
    # company's language):
    MODERATION_HIDDEN = "moderation_hidden", _("Hidden by moderation")
    MODERATION_RESTORED = "moderation_restored", _("Shown again after moderation")
    MODERATION_WARNING = "moderation_warning", _("Warning from the operators")
    COMPANY_SUSPENDED = "company_suspended", _("Company suspended")
    COMPANY_BANNED = "company_banned", _("Company banned")
    COMPANY_REINSTATED = "company_reinstated", _("Suspension lifted")
    # For the membership app (params: "subject", the plan, and "date", in the reader's language):
    MEMBERSHIP_ENDING = "membership_ending", _("Membership ending soon")
    MEMBERSHIP_EXPIRED = "membership_expired", _("Membership ended")
    MEMBERSHIP_PAID = "membership_paid", _("Membership payment received")
    # For the reviews app (params: "company", the other company's name in the reader's
    # language; "subject", the buying request's title; "rating", 1-5, for a new review):
    REVIEW_RECEIVED = "review_received", _("New review")
    REVIEW_REPLIED = "review_replied", _("Reply to your review")
    # For the trust app's reports (params: "subject", what was reported, as it was called
    # then; "outcome", "actioned" or "dismissed"):
    REPORT_DECIDED = "report_decided", _("Your report was reviewed")
    # For the alerts app (params: "subject", the saved search's words; "count", new matches):
    ALERT_MATCHED = "alert_matched", _("New matches for a saved search")


class Notification(models.Model):
    """Something a person should look at. The text is rendered in the reader's language
    from `kind` and `params`; `link` is a site path without its language prefix."""

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(_("kind"), max_length=30, choices=NotificationKind.choices)
    params = models.JSONField(_("parameters"), default=dict, blank=True)
    link = models.CharField(_("link"), max_length=300, blank=True)
    read_at = models.DateTimeField(_("read at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"))

    class Meta:
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["recipient", "-created_at"], name="notification_recent"),
            models.Index(fields=["recipient", "read_at"], name="notification_unread"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} → {self.recipient_id}"


class NotificationPreference(models.Model):
    """A person's choices about email; no row means the defaults (emails on)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preference"
    )
    email_messages = models.BooleanField(_("email me about inquiries and messages"), default=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("notification preference")
        verbose_name_plural = _("notification preferences")

    def __str__(self) -> str:
        return f"{self.user_id}: email_messages={self.email_messages}"
