"""Reads of the messaging app; `access_conversation` and `access_conversation_attachment` are
the only way to fetch a conversation or one of its files on a user's behalf. A conversation of
other companies answers exactly like a missing one."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _

from tradepost.accounts.selectors import is_operator
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company
from tradepost.companies.selectors import company_described
from tradepost.core.ids import parse_id
from tradepost.messaging.errors import ConversationNotFound, MessagingErrorCode
from tradepost.messaging.models import (
    Conversation,
    ConversationRead,
    Message,
    MessageAttachment,
)


def _not_found() -> ConversationNotFound:
    return ConversationNotFound(MessagingErrorCode.NOT_FOUND, _("No such conversation."))


def access_conversation(*, user: Any, conversation_id: Any) -> Conversation:
    """The conversation if `user` is a member of one of its two companies or an operator;
    else `ConversationNotFound`."""
    pk = parse_id(conversation_id)
    if pk is None:
        raise _not_found()
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        raise _not_found()
    conversation = (
        Conversation.objects.select_related(
            "buyer_company", "supplier_company", "buyer_user", "product"
        )
        .filter(pk=pk)
        .first()
    )
    if conversation is None:
        raise _not_found()
    if is_operator(user):
        return conversation
    company_id = actor_for(user).company_id
    if company_id is None or company_id not in (
        conversation.buyer_company_id,
        conversation.supplier_company_id,
    ):
        raise _not_found()
    return conversation


def access_message(*, user: Any, message_id: Any) -> Message:
    """A message of a conversation `user` may see (as for `access_conversation`), with its
    conversation and sender company; else `ConversationNotFound`."""
    pk = parse_id(message_id)
    message = (
        Message.objects.select_related("conversation", "sender_company").filter(pk=pk).first()
        if pk is not None
        else None
    )
    if message is None:
        raise _not_found()
    access_conversation(user=user, conversation_id=message.conversation_id)
    return message


def participant_company_id(user: Any, conversation: Conversation) -> int | None:
    """The id of the conversation's company `user` acts for (and so writes for), or None."""
    company_id = actor_for(user).company_id
    if company_id in (conversation.buyer_company_id, conversation.supplier_company_id):
        return company_id
    return None


def is_participant(user: Any, conversation: Conversation) -> bool:
    """Whether `user` acts for one of the conversation's two companies (and so may write)."""
    return participant_company_id(user, conversation) is not None


def _last_read_id(company_id: int) -> Coalesce:
    marks = ConversationRead.objects.filter(
        conversation_id=OuterRef("pk"), company_id=company_id
    ).values("last_read_message_id")[:1]
    return Coalesce(Subquery(marks), Value(0))


def conversations_for_company(company_id: int) -> QuerySet[Conversation]:
    """The company's conversations, newest activity first, each with `unread` (messages from
    the other side that no member of the company has opened yet)."""
    return (
        Conversation.objects.filter(
            Q(buyer_company_id=company_id) | Q(supplier_company_id=company_id)
        )
        .select_related("buyer_company", "supplier_company", "product")
        .annotate(last_read_id=_last_read_id(company_id))
        .annotate(
            unread=Count(
                "messages",
                filter=Q(messages__id__gt=F("last_read_id"))
                & ~Q(messages__sender_company_id=company_id),
            )
        )
        .order_by("-last_message_at", "-id")
    )


def inbox(*, user: Any) -> QuerySet[Conversation]:
    """Conversations of the user's company; none for a user without a company."""
    company_id = actor_for(user).company_id
    if company_id is None:
        return Conversation.objects.none()
    return conversations_for_company(company_id)


def unread_message_count(*, user: Any) -> int:
    """Messages from the other side not yet read by the user's company, over all its
    conversations (the header badge)."""
    company_id = actor_for(user).company_id
    if company_id is None:
        return 0
    marks = ConversationRead.objects.filter(
        conversation_id=OuterRef("conversation_id"), company_id=company_id
    ).values("last_read_message_id")[:1]
    return (
        Message.objects.filter(
            Q(conversation__buyer_company_id=company_id)
            | Q(conversation__supplier_company_id=company_id)
        )
        .exclude(sender_company_id=company_id)
        .annotate(last_read_id=Coalesce(Subquery(marks), Value(0)))
        .filter(id__gt=F("last_read_id"))
        .count()
    )


def unread_in(conversation: Conversation, *, company_id: int) -> int:
    mark = (
        ConversationRead.objects.filter(conversation=conversation, company_id=company_id)
        .values_list("last_read_message_id", flat=True)
        .first()
    )
    return (
        conversation.messages.exclude(sender_company_id=company_id).filter(id__gt=mark or 0).count()
    )


def conversation_messages(conversation: Conversation) -> QuerySet[Message]:
    """The conversation's messages, oldest first, with their senders."""
    return (
        conversation.messages.select_related("sender_user", "sender_company")
        .prefetch_related("attachments")
        .order_by("created_at", "id")
    )


def access_conversation_attachment(
    *, user: Any, conversation_id: Any, attachment_id: Any
) -> MessageAttachment:
    """Attachment `attachment_id` of a message in a conversation `user` may see (as for
    `access_conversation`), unless moderation hid its message (operators still read it);
    else `ConversationNotFound`."""
    conversation = access_conversation(user=user, conversation_id=conversation_id)
    pk = parse_id(attachment_id)
    if pk is None:
        raise _not_found()
    items = MessageAttachment.objects.filter(pk=pk, message__conversation=conversation)
    if not is_operator(user):
        items = items.filter(message__hidden_at__isnull=True)
    item = items.first()
    if item is None:
        raise _not_found()
    return item


def unanswered_inquiry_count(*, company_id: int) -> int:
    """Conversations buyers started with the company (as supplier) that no member of it has
    answered yet."""
    return Conversation.objects.filter(
        supplier_company_id=company_id, supplier_first_reply_at__isnull=True
    ).count()


def party_name(
    conversation: Conversation, company: Company, *, viewer_company_id: int | None, language: str
) -> str:
    """How one of the conversation's two companies is named to a member of
    `viewer_company_id`: its name in `language`, or, while the buyer keeps its name to itself
    (`Conversation.buyer_hidden`), the buyer described by kind and country to the supplier."""
    if company.pk == conversation.buyer_company_id and not conversation.shows_buyer_to(
        viewer_company_id
    ):
        return company_described(company, language)
    return company.name_for(language)


def sender_shown(
    message: Message, conversation: Conversation, *, viewer_company_id: int | None
) -> bool:
    """Whether a member of `viewer_company_id` may see who sent `message`, of `conversation`
    (company and person): not a hidden buyer's, to the supplier."""
    return message.sender_company_id != conversation.buyer_company_id or (
        conversation.shows_buyer_to(viewer_company_id)
    )
