"""A buyer's review of the supplier it awarded a quotation to, and the supplier's reply."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tradepost.companies.models import Company
from tradepost.sourcing.models import Quotation


class ReviewStatus(models.TextChoices):
    PUBLISHED = "published", _("Published")
    #: Hidden by an operator: off the company's page and out of its average; the two
    #: companies and the operators still see it, marked.
    HIDDEN = "hidden", _("Hidden by moderation")


class Review(models.Model):
    """What a buyer company says about the supplier whose quotation it awarded: a rating
    from 1 to 5 and a text, one per award (the quotation is unique), and the supplier's one
    reply. Written only by `reviews.services`, which keeps the supplier's totals
    (`Company.review_count`, `review_rating_sum`) in the same transaction.

    The reviewing company and the award stay optional: when an operator deletes the buyer
    company (and with it its requests and their quotations) the review stays, so the
    supplier's average does not change behind its back.
    """

    quotation = models.OneToOneField(
        Quotation,
        verbose_name=_("awarded quotation"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="review",
    )
    supplier = models.ForeignKey(
        Company,
        verbose_name=_("supplier"),
        on_delete=models.CASCADE,
        related_name="reviews_received",
    )
    buyer = models.ForeignKey(
        Company,
        verbose_name=_("reviewed by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="reviews_written",
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("written by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    #: What was bought, as the request was titled when the review was written.
    request_title = models.CharField(_("buying request"), max_length=200, blank=True)
    rating = models.PositiveSmallIntegerField(_("rating"))
    text = models.TextField(_("review"))
    status = models.CharField(
        _("status"), max_length=10, choices=ReviewStatus.choices, default=ReviewStatus.PUBLISHED
    )
    hidden_reason = models.TextField(_("why it is hidden"), blank=True)
    hidden_at = models.DateTimeField(_("hidden at"), null=True, blank=True)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("hidden by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    reply = models.TextField(_("supplier's reply"), blank=True)
    reply_author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("reply written by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    replied_at = models.DateTimeField(_("replied at"), null=True, blank=True)
    reply_updated_at = models.DateTimeField(_("reply changed at"), null=True, blank=True)
    created_at = models.DateTimeField(_("written at"))

    class Meta:
        verbose_name = _("review")
        verbose_name_plural = _("reviews")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(
                fields=["supplier", "status", "-created_at"], name="review_supplier_recent"
            ),
            models.Index(fields=["status", "-created_at"], name="review_status_recent"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(rating__gte=1) & Q(rating__lte=5), name="review_rating_one_to_five"
            ),
            models.CheckConstraint(
                condition=~Q(buyer=models.F("supplier")), name="review_not_of_oneself"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rating}★ {self.supplier_id} ← {self.buyer_id}"

    @property
    def is_hidden(self) -> bool:
        return self.status == ReviewStatus.HIDDEN
