"""Operator views of the catalogue in Django's admin.

Products are read here, not written: suppliers change them through the services (web pages
and API), which validate and sanitise; the admin only offers looking up and filtering.
"""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from tradepost.catalog.models import Category, HSCode, Product, ProductImage, ProductTranslation


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:  # type: ignore[override]
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class ProductImageInline(ReadOnlyInline):
    model = ProductImage
    fields = ("position", "image", "thumbnail", "width", "height", "created_at")


class ProductTranslationInline(ReadOnlyInline):
    model = ProductTranslation
    fields = ("language", "title")


@admin.register(Product)
class ProductAdmin(ReadOnlyAdmin):
    list_display = ("id", "title", "company", "category", "status", "published_at", "updated_at")
    list_filter = ("status", "original_language")
    search_fields = ("title", "company__legal_name", "company__english_name", "hs_code")
    list_select_related = ("company", "category")
    date_hierarchy = "created_at"
    inlines = (ProductImageInline, ProductTranslationInline)


@admin.register(Category)
class CategoryAdmin(ReadOnlyAdmin):
    list_display = ("path", "name_en", "name_zh_hans", "name_zh_hant", "is_leaf")
    list_filter = ("depth", "is_leaf")
    search_fields = ("slug", "name_en", "name_zh_hans", "name_zh_hant")


@admin.register(HSCode)
class HSCodeAdmin(ReadOnlyAdmin):
    list_display = ("code", "description", "level")
    list_filter = ("level",)
    search_fields = ("code", "description")
