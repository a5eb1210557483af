"""Plans (operator data), subscriptions (a row per paid period or change, kept as history),
renewal reminders (a row per reminder sent), invoices and their yearly number counters, and
the billing details a company wants on its invoices.

Written only by `membership.services`; the admin edits plans through them too.
"""

from __future__ import annotations

from datetime import date, timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tradepost.companies.models import Company
from tradepost.core.languages import normalise_ui_language

#: The benefits a plan gives, as numbers or flags (`selectors.has_benefit` reads them).
BENEFITS = (
    "monthly_quotation_quota",
    "showcase_slots",
    "early_look_minutes",
    "deeper_statistics",
    "verified_badge_eligible",
    "saved_searches",
)


class Plan(models.Model):
    """What a company may subscribe to. The default plan (Free) is the one every company is on
    without a paid period; it has no term and no price."""

    code = models.SlugField(_("code"), max_length=40, unique=True)
    name_en = models.CharField(_("name (English)"), max_length=100)
    name_zh_hans = models.CharField(_("name (Simplified Chinese)"), max_length=100)
    name_zh_hant = models.CharField(_("name (Traditional Chinese)"), max_length=100)
    price = models.DecimalField(_("price"), max_digits=12, decimal_places=2, default=0)
    currency = models.CharField(_("currency"), max_length=3, default="USD")
    #: Months a paid period lasts; empty for the default plan (forever).
    term_months = models.PositiveSmallIntegerField(_("term in months"), null=True, blank=True)
    #: Quotations a month; empty: the site's TRADEPOST_MONTHLY_QUOTE_QUOTA.
    monthly_quotation_quota = models.PositiveIntegerField(
        _("quotations a month"),
        null=True,
        blank=True,
        help_text=_("Empty: the site's standard quota (TRADEPOST_MONTHLY_QUOTE_QUOTA)."),
    )
    showcase_slots = models.PositiveSmallIntegerField(_("showcase slots"), default=0)
    early_look_minutes = models.PositiveSmallIntegerField(
        _("first look at new matching buying requests (minutes)"), default=0
    )
    deeper_statistics = models.BooleanField(_("deeper desk statistics"), default=False)
    verified_badge_eligible = models.BooleanField(
        _("verified badge once verification passes"), default=False
    )
    saved_searches = models.PositiveSmallIntegerField(
        _("trade alerts a company may keep"), default=10
    )
    is_default = models.BooleanField(_("default plan"), default=False)
    is_offered = models.BooleanField(_("offered to companies"), default=True)
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    class Meta:
        verbose_name = _("plan")
        verbose_name_plural = _("plans")
        ordering = ["position", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["is_default"], condition=Q(is_default=True), name="one_default_plan"
            ),
            models.CheckConstraint(condition=Q(price__gte=0), name="plan_price_not_negative"),
            # A paid plan has a term; the default plan is free and has none.
            models.CheckConstraint(
                condition=Q(is_default=False, term_months__gte=1, price__gt=0)
                | Q(is_default=True, term_months__isnull=True, price=0),
                name="plan_paid_has_term",
            ),
        ]

    def __str__(self) -> str:
        return self.name_en

    def name_for(self, language: str) -> str:
        names = {"zh-hans": self.name_zh_hans, "zh-hant": self.name_zh_hant}
        return names.get(normalise_ui_language(language)) or self.name_en


class SubscriptionKind(models.TextChoices):
    NEW = "new", _("New subscription")
    RENEWAL = "renewal", _("Renewal")
    UPGRADE = "upgrade", _("Upgrade")
    DOWNGRADE = "downgrade", _("Downgrade")


class SubscriptionStatus(models.TextChoices):
    PENDING = "pending", _("Awaiting payment")
    ACTIVE = "active", _("Paid")
    REPLACED = "replaced", _("Replaced by a change of plan")
    ENDED = "ended", _("Ended")
    EXPIRED = "expired", _("Expired: back on the free plan")
    CANCELLED = "cancelled", _("Not paid: withdrawn")


class Subscription(models.Model):
    """One paid period of a plan for a company, from `starts_on` up to (not including)
    `ends_on`. A new row is written for each period and each change of plan; rows are never
    deleted, so they are the company's history."""

    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="subscriptions")
    plan = models.ForeignKey(Plan, on_delete=models.PROTECT, related_name="subscriptions")
    kind = models.CharField(_("kind"), max_length=10, choices=SubscriptionKind.choices)
    status = models.CharField(
        _("status"),
        max_length=10,
        choices=SubscriptionStatus.choices,
        default=SubscriptionStatus.PENDING,
    )
    starts_on = models.DateField(_("starts on"))
    ends_on = models.DateField(_("ends on"))
    #: False once the company cancelled at the term's end.
    auto_renew = models.BooleanField(_("renews"), default=True)
    #: The period this one follows (a renewal) or replaces (a change of plan).
    previous = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(_("created at"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    activated_at = models.DateTimeField(_("paid at"), null=True, blank=True)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)

    class Meta:
        verbose_name = _("subscription")
        verbose_name_plural = _("subscriptions")
        ordering = ["-starts_on", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_on__gt=models.F("starts_on")), name="subscription_period"
            ),
            # At most one change waiting for its payment per company.
            models.UniqueConstraint(
                fields=["company"], condition=Q(status="pending"), name="one_pending_change"
            ),
        ]
        indexes = [models.Index(fields=["company", "status"], name="subscription_company")]

    def __str__(self) -> str:
        return f"{self.company} {self.plan} {self.starts_on}–{self.ends_on} ({self.status})"

    @property
    def last_day(self) -> date:
        """The period's last day (`ends_on` is the first day after it)."""
        return self.ends_on - timedelta(days=1)


