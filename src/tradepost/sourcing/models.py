"""Buying requests (RFQs), the quotations suppliers send against them, the quota, and the
links from conversations to the requests they are about."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from tradepost.catalog.models import Category, Unit
from tradepost.companies.models import Company
from tradepost.core.incoterms import Incoterm
from tradepost.messaging.models import Conversation


class RequestStatus(models.TextChoices):
    OPEN = "open", _("Open")
    CLOSED = "closed", _("Closed")
    AWARDED = "awarded", _("Awarded")
    EXPIRED = "expired", _("Expired")
    #: Hidden by an operator (moderation): off the board and the search; its buyer and its
    #: quoting suppliers still see it. Restored, it is open again (or expired, past its
    #: deadline).
    HIDDEN = "hidden", _("Hidden by moderation")


class QuotationStatus(models.TextChoices):
    SUBMITTED = "submitted", _("Submitted")
    SHORTLISTED = "shortlisted", _("Shortlisted")
    DECLINED = "declined", _("Declined")
    AWARDED = "awarded", _("Awarded")
    NOT_SELECTED = "not_selected", _("Not selected")


#: The states in which a quotation is still live: its supplier may revise it and add files,
#: and its buyer may shortlist, decline or award it.
REVISABLE_QUOTATION_STATES = (QuotationStatus.SUBMITTED, QuotationStatus.SHORTLISTED)


class BuyingRequest(models.Model):
    """What a buyer company wants to buy, open for quotations until its deadline."""

    buyer = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="buying_requests")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    title = models.CharField(_("title"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    original_language = models.CharField(_("request language"), max_length=10, default="en")
    category = models.ForeignKey(
        Category,
        on_delete=models.PROTECT,
        related_name="buying_requests",
        verbose_name=_("category"),
    )
    quantity = models.DecimalField(_("quantity"), max_digits=14, decimal_places=3)
    unit = models.CharField(_("unit"), max_length=12, choices=Unit.choices)
    target_unit_price = models.DecimalField(
        _("target unit price"), max_digits=14, decimal_places=4, null=True, blank=True
    )
    target_currency = models.CharField(_("currency"), max_length=3, blank=True)
    destination_country = models.CharField(_("destination country"), max_length=2)
    destination_port = models.CharField(_("destination port"), max_length=100, blank=True)
    preferred_incoterm = models.CharField(
        _("preferred Incoterm"), max_length=3, choices=Incoterm.choices, blank=True
    )
    required_certifications = models.JSONField(
        _("required certifications"), default=list, blank=True
    )
    deadline = models.DateTimeField(_("deadline for quotations"))
    sealed = models.BooleanField(_("sealed quotations"), default=False)
    reveal_identity = models.BooleanField(_("show our company name"), default=False)
    status = models.CharField(
        _("status"), max_length=10, choices=RequestStatus.choices, default=RequestStatus.OPEN
    )
    quote_limit = models.PositiveSmallIntegerField(_("quotation limit"), default=10)
    quotation_count = models.PositiveIntegerField(default=0)
    awarded_quotation = models.ForeignKey(
        "Quotation", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    closed_at = models.DateTimeField(null=True, blank=True)
    # When the buyer was told the deadline is near (the job tells each request once).
    expiring_notified_at = models.DateTimeField(null=True, blank=True, editable=False)
    # When matching suppliers were told about the new request (once per request).
    matched_notified_at = models.DateTimeField(null=True, blank=True, editable=False)
    # When the quoting suppliers were told the outcome of the award (once per request).
    award_notified_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("buying request")
        verbose_name_plural = _("buying requests")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["status", "-created_at"], name="request_status_created"),
            models.Index(fields=["status", "deadline"], name="request_status_deadline"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(quantity__gt=0), name="request_quantity_positive"),
            models.CheckConstraint(
                condition=Q(quotation_count__lte=F("quote_limit")),
                name="request_quotations_within_limit",
            ),
        ]

    def __str__(self) -> str:
        return self.title


class Quotation(models.Model):
    """One supplier company's offer against a buying request (revisable until the deadline)."""

    request = models.ForeignKey(BuyingRequest, on_delete=models.CASCADE, related_name="quotations")
    supplier = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="quotations")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    unit_price = models.DecimalField(_("unit price"), max_digits=14, decimal_places=4)
    currency = models.CharField(_("currency"), max_length=3)
    price_tiers = models.JSONField(_("price tiers"), default=list, blank=True)
    moq = models.DecimalField(_("minimum order quantity"), max_digits=14, decimal_places=3)
    lead_time_days = models.PositiveIntegerField(_("lead time (days)"))
    incoterm = models.CharField(_("Incoterm"), max_length=3, choices=Incoterm.choices)
    named_place = models.CharField(_("named place"), max_length=100, blank=True)
    payment_terms = models.JSONField(_("payment terms"), default=list, blank=True)
    valid_until = models.DateField(_("valid until"))
    sample_available = models.BooleanField(_("sample available"), default=False)
    sample_cost = models.DecimalField(
        _("sample cost"), max_digits=14, decimal_places=4, null=True, blank=True
    )
    message = models.TextField(_("message"), blank=True)
    status = models.CharField(
        _("status"),
        max_length=12,
        choices=QuotationStatus.choices,
        default=QuotationStatus.SUBMITTED,
    )
    decline_reason = models.CharField(_("reason"), max_length=500, blank=True)
    revision = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("quotation")
        verbose_name_plural = _("quotations")
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["request", "supplier"], name="one_quotation_per_supplier"
            ),
            models.CheckConstraint(condition=Q(unit_price__gt=0), name="quotation_price_positive"),
            models.CheckConstraint(condition=Q(moq__gt=0), name="quotation_moq_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.supplier_id} → {self.request_id}: {self.unit_price} {self.currency}"

    @property
    def is_revisable(self) -> bool:
        """Still live (submitted or shortlisted): the supplier may revise it, the buyer act."""
        return self.status in REVISABLE_QUOTATION_STATES


class QuoteUsage(models.Model):
    """Quotations a company has started in one calendar month (its quota counter)."""

    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="quote_usage")
    month = models.DateField(help_text="First day of the month")
    count = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("quotation usage")
        verbose_name_plural = _("quotation usage")
        constraints = [
            models.UniqueConstraint(fields=["company", "month"], name="one_usage_row_per_month")
        ]

    def __str__(self) -> str:
        return f"{self.company_id} {self.month:%Y-%m}: {self.count}"


