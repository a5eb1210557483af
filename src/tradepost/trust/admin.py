"""Verification in the operators' back office: requests and their documents read only;
approving and refusing are actions that ask what was checked (or why not) on a page of their
own and then call the trust services, as the verification queue does, so the decision is
audited and the company notified the same way. Reports are read only: they are decided on the
reports queue (or through the API), where the actions are."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from tradepost.core.admin import ReadOnlyMixin, run_each
from tradepost.trust.forms import ApproveForm, RejectForm
from tradepost.trust.models import Report, VerificationDocument, VerificationRequest
from tradepost.trust.services import verification_approve, verification_reject


class DocumentInline(ReadOnlyMixin, admin.TabularInline):
    model = VerificationDocument
    extra = 0
    fields = ("kind", "download", "content_type", "size", "sha256")
    readonly_fields = fields

    @admin.display(description=gettext_lazy("file name"))
    def download(self, document: VerificationDocument) -> str:
        url = reverse("trust:document", kwargs={"document_id": document.pk})
        return format_html('<a href="{}">{}</a>', url, document.original_name)


@admin.register(VerificationRequest)
class VerificationRequestAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("company", "status", "submitted_at", "decided_at", "decided_by")
    list_filter = ("status", "submitted_at")
    search_fields = ("company__legal_name", "company__english_name", "company__slug")
    list_select_related = ("company", "decided_by")
    date_hierarchy = "submitted_at"
    fields = (
        "company",
        "status",
        "submitted_by",
        "submitted_at",
        "decided_by",
        "decided_at",
        "checked",
        "rejection_reason",
    )
    readonly_fields = fields
    inlines = (DocumentInline,)
    actions = ("approve_selected", "reject_selected")

    def _decide(
        self, request: HttpRequest, queryset: QuerySet[VerificationRequest], *, approve: bool
    ) -> HttpResponse | None:
        form_class = ApproveForm if approve else RejectForm
        form = form_class(request.POST if "apply" in request.POST else None)
        if not form.is_valid():
            return TemplateResponse(
                request,
                "admin/trust/decide.html",
                {
                    **self.admin_site.each_context(request),
                    "title": _("Approve") if approve else _("Do not approve"),
                    "opts": self.model._meta,
                    "form": form,
                    "queryset": queryset.select_related("company"),
                    "action": "approve_selected" if approve else "reject_selected",
                    "selected": helpers.ACTION_CHECKBOX_NAME,
                },
            )

        def decide(item: VerificationRequest) -> None:
            if approve:
                verification_approve(
                    actor=request.user, verification=item, checked=form.cleaned_data["checked"]
                )
            else:
                verification_reject(
                    actor=request.user, verification=item, reason=form.cleaned_data["reason"]
                )

        run_each(
            self,
            request,
            queryset.select_related("company"),
            decide,
            label=lambda item: item.company,
            done=lambda count: (
                ngettext("%(count)d request decided.", "%(count)d requests decided.", count)
                % {"count": count}
            ),
        )
        return None

    @admin.action(description=gettext_lazy("Approve the selected requests"))
    def approve_selected(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self._decide(request, queryset, approve=True)

    @admin.action(description=gettext_lazy("Do not approve the selected requests"))
    def reject_selected(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self._decide(request, queryset, approve=False)


@admin.register(Report)
class ReportAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = (
        "created_at",
        "target",
        "target_id",
        "target_label",
        "company",
        "reason",
        "status",
        "action",
        "decided_by",
    )
    list_filter = ("status", "target", "reason", "action", "created_at")
    search_fields = ("target_label", "note", "company__legal_name", "reporter__email")
    list_select_related = ("company", "decided_by")
    date_hierarchy = "created_at"
    fields = (
        "target",
        "target_id",
        "target_label",
        "company",
        "reporter",
        "reason",
        "note",
        "created_at",
        "status",
        "action",
        "decision_note",
        "decided_by",
        "decided_at",
    )
    readonly_fields = fields
