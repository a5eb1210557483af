"""Conversations, messages and inquiries (/api/v1/conversations) and the signed-in user's
notifications (`notifications_router`, to mount at /api/v1/notifications).

Only members of a conversation's two companies (and operators, read-only) see it; any other
id answers exactly like a missing one (404). Refusals answer with problem details.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from ninja import File, Form, Router, Schema, Status
from ninja.files import UploadedFile
from pydantic import Field

from tradepost.accounts.selectors import is_operator
from tradepost.api.auth import API_AUTH, caller, caller_actor
from tradepost.api.bodies import JsonBody, JsonDecimal
from tradepost.api.pagination import Page, Rows, paged
from tradepost.api.problems import not_found, validation_problem
from tradepost.api.refs import AttachmentOut
from tradepost.catalog.public_companies import public_companies
from tradepost.catalog.selectors import MAX_ID, get_published_product
from tradepost.companies.models import Company
from tradepost.core.downloads import uploaded_file_response
from tradepost.messaging import selectors, services
from tradepost.messaging.machine_texts import attach_message_texts, message_language
from tradepost.messaging.models import Conversation, Message
from tradepost.notify import selectors as notify_selectors
from tradepost.notify import services as notify_services
from tradepost.notify.models import Notification
from tradepost.sourcing import selectors as sourcing_selectors

router = Router(auth=API_AUTH, tags=["conversations"])
notifications_router = Router(auth=API_AUTH, tags=["notifications"])


# --- schemas --------------------------------------------------------------------------------


class ConversationCompanyOut(Schema):
    id: int | None = Field(description="null for a buyer that keeps its name to itself")
    name: str = Field(description="The name, or for such a buyer its kind and country")


class ConversationOut(Schema):
    id: int
    subject: str
    buyer_company: ConversationCompanyOut
    supplier_company: ConversationCompanyOut
    buyer_hidden: bool = Field(
        description="The buyer's name and people are withheld from the supplier (a buying "
        "request that hides its buyer) until the buyer shows them"
    )
    product_id: int | None
    buying_request_id: int | None
    quantity: Decimal | None
    unit: str
    created_at: datetime
    last_message_at: datetime
    unread: int = Field(description="Messages from the other side your company has not read")


class MessageTranslationOut(Schema):
    language: str = Field(description="The request's language: en, zh-hans or zh-hant")
    text: str = Field(description="Plain text; escape it when showing it as HTML")
    machine_translated: bool = Field(
        description="Always true: written by machine translation, so the wording may be wrong; "
        "`body` holds the sender's own words"
    )


class MessageOut(Schema):
    id: int
    conversation_id: int
    sender_company_id: int | None = Field(description="null: a buyer that keeps its name to itself")
    sender_user_id: int | None
    sender_name: str
    body: str = Field(
        description="Plain text as typed; escape it when showing it as HTML. Empty when "
        "moderation hid the message"
    )
    hidden: bool = Field(description="Hidden by moderation: its text and files are withheld")
    language: str | None = Field(
        description="The language the body is written in, guessed from its text: en, zh-hans "
        "or zh-hant (other languages read as en); null when moderation hid the message"
    )
    translation: MessageTranslationOut | None = Field(
        description="The body machine-translated into the language of the request "
        "(Accept-Language); null when it is written in that language, in the other Chinese "
        "script, not translated yet (translations are written in the background, moments "
        "after the message is sent), or hidden"
    )
    created_at: datetime
    attachments: list[AttachmentOut]


class MessageIn(JsonBody):
    body: str


class InquiryIn(JsonBody):
    product_id: int | None = Field(None, description="A published product's id")
    company_id: int | None = Field(None, description="The supplier company, when no product")
    quantity: JsonDecimal | None = None
    unit: str = ""
    message: str


class NotificationOut(Schema):
    id: int
    kind: str
    text: str
    link: str
    read: bool
    created_at: datetime


class NotificationPage(Page):
    unread: int = Field(description="Your unread notifications")


class MarkRead(JsonBody):
    ids: list[int] | None = Field(None, description="Leave out to mark every notification read")


# --- helpers --------------------------------------------------------------------------------


def _reader(request: HttpRequest) -> Callable[[Conversation], int | None]:
    """The company the caller reads each conversation for (an operator reads every name),
    worked out once per request."""
    if is_operator(caller(request)):
        return lambda conversation: conversation.buyer_company_id
    company_id = caller_actor(request).company_id
    return lambda conversation: company_id


def _viewer(request: HttpRequest, conversation: Conversation) -> int | None:
    return _reader(request)(conversation)


def _company(
    conversation: Conversation, company: Company, *, viewer: int | None, language: str
) -> dict[str, Any]:
    shown = company.pk != conversation.buyer_company_id or conversation.shows_buyer_to(viewer)
    return {
        "id": company.pk if shown else None,
        "name": selectors.party_name(
            conversation, company, viewer_company_id=viewer, language=language
        ),
    }


def _conversation_out(
    conversation: Conversation,
    *,
    viewer: int | None,
    unread: int,
    buying_request_id: int | None,
) -> dict[str, Any]:
    language = get_language() or "en"
    return {
        "id": conversation.pk,
        "subject": conversation.subject,
        "buyer_company": _company(
            conversation, conversation.buyer_company, viewer=viewer, language=language
        ),
        "supplier_company": _company(
            conversation, conversation.supplier_company, viewer=viewer, language=language
        ),
        "buyer_hidden": conversation.buyer_hidden,
        "product_id": conversation.product_id,
        "buying_request_id": buying_request_id,
        "quantity": conversation.quantity,
        "unit": conversation.unit,
        "created_at": conversation.created_at,
        "last_message_at": conversation.last_message_at,
        "unread": unread,
    }


def _message_out(
    message: Message, conversation: Conversation, *, viewer: int | None
) -> dict[str, Any]:
    shown = selectors.sender_shown(message, conversation, viewer_company_id=viewer)
    machine_text = None if message.is_hidden else getattr(message, "machine_text", None)
    return {
        "id": message.pk,
        "conversation_id": message.conversation_id,
        "sender_company_id": message.sender_company_id if shown else None,
        "sender_user_id": message.sender_user_id if shown else None,
        "sender_name": message.sender_user.get_full_name() if message.sender_user and shown else "",
        "body": "" if message.is_hidden else message.body,
        "hidden": message.is_hidden,
        "language": None
        if message.is_hidden
        else getattr(message, "body_language", None) or message_language(message.body),
        "translation": None
        if machine_text is None
        else {
            "language": machine_text.language,
            "text": machine_text.text,
            "machine_translated": True,
        },
        "created_at": message.created_at,
        "attachments": [
            {
                "id": item.pk,
                "name": item.original_name,
                "content_type": item.content_type,
                "size": item.size,
                "url": reverse(
                    "api:get_attachment",
                    kwargs={"conversation_id": message.conversation_id, "attachment_id": item.pk},
                ),
            }
            for item in ([] if message.is_hidden else message.attachments.all())
        ],
    }


def _access(request: HttpRequest, conversation_id: str) -> Conversation:
    return selectors.access_conversation(user=caller(request), conversation_id=conversation_id)


def _unread(request: HttpRequest, conversation: Conversation) -> int:
    company_id = caller_actor(request).company_id
    if company_id is None or company_id not in (
        conversation.buyer_company_id,
        conversation.supplier_company_id,
    ):
        return 0
    return selectors.unread_in(conversation, company_id=company_id)


def _one_conversation_out(request: HttpRequest, conversation: Conversation) -> dict[str, Any]:
    """One conversation as the caller reads it, with its unread count and request link."""
    return _conversation_out(
        conversation,
        viewer=_viewer(request, conversation),
        unread=_unread(request, conversation),
        buying_request_id=sourcing_selectors.request_id_of_conversation(
            conversation_id=conversation.pk
        ),
    )


def _positive_id(value: int | None) -> int | None:
    return value if value is not None and 0 < value <= MAX_ID else None


# --- conversations --------------------------------------------------------------------------


@router.get("", response=list[ConversationOut], summary="Your company's conversations")
@paged()
def list_conversations(request: HttpRequest) -> Rows:
    reader = _reader(request)
    return Rows(
        sourcing_selectors.with_request_ids(conversations=selectors.inbox(user=caller(request))),
        render=lambda c: _conversation_out(
            c,
            viewer=reader(c),
            unread=getattr(c, "unread", 0),
            buying_request_id=c.buying_request_id,
        ),
    )


@router.post(
    "/inquiries",
    response={201: ConversationOut},
    summary="Send an inquiry: opens a conversation with a supplier",
)
def create_inquiry(request: HttpRequest, payload: InquiryIn):
    product = None
    company = None
    if payload.product_id is not None:
        product_id = _positive_id(payload.product_id)
        product = get_published_product(product_id) if product_id else None
        if product is None:
            raise not_found(_("No such product."))
    elif payload.company_id is not None:
        company_id = _positive_id(payload.company_id)
        company = public_companies().filter(pk=company_id).first() if company_id else None
        if company is None:
            raise not_found(_("No such company."))
    else:
        raise validation_problem({"product_id": [_("Send product_id or company_id.")]})
    conversation = services.inquiry_send(
        actor=caller(request),
        product=product,
        company=company,
        quantity=payload.quantity,
        unit=payload.unit,
        message=payload.message,
    )
    conversation = selectors.access_conversation(
        user=caller(request), conversation_id=conversation.pk
    )
    return Status(
        201,
        _conversation_out(
            conversation,
            viewer=_viewer(request, conversation),
            unread=0,
            buying_request_id=None,
        ),
    )


@router.get("/{conversation_id}", response=ConversationOut, summary="One conversation")
def get_conversation(request: HttpRequest, conversation_id: str):
    conversation = _access(request, conversation_id)
    return _one_conversation_out(request, conversation)


@router.get(
    "/{conversation_id}/messages", response=list[MessageOut], summary="Messages, oldest first"
)
@paged()
def list_messages(request: HttpRequest, conversation_id: str) -> Rows:
    conversation = _access(request, conversation_id)
    viewer = _viewer(request, conversation)
    language = get_language() or "en"
    return Rows(
        selectors.conversation_messages(conversation),
        render=lambda message: _message_out(message, conversation, viewer=viewer),
        prepare=lambda messages: attach_message_texts(messages, language),
    )


@router.post(
    "/{conversation_id}/messages", response={201: MessageOut}, summary="Reply in a conversation"
)
def send_message(request: HttpRequest, conversation_id: str, payload: MessageIn):
    conversation = _access(request, conversation_id)
    message = services.message_send(
        actor=caller(request), conversation=conversation, body=payload.body
    )
    attach_message_texts([message], get_language() or "en")
    return Status(201, _message_out(message, conversation, viewer=_viewer(request, conversation)))


@router.post(
    "/{conversation_id}/messages/upload",
    response={201: MessageOut},
    summary="Reply with attachments (multipart: body and up to 3 files)",
)
def send_message_with_files(
    request: HttpRequest,
    conversation_id: str,
    body: Form[str],
    files: File[list[UploadedFile]] = None,  # type: ignore[assignment]
):
    conversation = _access(request, conversation_id)
    if "files" in request.POST:
        raise validation_problem({"files": [_("Send the files as file parts, not as text.")]})
    message = services.message_send(
        actor=caller(request), conversation=conversation, body=body, attachments=files or []
    )
    attach_message_texts([message], get_language() or "en")
    return Status(201, _message_out(message, conversation, viewer=_viewer(request, conversation)))


@router.get(
    "/{conversation_id}/attachments/{attachment_id}",
    response={200: None},
    summary="Download an attachment",
)
def get_attachment(request: HttpRequest, conversation_id: str, attachment_id: str):
    item = selectors.access_conversation_attachment(
        user=caller(request), conversation_id=conversation_id, attachment_id=attachment_id
    )
    return uploaded_file_response(
        item.file, name=item.original_name, content_type=item.content_type, as_attachment=True
    )


@router.post(
    "/{conversation_id}/show-buyer",
    response=ConversationOut,
    summary="Show the buyer's company name to the supplier (the buyer's members only)",
)
def show_buyer(request: HttpRequest, conversation_id: str):
    conversation = _access(request, conversation_id)
    conversation = services.conversation_show_buyer(
        actor=caller(request), conversation=conversation
    )
    return _one_conversation_out(request, conversation)


@router.post("/{conversation_id}/read", response={204: None}, summary="Mark everything read")
def mark_read(request: HttpRequest, conversation_id: str):
    conversation = _access(request, conversation_id)
    services.conversation_mark_read(actor=caller(request), conversation=conversation)
    return Status(204, None)


# --- notifications --------------------------------------------------------------------------


def _notification_out(notification: Notification, language: str) -> dict[str, Any]:
    return {
        "id": notification.pk,
        "kind": notification.kind,
        "text": notify_selectors.notification_text(notification),
        "link": notify_selectors.notification_link(notification, language),
        "read": notification.read_at is not None,
        "created_at": notification.created_at,
    }


@notifications_router.get("", response=list[NotificationOut], summary="Your notifications")
@paged(output=NotificationPage)
def list_notifications(request: HttpRequest) -> Rows:
    language = get_language() or "en"
    return Rows(
        notify_selectors.notifications_for(user=caller(request)),
        render=lambda n: _notification_out(n, language),
        extra={"unread": notify_selectors.unread_notification_count(user=caller(request))},
    )


@notifications_router.post(
    "/read", response={200: dict[str, int]}, summary="Mark notifications read"
)
def read_notifications(request: HttpRequest, payload: MarkRead):
    changed = notify_services.notifications_mark_read(actor=caller(request), ids=payload.ids)
    return {"marked": changed}
