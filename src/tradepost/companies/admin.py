"""Django admin for companies, memberships and invitations (the operator's back office)."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db import models, transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tradepost.companies.errors import CompanyError
from tradepost.companies.models import Company, Invitation, Membership
from tradepost.companies.services import (
    companies_mark,
    company_delete_by_operator,
    company_save_by_operator,
)
from tradepost.companies.validation import PROFILE_FIELDS, clean_company_profile


class CompanyAdminForm(forms.ModelForm):
    """The admin applies the same rules as the profile pages (sanitised description too)."""

    # Checked by clean_company_profile: http(s) only.
    website = forms.CharField(label=_("website"), max_length=300, required=False)

    class Meta:
        model = Company
        fields = ("slug", *PROFILE_FIELDS, "logo", "is_verified", "is_featured")

    def clean(self):
        cleaned = super().clean() or {}
        present = {name: cleaned[name] for name in PROFILE_FIELDS if name in cleaned}
        try:
            cleaned.update(clean_company_profile(present, partial=True))
        except CompanyError as exc:
            for field, messages in exc.message_dict.items():
                self.add_error(field if field in self.fields else None, messages)
        return cleaned


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    fields = ("user", "role", "created_at")
    readonly_fields = ("created_at",)
    raw_id_fields = ("user",)


@admin.register(Company)
class CompanyAdmin(admin.ModelAdmin):
    form = CompanyAdminForm
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    list_display = (
        "legal_name",
        "english_name",
        "country",
        "is_verified",
        "is_featured",
        "employee_range",
        "created_at",
    )
    list_filter = (
        "is_verified",
        "is_featured",
        "standing",
        "country",
        "employee_range",
        "original_language",
        "created_at",
    )
    search_fields = ("legal_name", "english_name", "slug", "main_products", "city")
    list_editable = ("is_verified", "is_featured")
    # Suspensions and bans are decided on the reports queue (trust), which tells the company.
    readonly_fields = (
        "standing",
        "standing_reason",
        "standing_changed_at",
        "created_at",
        "updated_at",
    )
    prepopulated_fields = {"slug": ("english_name",)}
    inlines = (MembershipInline,)
    actions = ("mark_verified", "mark_unverified")
    date_hierarchy = "created_at"

    # Every change goes through the companies services: the search index hears of it through
    # the outbox and the audit log records it, in the same transaction as the change.
    def save_model(self, request, obj, form, change):
        company_save_by_operator(actor=request.user, company=obj, fields=list(form.changed_data))

    def delete_model(self, request, obj):
        company_delete_by_operator(actor=request.user, company=obj)

    def delete_queryset(self, request, queryset):
        with transaction.atomic():
            for company in queryset:
                company_delete_by_operator(actor=request.user, company=company)

    def _mark(self, request: HttpRequest, queryset: QuerySet[Company], **marks: bool) -> None:
        ids = list(queryset.values_list("pk", flat=True))
        updated = companies_mark(actor=request.user, company_ids=ids, **marks)
        self.message_user(request, _("%(count)d companies updated.") % {"count": updated})

    @admin.action(description=_("Mark the selected companies as verified"))
    def mark_verified(self, request: HttpRequest, queryset: QuerySet[Company]) -> None:
        self._mark(request, queryset, is_verified=True)

    @admin.action(description=_("Remove the verified mark from the selected companies"))
    def mark_unverified(self, request: HttpRequest, queryset: QuerySet[Company]) -> None:
        self._mark(request, queryset, is_verified=False)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "company", "role", "created_at")
    list_filter = ("role", "created_at")
    search_fields = ("user__email", "user__full_name", "company__legal_name", "company__slug")
    list_select_related = ("user", "company")
    raw_id_fields = ("user", "company")


class InvitationStateFilter(admin.SimpleListFilter):
    title = _("state")
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [
            ("pending", _("Waiting")),
            ("accepted", _("Accepted")),
            ("revoked", _("Withdrawn")),
            ("expired", _("Expired")),
        ]

    def queryset(self, request, queryset):
        now = timezone.now()
        open_ = queryset.filter(accepted_at__isnull=True, revoked_at__isnull=True)
        if self.value() == "pending":
            return open_.filter(expires_at__gt=now)
        if self.value() == "accepted":
            return queryset.filter(accepted_at__isnull=False)
        if self.value() == "revoked":
            return queryset.filter(revoked_at__isnull=False)
        if self.value() == "expired":
            return open_.filter(expires_at__lte=now)
        return queryset


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ("email", "company", "role", "invited_by", "created_at", "expires_at")
    list_filter = (InvitationStateFilter, "role", "created_at")
    search_fields = ("email", "company__legal_name", "invited_by__email")
    list_select_related = ("company", "invited_by")
    raw_id_fields = ("company", "invited_by")
    readonly_fields = ("token_hash", "created_at", "accepted_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        # An invitation's secret is emailed when it is created; use the members page for that.
        return False
