"""Django admin for users and API tokens (the operator's back office)."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from tradepost.accounts.models import ApiToken, User
from tradepost.accounts.services import (
    tokens_revoke_by_operator,
    user_save_by_operator,
    users_mark_email_verified,
)


class OperatorUserCreationForm(AdminUserCreationForm):
    class Meta:
        model = User
        fields = ("email",)


class OperatorUserChangeForm(UserChangeForm):
    class Meta:
        model = User
        fields = "__all__"


class EmailVerifiedFilter(admin.SimpleListFilter):
    title = _("email verified")
    parameter_name = "verified"

    def lookups(self, request, model_admin):
        return [("yes", _("Yes")), ("no", _("No"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(email_verified_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(email_verified_at__isnull=True)
        return queryset


class ApiTokenInline(admin.TabularInline):
    model = ApiToken
    extra = 0
    can_delete = False
    fields = ("name", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = fields
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    form = OperatorUserChangeForm
    add_form = OperatorUserCreationForm
    ordering = ("-date_joined",)
    list_display = (
        "email",
        "full_name",
        "preferred_language",
        "email_verified_at",
        "is_staff",
        "is_active",
        "date_joined",
    )
    list_filter = (
        EmailVerifiedFilter,
        "is_staff",
        "is_superuser",
        "is_active",
        "preferred_language",
        "date_joined",
    )
    search_fields = ("email", "full_name")
    readonly_fields = ("date_joined", "last_login")
    fieldsets = (
        (None, {"fields": ("email", "password")}),
        (_("Profile"), {"fields": ("full_name", "preferred_language", "email_verified_at")}),
        (
            _("Permissions"),
            {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")},
        ),
        (_("Dates"), {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = (
        (
            None,
            {
                "classes": ("wide",),
                "fields": ("email", "usable_password", "password1", "password2"),
            },
        ),
    )
    inlines = (ApiTokenInline,)
    actions = ("mark_email_verified",)

    def save_model(self, request, obj, form, change):
        user_save_by_operator(actor=request.user, user=obj, fields=list(form.changed_data))

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else ()

    @admin.action(description=_("Mark the email address as verified"))
    def mark_email_verified(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        ids = list(queryset.values_list("pk", flat=True))
        updated = users_mark_email_verified(actor=request.user, user_ids=ids)
        self.message_user(request, _("%(count)d users updated.") % {"count": updated})


class TokenActiveFilter(admin.SimpleListFilter):
    title = _("status")
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [("active", _("Active")), ("revoked", _("Revoked"))]

    def queryset(self, request, queryset):
        if self.value() == "active":
            return queryset.filter(revoked_at__isnull=True)
        if self.value() == "revoked":
            return queryset.filter(revoked_at__isnull=False)
        return queryset


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens are created by their users (the secret is shown once); here they can be revoked."""

    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = (TokenActiveFilter, "created_at", "last_used_at")
    search_fields = ("name", "prefix", "user__email")
    list_select_related = ("user",)
    # Revoked through the action (audited), never by editing the date.
    readonly_fields = (
        "user",
        "name",
        "prefix",
        "key_hash",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    fields = ("user", "name", "prefix", "key_hash", "created_at", "last_used_at", "revoked_at")
    actions = ("revoke",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description=_("Revoke the selected tokens"))
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        ids = list(queryset.values_list("pk", flat=True))
        updated = tokens_revoke_by_operator(actor=request.user, token_ids=ids)
        self.message_user(request, _("%(count)d tokens revoked.") % {"count": updated})