class RenewalReminder(models.Model):
    """A reminder sent before a period ends (30, 7 or 1 days): the unique key makes each one
    sent once, whichever worker gets there first."""

    subscription = models.ForeignKey(
        Subscription, on_delete=models.CASCADE, related_name="reminders"
    )
    days_before = models.PositiveSmallIntegerField(_("days before the end"))
    sent_at = models.DateTimeField(_("sent at"))

    class Meta:
        verbose_name = _("renewal reminder")
        verbose_name_plural = _("renewal reminders")
        constraints = [
            models.UniqueConstraint(
                fields=["subscription", "days_before"], name="one_reminder_per_stage"
            )
        ]

    def __str__(self) -> str:
        return f"{self.subscription_id}: {self.days_before} days"


class BillingDetails(models.Model):
    """What a company wants on its invoices (an accountant's needs): copied onto each invoice
    when it is issued, so a later change leaves issued invoices as they were."""

    company = models.OneToOneField(Company, on_delete=models.CASCADE, related_name="billing")
    legal_name = models.CharField(_("legal name"), max_length=200, blank=True)
    address = models.TextField(_("address"), max_length=500, blank=True)
    country = models.CharField(_("country"), max_length=2, blank=True)
    tax_id = models.CharField(_("tax number"), max_length=50, blank=True)
    email = models.EmailField(_("billing email"), blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("billing details")
        verbose_name_plural = _("billing details")

    def __str__(self) -> str:
        return f"{self.company_id}: {self.legal_name}"


class InvoiceCounter(models.Model):
    """The last invoice number of a year. Taken under a row lock in the invoice's own
    transaction, so numbers run without gaps and never repeat."""

    year = models.PositiveSmallIntegerField(primary_key=True)
    last = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("invoice counter")
        verbose_name_plural = _("invoice counters")

    def __str__(self) -> str:
        return f"{self.year}: {self.last}"


class InvoiceStatus(models.TextChoices):
    OPEN = "open", _("Awaiting payment")
    PAID = "paid", _("Paid")
    VOID = "void", _("Void")


class Invoice(models.Model):
    """The bill for one subscription period, in its plan's currency. Amounts, period, buyer
    and seller are copied when it is issued; a void invoice keeps its number."""

    number = models.CharField(_("number"), max_length=20, unique=True)
    year = models.PositiveSmallIntegerField(_("year"))
    sequence = models.PositiveIntegerField(_("sequence"))
    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="invoices")
    subscription = models.OneToOneField(
        Subscription, on_delete=models.PROTECT, related_name="invoice"
    )
    status = models.CharField(
        _("status"), max_length=10, choices=InvoiceStatus.choices, default=InvoiceStatus.OPEN
    )
    issued_on = models.DateField(_("issued on"))
    due_on = models.DateField(_("due on"))
    period_start = models.DateField(_("period from"))
    period_end = models.DateField(_("period to"))
    currency = models.CharField(_("currency"), max_length=3)
    #: The plan's price, the credit for the unused part of the period it replaces, the total.
    price = models.DecimalField(_("price"), max_digits=12, decimal_places=2)
    credit = models.DecimalField(_("credit"), max_digits=12, decimal_places=2, default=0)
    total = models.DecimalField(_("total"), max_digits=12, decimal_places=2)
    plan_code = models.CharField(_("plan"), max_length=40)
    buyer = models.JSONField(_("buyer"), default=dict)
    seller = models.JSONField(_("seller"), default=dict)
    payment_method = models.CharField(_("payment method"), max_length=30)
    payment_reference = models.CharField(_("payment reference"), max_length=35, unique=True)
    paid_at = models.DateTimeField(_("paid at"), null=True, blank=True)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("confirmed by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(_("created at"))

    class Meta:
        verbose_name = _("invoice")
        verbose_name_plural = _("invoices")
        ordering = ["-year", "-sequence"]
        constraints = [
            models.UniqueConstraint(fields=["year", "sequence"], name="invoice_number_once"),
            models.CheckConstraint(
                condition=Q(total__gte=0, credit__gte=0, price__gte=0),
                name="invoice_amounts_not_negative",
            ),
        ]
        indexes = [models.Index(fields=["status", "issued_on"], name="invoice_awaiting")]

    def __str__(self) -> str:
        return self.number
