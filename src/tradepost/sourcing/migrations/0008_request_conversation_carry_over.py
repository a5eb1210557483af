"""Carry `messaging.Conversation.buying_request_id` over into `RequestConversation` rows.

An id naming a buying request that no longer exists is dropped: the conversation stays, about
no request, as it would be had the link existed when the request was deleted. This runs before
the messaging app drops the column (`run_before`), so the messaging migrations never name this
app; going back, the column comes back first and the links are moved into it.
"""

from django.db import migrations
from django.db.models import Exists, OuterRef, Subquery

BATCH_SIZE = 2000


def carry_over(apps, schema_editor):
    db = schema_editor.connection.alias
    Conversation = apps.get_model("messaging", "Conversation")
    BuyingRequest = apps.get_model("sourcing", "BuyingRequest")
    RequestConversation = apps.get_model("sourcing", "RequestConversation")
    linked = (
        Conversation.objects.using(db)
        .filter(buying_request_id__isnull=False)
        .filter(Exists(BuyingRequest.objects.using(db).filter(pk=OuterRef("buying_request_id"))))
        .order_by("pk")
    )
    after = 0
    while True:
        rows = list(linked.filter(pk__gt=after).values_list("pk", "buying_request_id")[:BATCH_SIZE])
        if not rows:
            break
        RequestConversation.objects.using(db).bulk_create(
            [RequestConversation(conversation_id=pk, request_id=request_id) for pk, request_id in rows]
        )
        after = rows[-1][0]


def carry_back(apps, schema_editor):
    db = schema_editor.connection.alias
    Conversation = apps.get_model("messaging", "Conversation")
    RequestConversation = apps.get_model("sourcing", "RequestConversation")
    links = RequestConversation.objects.using(db).filter(conversation_id=OuterRef("pk"))
    Conversation.objects.using(db).filter(Exists(links)).update(
        buying_request_id=Subquery(links.values("request_id")[:1])
    )
    RequestConversation.objects.using(db).all().delete()


class Migration(migrations.Migration):
    dependencies = [("sourcing", "0007_request_conversation")]
    run_before = [("messaging", "0003_conversation_buying_request_moves_to_sourcing")]

    operations = [migrations.RunPython(carry_over, carry_back)]
