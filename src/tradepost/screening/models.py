"""The operators' list of banned terms."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

#: A term that applies to text in every language.
ANY_LANGUAGE = "any"


class BannedTerm(models.Model):
    """A word or phrase that holds a listing for review when its text contains it.

    `normalized` is the term folded as listings' texts are (full-width and case folded,
    traditional Chinese to simplified, punctuation between words as one space): two terms
    that fold alike are one term (a unique constraint). `language` is a listing language code
    or "any": a term in a language screens only the texts written in it (Simplified and
    Traditional Chinese count as one). Written only by `screening.services`.
    """

    term = models.CharField(_("term"), max_length=100)
    normalized = models.CharField(_("normalised form"), max_length=300, unique=True)
    language = models.CharField(_("language"), max_length=10, default=ANY_LANGUAGE)
    note = models.CharField(_("note"), max_length=300, blank=True)
    active = models.BooleanField(_("active"), default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("added by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(_("added at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("changed at"), auto_now=True)

    class Meta:
        verbose_name = _("banned term")
        verbose_name_plural = _("banned terms")
        ordering = ["normalized", "id"]

    def __str__(self) -> str:
        return self.term
