"""Drop the bare `buying_request_id` integer: the sourcing app now links a conversation to its
buying request with a foreign key (`sourcing.RequestConversation`, ADR 0015). Its migration
0008 carries the values over and is ordered before this one from its side (`run_before`), so
this app's migrations do not name the app above it."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("messaging", "0002_message_attachments")]

    operations = [migrations.RemoveField(model_name="conversation", name="buying_request_id")]
