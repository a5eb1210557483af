from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from tradepost.messaging.models import Conversation, Message


class MessageInline(admin.TabularInline):
    model = Message
    extra = 0
    fields = ("created_at", "sender_company", "sender_user", "body", "flagged")
    readonly_fields = ("created_at", "sender_company", "sender_user", "body")
    can_delete = False
    show_change_link = True


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    list_display = ("subject", "buyer_company", "supplier_company", "created_at", "last_message_at")
    search_fields = ("subject", "buyer_company__legal_name", "supplier_company__legal_name")
    list_select_related = ("buyer_company", "supplier_company")
    raw_id_fields = ("buyer_company", "buyer_user", "supplier_company", "product")
    date_hierarchy = "created_at"
    inlines = [MessageInline]


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    """Flagged messages (the same text sent to many companies) are listed for moderators."""

    list_display = ("created_at", "sender_company", "sender_user", "short_body", "flagged")
    list_filter = ("flagged",)
    search_fields = ("body", "sender_user__email", "sender_company__legal_name")
    list_select_related = ("sender_company", "sender_user")
    raw_id_fields = ("conversation", "sender_user", "sender_company")
    readonly_fields = ("body_hash", "created_at")

    @admin.display(description=_("message"))
    def short_body(self, obj: Message) -> str:
        return obj.body[:80]
