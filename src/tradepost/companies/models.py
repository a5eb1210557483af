from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from tradepost.core.chinese_scripts import convert_script


class BusinessType(models.TextChoices):
    MANUFACTURER = "manufacturer", _("Manufacturer")
    TRADING_COMPANY = "trading_company", _("Trading company")
    WHOLESALER = "wholesaler", _("Wholesaler")
    RETAILER = "retailer", _("Retailer")
    SERVICE = "service", _("Service provider")


class EmployeeRange(models.TextChoices):
    FROM_1_TO_10 = "1-10", _("1–10 employees")
    FROM_11_TO_50 = "11-50", _("11–50 employees")
    FROM_51_TO_200 = "51-200", _("51–200 employees")
    FROM_201_TO_500 = "201-500", _("201–500 employees")
    FROM_501_TO_1000 = "501-1000", _("501–1,000 employees")
    OVER_1000 = "1000+", _("Over 1,000 employees")


class Market(models.TextChoices):
    NORTH_AMERICA = "north_america", _("North America")
    SOUTH_AMERICA = "south_america", _("South America")
    WESTERN_EUROPE = "western_europe", _("Western Europe")
    EASTERN_EUROPE = "eastern_europe", _("Eastern Europe")
    MIDDLE_EAST = "middle_east", _("Middle East")
    AFRICA = "africa", _("Africa")
    EAST_ASIA = "east_asia", _("East Asia")
    SOUTHEAST_ASIA = "southeast_asia", _("Southeast Asia")
    SOUTH_ASIA = "south_asia", _("South Asia")
    OCEANIA = "oceania", _("Oceania")
    DOMESTIC = "domestic", _("Domestic market")


class Standing(models.TextChoices):
    """Whether a company may trade: suspended and banned companies are hidden from the public
    (their profile, listings and buying requests) and their members cannot act for them.
    Changed only by operators (`companies.services.company_standing_set`)."""

    ACTIVE = "active", _("Active")
    SUSPENDED = "suspended", _("Suspended")
    BANNED = "banned", _("Banned")


class Company(models.Model):
    slug = models.SlugField(max_length=80, unique=True)
    legal_name = models.CharField(_("legal name"), max_length=200)
    english_name = models.CharField(_("English name"), max_length=200, blank=True)
    original_language = models.CharField(_("profile language"), max_length=10, default="en")
    business_types = models.JSONField(_("business types"), default=list, blank=True)
    country = models.CharField(_("country"), max_length=2, db_index=True)
    province = models.CharField(_("province or state"), max_length=100, blank=True)
    city = models.CharField(_("city"), max_length=100, blank=True)
    year_established = models.PositiveSmallIntegerField(
        _("year established"), null=True, blank=True
    )
    employee_range = models.CharField(
        _("employees"), max_length=10, choices=EmployeeRange.choices, blank=True
    )
    main_markets = models.JSONField(_("main markets"), default=list, blank=True)
    main_products = models.CharField(_("main products"), max_length=500, blank=True)
    certifications = models.JSONField(_("certifications"), default=list, blank=True)
    export_share = models.PositiveSmallIntegerField(_("export share (%)"), null=True, blank=True)
    website = models.URLField(_("website"), max_length=300, blank=True)
    logo = models.ImageField(_("logo"), upload_to="logos/", blank=True)
    description = models.TextField(_("description"), blank=True)
    is_verified = models.BooleanField(_("verified"), default=False)
    is_featured = models.BooleanField(_("featured"), default=False)
    standing = models.CharField(
        _("standing"),
        max_length=10,
        choices=Standing.choices,
        default=Standing.ACTIVE,
        db_index=True,
    )
    #: Why it was suspended or banned, in the company's language (as it was told).
    standing_reason = models.TextField(_("reason for the suspension"), blank=True)
    standing_changed_at = models.DateTimeField(_("standing changed at"), null=True, blank=True)
    #: When a suspension for a time ends (the worker's timer lifts it then); empty for a
    #: suspension until an operator lifts it, a ban, or an active company.
    standing_until = models.DateTimeField(_("suspended until"), null=True, blank=True)
    #: The published reviews of the company as a supplier and the sum of their ratings (1-5),
    #: kept by `reviews.services` in the transaction that changes a review, under this row's
    #: lock, so result cards show the average without a query of their own (ADR 0025).
    review_count = models.PositiveIntegerField(_("reviews"), default=0, editable=False)
    review_rating_sum = models.PositiveIntegerField(
        _("sum of review ratings"), default=0, editable=False
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("company")
        verbose_name_plural = _("companies")
        ordering = ["legal_name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(export_share__isnull=True) | Q(export_share__lte=100),
                name="company_export_share_percent",
            ),
            # Every rating is from 1 to 5.
            models.CheckConstraint(
                condition=Q(review_rating_sum__gte=F("review_count"))
                & Q(review_rating_sum__lte=F("review_count") * 5),
                name="company_review_sum_in_range",
            ),
        ]

    def __str__(self) -> str:
        return self.display_name

    @property
    def is_suspended(self) -> bool:
        """Suspended or banned: hidden from the public, its members cannot act for it."""
        return self.standing != Standing.ACTIVE

    @property
    def review_average(self) -> Decimal | None:
        """The average rating of its published reviews, to one decimal place (None: none)."""
        if not self.review_count:
            return None
        average = Decimal(self.review_rating_sum) / Decimal(self.review_count)
        return average.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)

    @property
    def display_name(self) -> str:
        return self.legal_name

    def name_for(self, language: str) -> str:
        """The name a viewer reads: the English name for English viewers when there is one;
        a name written in the other Chinese script converted into the viewer's."""
        if language == "en" and self.english_name:
            return self.english_name
        return convert_script(self.legal_name, written_in=self.name_script(), reader=language)

    def name_script(self) -> str:
        """The language the legal name is written in (the profile's language)."""
        return (self.original_language or "en").lower()


class Role(models.TextChoices):
    OWNER = "owner", _("Owner")
    ADMIN = "admin", _("Admin")
    MEMBER = "member", _("Member")


#: The roles that may edit a company's profile, members, membership and webhooks.
MANAGING_ROLES = frozenset({Role.OWNER, Role.ADMIN})


class Membership(models.Model):
    """A person acting for a company. A person belongs to at most one company."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="membership"
    )
    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(_("role"), max_length=10, choices=Role.choices, default=Role.MEMBER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints = [
            models.UniqueConstraint(
                fields=["company"], condition=Q(role="owner"), name="one_owner_per_company"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.company} ({self.role})"

    @property
    def can_manage_company(self) -> bool:
        return self.role in MANAGING_ROLES


class Invitation(models.Model):
    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField(_("email"))
    role = models.CharField(_("role"), max_length=10, choices=Role.choices, default=Role.MEMBER)
    token_hash = models.CharField(max_length=64, unique=True)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.email} → {self.company}"
