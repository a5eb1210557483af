"""Operator views of the catalogue imports in Django's admin: read, never edited (an import
changes only through its services; the files are the company's own and are not linked)."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext as _

from tradepost.core.admin import NoAddChangeMixin, ReadOnlyMixin, run_each
from tradepost.imports.models import ImportJob, ImportRow
from tradepost.imports.services import import_cancel


class ImportRowInline(NoAddChangeMixin, admin.TabularInline):
    model = ImportRow
    fields = ("line", "sku", "outcome", "errors", "warnings")
    readonly_fields = fields
    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = False


@admin.register(ImportJob)
class ImportJobAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = (
        "original_name",
        "company",
        "status",
        "rows_total",
        "created_count",
        "updated_count",
        "failed_count",
        "created_at",
    )
    list_filter = ("status", "file_format", "mode")
    search_fields = ("original_name", "company__legal_name", "company__slug")
    list_select_related = ("company", "created_by")
    raw_id_fields = ("company", "created_by")
    exclude = ("file", "pictures", "rejected_file")
    inlines = (ImportRowInline,)
    actions = ("cancel_imports",)

    @admin.action(description=_("Cancel the selected imports"))
    def cancel_imports(self, request: HttpRequest, queryset: QuerySet[ImportJob]) -> None:
        run_each(
            self,
            request,
            queryset,
            lambda job: import_cancel(actor=request.user, job=job),  # type: ignore[arg-type]
            label=lambda job: job.pk,
            done=lambda count: _("%(count)d imports cancelled.") % {"count": count},
        )
