"""Trade alerts: saved searches, the listings that matched them, and the digests that told
their owners (docs/adr/0037-trade-alerts.md)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class AlertKind(models.TextChoices):
    """What a saved search looks for: the three tabs of the search page."""

    PRODUCT = "product", _("Products")
    REQUEST = "request", _("Buying requests")
    COMPANY = "company", _("Suppliers")


class Frequency(models.TextChoices):
    INSTANT = "instant", _("As it happens (at most one email an hour)")
    DAILY = "daily", _("Daily")
    WEEKLY = "weekly", _("Weekly")


class SavedSearch(models.Model):
    """A search someone asked to be told about: its words, its filters (the search page's
    parameters) and the language it was written in, for their company."""

    company = models.ForeignKey(
        "companies.Company", on_delete=models.CASCADE, related_name="saved_searches"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_searches"
    )
    kind = models.CharField(_("looks for"), max_length=10, choices=AlertKind.choices)
    query = models.CharField(_("words"), max_length=200, blank=True)
    #: The search page's filter parameters (name -> list of values), as saved.
    params = models.JSONField(_("filters"), default=dict, blank=True)
    language = models.CharField(_("language"), max_length=10)
    frequency = models.CharField(
        _("how often"), max_length=10, choices=Frequency.choices, default=Frequency.DAILY
    )
    paused = models.BooleanField(_("paused"), default=False)
    #: The words as the percolator reads them (`search.sketches.sketch_of`).
    keys = models.JSONField(_("match sketch"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True, db_index=True)
    #: When the last digest of this alert was sent (None: never).
    last_sent_at = models.DateTimeField(_("last sent at"), null=True, blank=True)
    #: Bumped by each digest claim, so that two workers never send the same digest.
    claim = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("trade alert")
        verbose_name_plural = _("trade alerts")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["company", "-created_at"], name="alert_company_recent")]

    def __str__(self) -> str:
        return f"{self.kind}: {self.query or '*'} ({self.company_id})"


class AlertMatch(models.Model):
    """One document that clearly matched one saved search: recorded once (a listing edited
    ten times is alerted once), sent in one digest."""

    alert = models.ForeignKey(SavedSearch, on_delete=models.CASCADE, related_name="matches")
    object_id = models.BigIntegerField(_("object id"))
    matched_at = models.DateTimeField(_("matched at"))
    digest = models.ForeignKey(
        "AlertDigest", on_delete=models.SET_NULL, null=True, blank=True, related_name="matches"
    )

    class Meta:
        verbose_name = _("alert match")
        verbose_name_plural = _("alert matches")
        constraints = [
            models.UniqueConstraint(fields=["alert", "object_id"], name="alert_match_once")
        ]
        indexes = [
            models.Index(
                fields=["alert", "matched_at"],
                name="alert_match_unsent",
                condition=Q(digest__isnull=True),
            ),
            models.Index(fields=["alert", "-matched_at"], name="alert_match_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.alert_id}:{self.object_id}"


class DigestStatus(models.TextChoices):
    PENDING = "pending", _("To be sent")
    SENDING = "sending", _("Handed to the mail server")
    SENT = "sent", _("Sent")
    DROPPED = "dropped", _("Not sent")


class AlertDigest(models.Model):
    """One email telling a saved search's owner of its new matches. Made (with its matches)
    in one transaction by whoever claimed the alert; the email is queued in the same one."""

    alert = models.ForeignKey(SavedSearch, on_delete=models.CASCADE, related_name="digests")
    created_at = models.DateTimeField(_("created at"))
    status = models.CharField(
        _("status"), max_length=10, choices=DigestStatus.choices, default=DigestStatus.PENDING
    )
    count = models.PositiveIntegerField(_("listings"), default=0)

    class Meta:
        verbose_name = _("alert digest")
        verbose_name_plural = _("alert digests")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.alert_id} @ {self.created_at:%Y-%m-%d %H:%M}"


class PercolationCursor(models.Model):
    """How far the percolator has read the search outbox (one row)."""

    position = models.BigIntegerField(default=0)
    #: Ids passed while the index still counted them as holes: matched once it does not.
    holes = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("percolation position")
        verbose_name_plural = _("percolation positions")

    def __str__(self) -> str:
        return f"outbox #{self.position}"
