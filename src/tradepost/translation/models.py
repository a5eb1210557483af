"""Machine translations, stored once per text: a translation is found by the key of what it
translates (`translation_key`: the kind of text, both languages and the text itself), so an
edited text has a new key and its old translation is simply no longer asked for. Produced in
the background (`translation.services.translations_ensure`), read in one query a page
(`translation.selectors.stored_translations`)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class StoredTranslation(models.Model):
    #: SHA-256 (hex) of the kind, the two languages and the source text.
    key = models.CharField(max_length=64, unique=True)
    source_language = models.CharField(max_length=10)
    target_language = models.CharField(max_length=10)
    kind = models.CharField(max_length=16)
    #: The engine that wrote it ("gloss", "libretranslate"); "" when the text is kept as it
    #: was (garbled text, nothing to translate).
    engine = models.CharField(max_length=32, blank=True)
    text = models.TextField(blank=True)
    #: The share of the source's words the engine had no translation for (0 to 1).
    untranslated_share = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)
    #: When the last clean-up (`translations_prune`) found a text that asks for it.
    seen_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("machine translation")
        verbose_name_plural = _("machine translations")
        indexes = [models.Index(fields=["created_at"], name="translation_created")]

    def __str__(self) -> str:
        return f"{self.source_language}→{self.target_language} {self.kind}: {self.text[:60]}"
