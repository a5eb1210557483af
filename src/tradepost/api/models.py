"""What the API keeps of its own: the answers to writes sent with an Idempotency-Key."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class IdempotencyKey(models.Model):
    """A write sent with an `Idempotency-Key` header, and its answer once there is one
    (`tradepost.api.idempotency`). One row per caller and key: the unique constraint is what
    lets exactly one of two requests sent at once with the same key do the work. `status`
    is null while the first request is being answered."""

    scope = models.CharField(max_length=64)  # a hash of the caller (`callers.Caller.scope`)
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)  # of the method, address and body
    method = models.CharField(max_length=10)
    path = models.TextField()
    status = models.PositiveSmallIntegerField(null=True, blank=True)
    headers = models.JSONField(default=dict, blank=True)
    body = models.BinaryField(default=b"", blank=True)
    created_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("idempotency key")
        verbose_name_plural = _("idempotency keys")
        constraints = [
            models.UniqueConstraint(fields=["scope", "key"], name="idempotency_key_per_caller")
        ]
        indexes = [models.Index(fields=["created_at"], name="idempotency_key_created")]

    def __str__(self) -> str:
        return f"{self.method} {self.path} ({self.status or '…'})"
