from django.contrib import admin

from tradepost.core.admin import NoAddChangeMixin
from tradepost.search.models import IndexOutbox, ListingFingerprint


@admin.register(IndexOutbox)
class IndexOutboxAdmin(NoAddChangeMixin, admin.ModelAdmin):
    """Read-only view of pending index changes (useful when the worker is not running)."""

    list_display = ("id", "kind", "object_id", "created_at")
    list_filter = ("kind",)
    ordering = ("-id",)


@admin.register(ListingFingerprint)
class ListingFingerprintAdmin(NoAddChangeMixin, admin.ModelAdmin):
    """Read-only view of the duplicate-detection fingerprints (search.fingerprints): which
    listings are compared, whose, and when their text was last fingerprinted."""

    list_display = ("id", "kind", "object_id", "owner_id", "version", "updated_at")
    list_filter = ("kind", "version")
    search_fields = ("=object_id", "=owner_id")
    ordering = ("-id",)
    exclude = ("signature",)
