"""The exchange-rate table, the operator's to maintain: comparisons show each rate's date,
and a change re-prices the listings of that currency in search (through the service)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from tradepost.core.admin import CurrencyFieldMixin
from tradepost.money.models import ExchangeRate
from tradepost.money.services import exchange_rate_set


class ExchangeRateForm(CurrencyFieldMixin, forms.ModelForm):
    class Meta:
        model = ExchangeRate
        fields = ("currency", "rate_to_usd", "as_of")


@admin.register(ExchangeRate)
class ExchangeRateAdmin(admin.ModelAdmin):
    form = ExchangeRateForm
    list_display = ("currency", "rate_to_usd", "as_of")
    search_fields = ("currency",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        # A row is one currency's: another currency is another row.
        return ("currency",) if obj is not None else ()

    def save_model(self, request: HttpRequest, obj: ExchangeRate, form: Any, change: bool) -> None:
        saved = exchange_rate_set(
            actor=request.user, currency=obj.currency, rate_to_usd=obj.rate_to_usd, as_of=obj.as_of
        )
        obj.pk = saved.pk
