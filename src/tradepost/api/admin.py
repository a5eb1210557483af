"""The API's idempotency keys in the operators' back office: read only (the answers kept for
writes sent with an Idempotency-Key; deleted after TRADEPOST_IDEMPOTENCY_KEY_HOURS)."""

from __future__ import annotations

from django.contrib import admin

from tradepost.api.models import IdempotencyKey
from tradepost.core.admin import NoAddChangeMixin


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(NoAddChangeMixin, admin.ModelAdmin):
    list_display = ("created_at", "method", "path", "status", "answered_at")
    list_filter = ("method", "status")
    search_fields = ("path", "key")
    date_hierarchy = "created_at"
    ordering = ("-created_at",)
    # The kept body stays out of sight: it may hold a company's data.
    fields = ("created_at", "method", "path", "key", "status", "answered_at", "headers")
    readonly_fields = fields
