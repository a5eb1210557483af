from django.contrib import admin

from tradepost.search.models import IndexOutbox


@admin.register(IndexOutbox)
class IndexOutboxAdmin(admin.ModelAdmin):
    """Read-only view of pending index changes (useful when the worker is not running)."""

    list_display = ("id", "kind", "object_id", "created_at")
    list_filter = ("kind",)
    ordering = ("-id",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
