from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class AuditEntry(models.Model):
    """One operator action on one record. Written by services, never edited or deleted."""

    at = models.DateTimeField(_("when"), db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("operator"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    # Kept as written, so the entry still says who it was after the account is gone; empty
    # for the command line.
    actor_email = models.CharField(_("operator's email"), max_length=254, blank=True)
    action = models.CharField(_("action"), max_length=60, db_index=True)
    target_type = models.CharField(_("record type"), max_length=60)
    target_id = models.CharField(_("record id"), max_length=60)
    target_label = models.CharField(_("record"), max_length=300, blank=True)
    #: {"field": [before, after]}, values as JSON text
    changes = models.JSONField(_("changes"), default=dict, blank=True)

    class Meta:
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit entries")
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["target_type", "target_id"], name="audit_target")]

    def __str__(self) -> str:
        return (
            f"{self.at:%Y-%m-%d %H:%M} {self.actor_email or '-'} {self.action} {self.target_label}"
        )
