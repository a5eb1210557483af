from django.contrib import admin

from tradepost.notify.models import Notification, NotificationPreference


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ("created_at", "recipient", "kind", "read_at")
    list_filter = ("kind",)
    raw_id_fields = ("recipient",)
    list_select_related = ("recipient",)


@admin.register(NotificationPreference)
class NotificationPreferenceAdmin(admin.ModelAdmin):
    list_display = ("user", "email_messages", "updated_at")
    raw_id_fields = ("user",)
