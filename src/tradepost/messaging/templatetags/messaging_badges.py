"""`{% messaging_unread as unread %}`: unread messages and notifications of the signed-in user
(used by messaging/_header_badge.html in the site header)."""

from __future__ import annotations

from typing import Any

from django import template

from tradepost.messaging.selectors import unread_message_count
from tradepost.notify.selectors import unread_notification_count

register = template.Library()


@register.simple_tag(takes_context=True)
def messaging_unread(context: template.Context) -> dict[str, int]:
    request: Any = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"messages": 0, "notifications": 0}
    return {
        "messages": unread_message_count(user=user),
        "notifications": unread_notification_count(user=user),
    }