class Attachment(models.Model):
    """A PDF or an image (specifications, drawings) of a request or of a quotation.

    Files are stored under random names and served only through an access-checked view.
    """

    request = models.ForeignKey(
        BuyingRequest, on_delete=models.CASCADE, null=True, blank=True, related_name="attachments"
    )
    quotation = models.ForeignKey(
        Quotation, on_delete=models.CASCADE, null=True, blank=True, related_name="attachments"
    )
    file = models.FileField(upload_to="sourcing/")
    original_name = models.CharField(_("file name"), max_length=200)
    content_type = models.CharField(max_length=50)
    size = models.PositiveIntegerField()
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("attachment")
        verbose_name_plural = _("attachments")
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(request__isnull=False) & Q(quotation__isnull=True))
                | (Q(request__isnull=True) & Q(quotation__isnull=False)),
                name="attachment_has_one_parent",
            )
        ]

    def __str__(self) -> str:
        return self.original_name


class RequestConversation(models.Model):
    """The buying request a conversation is about (a buyer's question on a quotation).

    The link is kept here rather than on the conversation because messaging sits below
    sourcing and knows nothing of buying requests (ADR 0015). Deleting the request deletes
    the link, not the conversation: the two companies keep what they wrote to each other.
    """

    conversation = models.OneToOneField(
        Conversation,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="request_link",
        verbose_name=_("conversation"),
    )
    request = models.ForeignKey(
        BuyingRequest,
        on_delete=models.CASCADE,
        related_name="conversation_links",
        verbose_name=_("buying request"),
    )

    class Meta:
        verbose_name = _("conversation about a buying request")
        verbose_name_plural = _("conversations about buying requests")

    def __str__(self) -> str:
        return f"{self.conversation_id} about {self.request_id}"


class MatchAlert(models.Model):
    """One supplier company to be told about a new buying request that matches its products
    (`sourcing.tasks`): a row per company, written when the request is matched, due at once
    for a plan with a first look (Gold) and `TRADEPOST_FIRST_LOOK_MINUTES` after the request
    was posted for the others (`sourcing.first_look`). The rows are the durable queue of the
    delayed alerts (the worker's timer sends those due); each is sent once, whichever worker
    gets there first: `sent_at` is claimed by a conditional UPDATE. The request itself is
    public all along, and anyone may quote on it at any time."""

    request = models.ForeignKey(
        BuyingRequest,
        on_delete=models.CASCADE,
        related_name="match_alerts",
        verbose_name=_("buying request"),
    )
    company = models.ForeignKey(
        Company, on_delete=models.CASCADE, related_name="+", verbose_name=_("supplier")
    )
    first_look = models.BooleanField(_("first look"), default=False)
    due_at = models.DateTimeField(_("due at"))
    sent_at = models.DateTimeField(_("sent at"), null=True, blank=True)
    #: People told (none when the request had closed, or the company was suspended, by then).
    recipients = models.PositiveIntegerField(_("people told"), default=0)
    created_at = models.DateTimeField(_("created at"))

    class Meta:
        verbose_name = _("matching request alert")
        verbose_name_plural = _("matching request alerts")
        ordering = ["due_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["request", "company"], name="one_match_alert_per_company"
            )
        ]
        indexes = [
            models.Index(
                fields=["due_at"], condition=Q(sent_at__isnull=True), name="match_alert_due"
            )
        ]

    def __str__(self) -> str:
        return f"{self.request_id} → {self.company_id} ({self.due_at:%Y-%m-%d %H:%M})"
