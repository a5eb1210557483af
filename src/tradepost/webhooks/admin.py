"""Webhooks in the operators' back office: read only. Endpoints belong to their companies
(whose owner and admins change them on the site and through the API, audited); operators
read them, their events and the delivery log to help a company whose integration fails.
No secret is shown here: it is not stored (`webhooks.signing`)."""

from __future__ import annotations

from django.contrib import admin

from tradepost.core.admin import ReadOnlyMixin
from tradepost.webhooks.models import WebhookDelivery, WebhookEndpoint, WebhookEvent


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = (
        "url",
        "company",
        "is_active",
        "disabled_reason",
        "consecutive_failures",
        "created_at",
    )
    list_filter = ("is_active", "disabled_reason", "created_at")
    search_fields = ("url", "description", "company__legal_name", "company__slug")
    list_select_related = ("company",)
    fields = (
        "company",
        "url",
        "description",
        "events",
        "is_active",
        "disabled_reason",
        "disabled_at",
        "consecutive_failures",
        "secret_rotated_at",
        "created_by",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields


@admin.register(WebhookEvent)
class WebhookEventAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("created_at", "type", "event_id", "company")
    list_filter = ("type", "created_at")
    search_fields = ("=event_id", "company__legal_name")
    list_select_related = ("company",)
    date_hierarchy = "created_at"
    fields = ("event_id", "company", "type", "version", "created_at", "body")
    readonly_fields = fields


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = (
        "created_at",
        "event",
        "endpoint",
        "status",
        "attempts",
        "response_status",
        "response_ms",
        "next_attempt_at",
    )
    list_filter = ("status", "manual", "created_at")
    search_fields = ("=event__event_id", "endpoint__url", "endpoint__company__legal_name")
    list_select_related = ("event", "endpoint")
    date_hierarchy = "created_at"
    fields = (
        "event",
        "endpoint",
        "status",
        "attempts",
        "next_attempt_at",
        "last_attempt_at",
        "delivered_at",
        "response_status",
        "response_ms",
        "last_error",
        "manual",
        "created_at",
    )
    readonly_fields = fields
