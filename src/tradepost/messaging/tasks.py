"""Background jobs of the messaging app."""

from __future__ import annotations

from django_tasks import task

from tradepost.messaging.machine_texts import messages_translate


@task()
def translate_messages(message_ids: list[int]) -> int:
    """Store the machine translations the messages among `message_ids` lack, once they are
    sent; answers how many were written."""
    return messages_translate(message_ids)
