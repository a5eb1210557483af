"""A company's webhook endpoints, the events recorded for them (the outbox) and each event's
delivery to each endpoint (the delivery log). Written only by `webhooks.services` and
`webhooks.outbox` (docs/adr/0028-webhooks.md)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tradepost.companies.models import Company

#: The longest endpoint address accepted.
URL_MAX_LENGTH = 2000
#: The longest error kept of a failed attempt.
ERROR_MAX_LENGTH = 500


class DisabledReason(models.TextChoices):
    """Why an endpoint is switched off ("" while it is on)."""

    NONE = "", _("Active")
    MANUAL = "manual", _("Switched off by the company")
    FAILURES = "failures", _("Switched off after repeated failures")


class WebhookEndpoint(models.Model):
    """An address of a company's system that is told of the events it subscribed to.

    The signing secret is not stored: it is derived from the site's webhook key and
    `secret_salt` (a random value; `webhooks.signing.endpoint_secret`), so a copy of the
    database alone gives no secret away. A rotation draws a new salt and keeps the old one
    signing beside it until `previous_secret_expires_at`.
    """

    company = models.ForeignKey(
        Company,
        verbose_name=_("company"),
        on_delete=models.CASCADE,
        related_name="webhook_endpoints",
    )
    url = models.CharField(_("address (URL)"), max_length=URL_MAX_LENGTH)
    description = models.CharField(_("description"), max_length=200, blank=True)
    #: The event types (`core.events.EventType`) sent to it.
    events = models.JSONField(_("events"), default=list)
    is_active = models.BooleanField(_("active"), default=True)
    disabled_reason = models.CharField(
        _("why it is switched off"),
        max_length=10,
        choices=DisabledReason.choices,
        default=DisabledReason.NONE,
        blank=True,
    )
    disabled_at = models.DateTimeField(_("switched off at"), null=True, blank=True)
    secret_salt = models.CharField(max_length=64, editable=False)
    previous_secret_salt = models.CharField(max_length=64, blank=True, editable=False)
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True, editable=False)
    secret_rotated_at = models.DateTimeField(_("secret changed at"), null=True, blank=True)
    #: Deliveries that failed for good in a row (every attempt spent); 0 after a success.
    consecutive_failures = models.PositiveIntegerField(_("failures in a row"), default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("webhook endpoint")
        verbose_name_plural = _("webhook endpoints")
        ordering = ["company_id", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(is_active=True, disabled_reason="")
                | Q(is_active=False) & ~Q(disabled_reason=""),
                name="webhook_endpoint_disabled_has_reason",
            )
        ]

    def __str__(self) -> str:
        return self.url


class WebhookEvent(models.Model):
    """One event for one company, as it is sent: `body` is the exact JSON every delivery
    sends (and signs), so a redelivery sends the same bytes with the same `event_id`."""

    event_id = models.UUIDField(_("event id"), default=uuid.uuid4, unique=True, editable=False)
    company = models.ForeignKey(
        Company,
        verbose_name=_("company"),
        on_delete=models.CASCADE,
        related_name="webhook_events",
    )
    type = models.CharField(_("event type"), max_length=40)
    version = models.PositiveSmallIntegerField(_("payload version"), default=1)
    body = models.TextField(_("body"))
    created_at = models.DateTimeField(_("created at"), db_index=True)

    class Meta:
        verbose_name = _("webhook event")
        verbose_name_plural = _("webhook events")
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.type} {self.event_id}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", _("Waiting")
    SUCCEEDED = "succeeded", _("Delivered")
    FAILED = "failed", _("Failed")
    #: The endpoint was switched off (or removed from the event) before it was delivered.
    CANCELLED = "cancelled", _("Not sent")


class WebhookDelivery(models.Model):
    """One event sent to one endpoint: its attempts and the answer to the last one.

    A pending delivery is due at `next_attempt_at`. An attempt first claims the row by a
    conditional UPDATE that moves `next_attempt_at` past the attempt's longest duration, so
    two workers never send it at once, and a worker killed in the middle leaves it due again
    when that lease ends: the worker's timer sends it then (at least once).
    """

    event = models.ForeignKey(
        WebhookEvent,
        verbose_name=_("event"),
        on_delete=models.CASCADE,
        related_name="deliveries",
    )
    endpoint = models.ForeignKey(
        WebhookEndpoint,
        verbose_name=_("endpoint"),
        on_delete=models.CASCADE,
        related_name="deliveries",
    )
    status = models.CharField(
        _("status"),
        max_length=10,
        choices=DeliveryStatus.choices,
        default=DeliveryStatus.PENDING,
    )
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    next_attempt_at = models.DateTimeField(_("next attempt"), null=True, blank=True)
    last_attempt_at = models.DateTimeField(_("last attempt"), null=True, blank=True)
    delivered_at = models.DateTimeField(_("delivered at"), null=True, blank=True)
    response_status = models.PositiveSmallIntegerField(_("response code"), null=True, blank=True)
    response_ms = models.PositiveIntegerField(_("response time (ms)"), null=True, blank=True)
    last_error = models.CharField(_("last error"), max_length=ERROR_MAX_LENGTH, blank=True)
    #: Sent again by hand (a new delivery of the same event).
    manual = models.BooleanField(_("sent by hand"), default=False)
    created_at = models.DateTimeField(_("created at"))

    class Meta:
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(status="pending"),
                name="webhook_delivery_due",
            ),
            models.Index(fields=["endpoint", "-created_at"], name="webhook_delivery_log"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~Q(status="pending") | Q(next_attempt_at__isnull=False),
                name="webhook_delivery_pending_is_due",
            )
        ]

    def __str__(self) -> str:
        return f"{self.event} → {self.endpoint}"
