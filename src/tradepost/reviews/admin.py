"""Reviews in the operators' back office: read only (the buyer and the supplier write them);
hiding asks why on a page of its own and restoring needs nothing, both through the reviews
services, so they are audited and the supplier's average is counted again, as on the site."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from tradepost.core.admin import ReadOnlyMixin
from tradepost.reviews.errors import ReviewError
from tradepost.reviews.forms import HideForm
from tradepost.reviews.models import Review
from tradepost.reviews.services import review_hide, review_restore


@admin.register(Review)
class ReviewAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("created_at", "supplier", "buyer", "rating", "status", "replied_at")
    list_filter = ("status", "rating", "created_at")
    search_fields = ("text", "reply", "supplier__legal_name", "buyer__legal_name", "author__email")
    list_select_related = ("supplier", "buyer")
    date_hierarchy = "created_at"
    fields = (
        "supplier",
        "buyer",
        "author",
        "quotation",
        "request_title",
        "rating",
        "text",
        "created_at",
        "reply",
        "reply_author",
        "replied_at",
        "reply_updated_at",
        "status",
        "hidden_reason",
        "hidden_by",
        "hidden_at",
    )
    readonly_fields = fields
    actions = ("hide_selected", "restore_selected")

    def _report(self, request: HttpRequest, changed: int) -> None:
        self.message_user(
            request,
            ngettext("%(count)d review changed.", "%(count)d reviews changed.", changed)
            % {"count": changed},
        )

    @admin.action(description=gettext_lazy("Hide the selected reviews"))
    def hide_selected(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        form = HideForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            try:
                changed = sum(
                    review_hide(
                        actor=request.user, review=review, reason=form.cleaned_data["reason"]
                    ).changed
                    for review in queryset
                )
            except ReviewError as exc:  # the reason is refused: nothing was hidden
                form.add_error(None, exc.message)
            else:
                self._report(request, changed)
                return None
        return TemplateResponse(
            request,
            "admin/reviews/hide.html",
            {
                **self.admin_site.each_context(request),
                "title": _("Hide the selected reviews"),
                "opts": self.model._meta,
                "form": form,
                "queryset": queryset.select_related("supplier"),
                "selected": helpers.ACTION_CHECKBOX_NAME,
            },
        )

    @admin.action(description=gettext_lazy("Show the selected reviews again"))
    def restore_selected(self, request: HttpRequest, queryset: QuerySet) -> None:
        changed = 0
        for review in queryset:
            changed += review_restore(actor=request.user, review=review).changed
        self._report(request, changed)
