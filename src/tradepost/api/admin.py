"""The API's idempotency keys in the operators' back office: read only (the answers kept for
writes sent with an Idempotency-Key; deleted after TRADEPOST_IDEMPOTENCY_KEY_HOURS)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from tradepost.api.models import IdempotencyKey


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(admin.ModelAdmin):
    list_display = ("created_at", "method", "path", "status", "answered_at")
    list_filter = ("method", "status")
    search_fields = ("path", "key")
    date_hierarchy = "created_at"
    ordering = ("-created_at",)
    # The kept body stays out of sight: it may hold a company's data.
    fields = ("created_at", "method", "path", "key", "status", "answered_at", "headers")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
