from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class OutboxKind(models.TextChoices):
    PRODUCT = "product", _("Product")
    COMPANY = "company", _("Company")
    CATEGORY = "category", _("Category")
    REQUEST = "request", _("Buying request")


class IndexOutbox(models.Model):
    """One change to a searchable object, written in the same transaction as the change.

    The indexer applies rows in id order; applying a row re-reads the object's current state,
    so replaying a row is harmless. Rows the index has applied are pruned after a retention
    period (replicas on other machines follow the same rows).
    """

    kind = models.CharField(_("kind"), max_length=10, choices=OutboxKind.choices)
    object_id = models.BigIntegerField(_("object id"))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("search index change")
        verbose_name_plural = _("search index changes")
        ordering = ["id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.kind}:{self.object_id}"
