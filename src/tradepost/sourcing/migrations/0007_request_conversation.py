"""The link from a conversation to the buying request it is about, as a real foreign key.

It replaces the bare integer `messaging.Conversation.buying_request_id` (ADR 0015); the next
migration carries the old values over before the messaging app drops its column.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("messaging", "0002_message_attachments"),
        ("sourcing", "0006_exchange_rate_moves_to_money"),
    ]

    operations = [
        migrations.CreateModel(
            name="RequestConversation",
            fields=[
                (
                    "conversation",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="request_link",
                        serialize=False,
                        to="messaging.conversation",
                        verbose_name="conversation",
                    ),
                ),
                (
                    "request",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="conversation_links",
                        to="sourcing.buyingrequest",
                        verbose_name="buying request",
                    ),
                ),
            ],
            options={
                "verbose_name": "conversation about a buying request",
                "verbose_name_plural": "conversations about buying requests",
            },
        ),
    ]
