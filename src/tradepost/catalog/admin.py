"""Operator views of the catalogue in Django's admin.

Products are read here, not edited: suppliers change them through the services (web pages
and API), which validate and sanitise. Operators look them up, filter them, and hide or restore
listings by moderation through the same services.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext as _

from tradepost.catalog import services
from tradepost.catalog.models import (
    Category,
    HSCode,
    Product,
    ProductImage,
    ProductTranslation,
    Showcase,
)
from tradepost.catalog.showcase_services import showcase_remove
from tradepost.core.admin import NoAddChangeMixin, ReadOnlyMixin, run_each


def _products_updated(count: int) -> str:
    return _("%(count)d products updated.") % {"count": count}


class ReadOnlyInline(NoAddChangeMixin, admin.TabularInline):
    extra = 0
    can_delete = False

    def get_readonly_fields(self, request: HttpRequest, obj=None):  # type: ignore[override]
        # Every field shown is read-only, including those Django would never put in a form
        # (created_at): listing them as form fields made the change page a 500.
        return self.fields or ()


class ProductImageInline(ReadOnlyInline):
    model = ProductImage
    fields = ("position", "image", "thumbnail", "width", "height", "created_at")


class ProductTranslationInline(ReadOnlyInline):
    model = ProductTranslation
    fields = ("language", "title")


@admin.register(Product)
class ProductAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("id", "title", "company", "category", "status", "published_at", "updated_at")
    list_filter = ("status", "original_language")
    search_fields = ("title", "company__legal_name", "company__english_name", "hs_code")
    list_select_related = ("company", "category")
    date_hierarchy = "created_at"
    inlines = (ProductImageInline, ProductTranslationInline)
    actions = ("hide_by_moderation", "restore_to_draft")

    # Listings change only through the catalogue services, so the admin's actions behave like
    # the pages and the API (search index included).
    def _moderate(self, request: HttpRequest, queryset: QuerySet[Product], service) -> None:
        run_each(
            self,
            request,
            queryset,
            lambda product: service(actor=request.user, product=product),
            label=lambda product: product.pk,
            done=_products_updated,
        )

    @admin.action(description=_("Hide the selected products (moderation)"))
    def hide_by_moderation(self, request: HttpRequest, queryset: QuerySet[Product]) -> None:
        self._moderate(request, queryset, services.product_hide)

    @admin.action(description=_("Restore the selected hidden products to draft"))
    def restore_to_draft(self, request: HttpRequest, queryset: QuerySet[Product]) -> None:
        self._moderate(request, queryset, services.product_restore)


@admin.register(Category)
class CategoryAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("path", "name_en", "name_zh_hans", "name_zh_hant", "is_leaf")
    list_filter = ("depth", "is_leaf")
    search_fields = ("slug", "name_en", "name_zh_hans", "name_zh_hant")


@admin.register(HSCode)
class HSCodeAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("code", "description", "level")
    list_filter = ("level",)
    search_fields = ("code", "description")


@admin.register(Showcase)
class ShowcaseAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """The products companies chose for their paid showcase. An operator may take one out
    (through the service, with an audit entry); choosing is the company's."""

    list_display = ("product", "company", "created_at", "created_by")
    search_fields = ("product__title", "company__legal_name", "company__english_name")
    list_select_related = ("product", "company", "created_by")
    raw_id_fields = ("product", "company", "created_by")
    actions = ("remove_from_showcase",)

    @admin.action(description=_("Take the selected products out of the showcase"))
    def remove_from_showcase(self, request: HttpRequest, queryset: QuerySet[Showcase]) -> None:
        run_each(
            self,
            request,
            queryset,
            lambda showcase: showcase_remove(actor=request.user, product_id=showcase.product_id),
            label=lambda showcase: showcase.product_id,
            done=_products_updated,
        )
