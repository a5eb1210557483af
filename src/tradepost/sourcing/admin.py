"""Operator views of sourcing in Django's admin.

Requests and quotations are read here, not written: traders change them through the services.
The exchange-rate table is in the money app's admin.
"""

from __future__ import annotations

from django.contrib import admin

from tradepost.core.admin import ReadOnlyMixin
from tradepost.sourcing.models import BuyingRequest, MatchAlert, Quotation, QuoteUsage


@admin.register(BuyingRequest)
class BuyingRequestAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("title", "buyer", "status", "quotation_count", "quote_limit", "deadline")
    list_filter = ("status", "sealed")
    search_fields = ("title", "buyer__legal_name")
    raw_id_fields = ("buyer", "category", "created_by", "awarded_quotation")


@admin.register(Quotation)
class QuotationAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("request", "supplier", "unit_price", "currency", "status", "updated_at")
    list_filter = ("status", "currency")
    raw_id_fields = ("request", "supplier", "created_by")


@admin.register(QuoteUsage)
class QuoteUsageAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("company", "month", "count")
    raw_id_fields = ("company",)


@admin.register(MatchAlert)
class MatchAlertAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """The alerts of new matching requests: who is told when (the first look), and when it
    went out (the worker's timer sends the delayed ones)."""

    list_display = ("request", "company", "first_look", "due_at", "sent_at", "recipients")
    list_filter = ("first_look", ("sent_at", admin.EmptyFieldListFilter))
    search_fields = ("request__title", "company__legal_name")
    list_select_related = ("request", "company")
    raw_id_fields = ("request", "company")
    date_hierarchy = "due_at"
