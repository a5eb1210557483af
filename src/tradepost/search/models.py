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


class ListingFingerprint(models.Model):
    """The MinHash signature of one published listing's analysed text, for finding its
    near-duplicates among the same owner's listings (`tradepost.search.fingerprints`).

    Generic: `kind` and `object_id` name the listing, `owner_id` whose it is (a company's
    id for products); the search app reads no business table. `digest` is a hash of the
    text the signature was computed from, so an unchanged text is not hashed again.
    """

    kind = models.CharField(_("kind"), max_length=10)
    object_id = models.BigIntegerField(_("object id"))
    owner_id = models.BigIntegerField(_("owner id"))
    #: The shingling and MinHash scheme the signature was made with (`duplicates.SCHEME`).
    version = models.PositiveSmallIntegerField(_("version"))
    digest = models.CharField(_("text digest"), max_length=40)
    #: The MinHash values, little-endian unsigned 32-bit integers.
    signature = models.BinaryField(_("signature"))
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("listing fingerprint")
        verbose_name_plural = _("listing fingerprints")
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "object_id"], name="search_fingerprint_one_per_listing"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind}:{self.object_id} (owner {self.owner_id})"


class ListingFingerprintBand(models.Model):
    """One LSH band of a fingerprint: the hash of a few of its MinHash values (and of the
    listing kind and the band's number). Listings of one owner that share a band hash are
    the candidates whose signatures are compared."""

    fingerprint = models.ForeignKey(
        ListingFingerprint, on_delete=models.CASCADE, related_name="bands"
    )
    owner_id = models.BigIntegerField(_("owner id"))
    key = models.BigIntegerField(_("band hash"))

    class Meta:
        verbose_name = _("listing fingerprint band")
        verbose_name_plural = _("listing fingerprint bands")
        indexes = [
            # The candidate lookup reads only this index: (owner, band hash) -> fingerprint.
            models.Index(fields=["owner_id", "key", "fingerprint"], name="search_band_owner_key")
        ]

    def __str__(self) -> str:
        return f"{self.fingerprint_id}:{self.key}"
