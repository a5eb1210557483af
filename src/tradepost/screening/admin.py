"""Banned terms in the operators' back office: read here, written on the operator's page
(/<lang>/dashboard/operator/banned-terms/) or through the API, so that every change is
audited the same way; the actions below deactivate and activate terms through the services."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy, ngettext

from tradepost.core.admin import ReadOnlyMixin
from tradepost.screening.errors import ScreeningError
from tradepost.screening.models import BannedTerm
from tradepost.screening.services import banned_term_update


@admin.register(BannedTerm)
class BannedTermAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("term", "normalized", "language", "active", "note", "created_by", "updated_at")
    list_filter = ("active", "language")
    search_fields = ("term", "normalized", "note")
    list_select_related = ("created_by",)
    readonly_fields = (
        "term",
        "normalized",
        "language",
        "note",
        "active",
        "created_by",
        "created_at",
        "updated_at",
    )
    actions = ("deactivate", "activate")

    def _set_active(
        self, request: HttpRequest, queryset: QuerySet[BannedTerm], active: bool
    ) -> None:
        changed = 0
        for term in queryset:
            try:
                banned_term_update(actor=request.user, banned_term=term, active=active)
            except ScreeningError as error:
                self.message_user(request, error.message, messages.ERROR)
                return
            changed += 1
        self.message_user(
            request,
            ngettext("%(count)d term changed.", "%(count)d terms changed.", changed)
            % {"count": changed},
            messages.SUCCESS,
        )

    @admin.action(description=gettext_lazy("Deactivate the selected terms"))
    def deactivate(self, request: HttpRequest, queryset: QuerySet[BannedTerm]) -> None:
        self._set_active(request, queryset, False)

    @admin.action(description=gettext_lazy("Activate the selected terms"))
    def activate(self, request: HttpRequest, queryset: QuerySet[BannedTerm]) -> None:
        self._set_active(request, queryset, True)
