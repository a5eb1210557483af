"""The buyer's questions to a quoting supplier, in the conversation about the request."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from tradepost.messaging.models import Conversation
from tradepost.messaging.services import inquiry_send, message_send
from tradepost.sourcing.models import Quotation, RequestConversation
from tradepost.sourcing.services._common import _buyer_quotation


@transaction.atomic
def quotation_question(*, actor: Any, quotation: Quotation, message: Any) -> Conversation:
    """The buyer asks the quoting supplier a question: the conversation between the two
    companies about this request is reused when it exists, otherwise opened (as an inquiry to
    the supplier, linked to the request). Raises SourcingError when the actor does not act for
    the buyer, and the messaging app's MessagingError when the message is refused (empty, too
    long, rate limits)."""
    request = _buyer_quotation(actor, quotation)
    existing = (
        Conversation.objects.filter(
            request_link__request=request,
            buyer_company_id=request.buyer_id,
            supplier_company_id=quotation.supplier_id,
        )
        .order_by("pk")
        .first()
    )
    if existing is not None:
        message_send(actor=actor, conversation=existing, body=message)
        existing.refresh_from_db()
        return existing
    conversation = inquiry_send(
        actor=actor,
        message=message,
        company=quotation.supplier,
        subject=request.title,
        quantity=request.quantity,
        unit=request.unit,
        # A request that hides its buyer keeps hiding it in the conversation it opens.
        buyer_hidden=not request.reveal_identity,
    )
    link = RequestConversation(conversation=conversation, request=request)
    link.full_clean()
    link.save(force_insert=True)
    return conversation
