"""Membership in the operators' admin: plans are edited here (through the service, with an
audit entry); subscriptions and invoices are read here and change only through the services
(a company's own pages, the operators' payments page)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from tradepost.core.admin import CurrencyFieldMixin, ReadOnlyMixin
from tradepost.membership.models import BillingDetails, Invoice, Plan, Subscription
from tradepost.membership.services import PLAN_AUDITED, plan_save_by_operator


class PlanForm(CurrencyFieldMixin, forms.ModelForm):
    class Meta:
        model = Plan
        fields = PLAN_AUDITED


@admin.register(Plan)
class PlanAdmin(admin.ModelAdmin):
    form = PlanForm
    list_display = (
        "name_en",
        "price",
        "currency",
        "term_months",
        "monthly_quotation_quota",
        "showcase_slots",
        "is_default",
        "is_offered",
    )
    readonly_fields = ("is_default",)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Subscriptions and invoices name their plan: withdraw a plan (not offered) instead.
        return False

    def save_model(self, request: HttpRequest, obj: Plan, form: Any, change: bool) -> None:
        plan_save_by_operator(actor=request.user, plan=obj)


@admin.register(Subscription)
class SubscriptionAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("company", "plan", "kind", "status", "starts_on", "ends_on", "auto_renew")
    list_filter = ("status", "kind", "plan")
    search_fields = ("company__legal_name",)
    raw_id_fields = ("company", "previous", "created_by")


@admin.register(Invoice)
class InvoiceAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("number", "company", "status", "issued_on", "total", "currency", "paid_at")
    list_filter = ("status", "year")
    search_fields = ("number", "payment_reference", "company__legal_name")
    raw_id_fields = ("company", "subscription", "confirmed_by")


@admin.register(BillingDetails)
class BillingDetailsAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("company", "legal_name", "country", "tax_id")
    search_fields = ("legal_name", "company__legal_name", "tax_id")
