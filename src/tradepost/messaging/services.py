"""Writes of the messaging app: inquiries, messages and read marks.

Each function checks the actor's right itself (web pages, the API and commands behave the
same), runs in one transaction, validates before saving, and queues its emails on commit.
Notifications go to every member of the other company; emails only to those who did not
unsubscribe, each in the recipient's own language.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from tradepost.accounts.models import User
from tradepost.accounts.selectors import is_operator
from tradepost.accounts.throttle import throttle, throttle_key
from tradepost.audit.services import audit_record, field_changes
from tradepost.catalog.models import Product, ProductStatus, Unit
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company, Membership
from tradepost.companies.selectors import company_described, standing_refusal
from tradepost.core.cleaning import FieldInvalid, storable
from tradepost.core.events import EventType, emit
from tradepost.core.images import ImageRejected, check_image
from tradepost.core.languages import normalise_ui_language
from tradepost.core.private_files import check_upload_size
from tradepost.core.queueing import enqueue_on_commit
from tradepost.messaging.errors import (
    ConversationNotFound,
    MessagingError,
    MessagingErrorCode,
    RateLimited,
)
from tradepost.messaging.machine_texts import message_language
from tradepost.messaging.models import (
    MESSAGE_MAX_LENGTH,
    SUBJECT_MAX_LENGTH,
    Conversation,
    ConversationRead,
    Message,
    MessageAttachment,
)
from tradepost.messaging.selectors import party_name
from tradepost.messaging.tasks import translate_messages
from tradepost.notify.emails import Quoted
from tradepost.notify.models import NotificationKind
from tradepost.notify.selectors import wants_message_emails
from tradepost.notify.services import (
    link_in,
    notification_create,
    queue_email,
    unsubscribe_token,
)
from tradepost.translation.engines import Kind

#: The same text sent to this many different companies within a day is flagged.
DUPLICATE_WINDOW = timedelta(hours=24)
#: A person's inquiries and messages are limited per hour, counted by `accounts.throttle`
#: under this action, a key per sender and kind (`sender_throttle_key`).
RATE_WINDOW = timedelta(hours=1)
THROTTLE_ACTION = "messaging"
INQUIRY_KEY = "inquiry-sender"
MESSAGE_KEY = "message-sender"
QUANTITY_MAX = Decimal("99999999999")
EMAIL_EXCERPT_LENGTH = 500


def inquiries_per_hour() -> int:
    return int(settings.TRADEPOST_INQUIRIES_PER_HOUR)


def messages_per_hour() -> int:
    return int(settings.TRADEPOST_MESSAGES_PER_HOUR)


def sender_throttle_key(kind: str, actor: User) -> str:
    """The throttle's key for `actor`'s inquiries (INQUIRY_KEY) or messages (MESSAGE_KEY)."""
    return throttle_key(kind, str(actor.pk))


def duplicate_companies_threshold() -> int:
    return int(settings.TRADEPOST_DUPLICATE_MESSAGE_COMPANIES)


# --- input ----------------------------------------------------------------------------------


def clean_body(body: Any) -> str:
    """The message text, trimmed; refused when empty, too long or not text."""
    if not isinstance(body, str):
        raise MessagingError(MessagingErrorCode.EMPTY_BODY, _("Write a message."), field="message")
    body = storable(body).strip()
    if not body:
        raise MessagingError(MessagingErrorCode.EMPTY_BODY, _("Write a message."), field="message")
    if len(body) > MESSAGE_MAX_LENGTH:
        raise MessagingError(
            MessagingErrorCode.BODY_TOO_LONG,
            _("A message can have at most %(limit)d characters; this one has %(length)d.")
            % {"limit": MESSAGE_MAX_LENGTH, "length": len(body)},
            field="message",
        )
    return body


def body_fingerprint(body: str) -> str:
    """A hash of the text with case and whitespace folded, to find copies of it."""
    folded = " ".join(body.casefold().split())
    return hashlib.sha256(folded.encode("utf-8", "surrogatepass")).hexdigest()


def _clean_quantity(quantity: Any, unit: Any) -> tuple[Decimal | None, str]:
    if quantity in (None, ""):
        return None, ""
    try:
        value = Decimal(str(quantity))
    except (InvalidOperation, ValueError):
        value = Decimal("NaN")
    if not value.is_finite() or value <= 0 or value > QUANTITY_MAX:
        raise MessagingError(
            MessagingErrorCode.INVALID_QUANTITY,
            _("Enter a quantity greater than zero."),
            field="quantity",
        )
    if value != value.quantize(Decimal("0.001")):
        raise MessagingError(
            MessagingErrorCode.INVALID_QUANTITY,
            _("Enter a quantity with at most three decimal places."),
            field="quantity",
        )
    if unit not in Unit.values:
        raise MessagingError(
            MessagingErrorCode.INVALID_UNIT, _("Choose a unit from the list."), field="unit"
        )
    return value, str(unit)


def _refuse_if_suspended(company: Company) -> None:
    """A suspended or banned company's members send nothing."""
    suspended = standing_refusal(company)
    if suspended:
        raise MessagingError(MessagingErrorCode.COMPANY_SUSPENDED, suspended)


# --- attachments ----------------------------------------------------------------------------

#: Accepted types, recognised from the file's first bytes (never from its name).
ATTACHMENT_SIGNATURES = (
    (b"%PDF-", "application/pdf", "pdf"),
    (b"\xff\xd8\xff", "image/jpeg", "jpg"),
    (b"\x89PNG\r\n\x1a\n", "image/png", "png"),
)


@dataclass(frozen=True)
class CheckedAttachment:
    content: bytes
    original_name: str
    content_type: str
    extension: str


def attachment_max_bytes() -> int:
    return int(settings.TRADEPOST_MESSAGE_ATTACHMENT_MAX_BYTES)


def _rejected(message: str) -> MessagingError:
    return MessagingError(MessagingErrorCode.ATTACHMENT_REJECTED, message, field="attachments")


def check_attachments(files: Sequence[Any]) -> list[CheckedAttachment]:
    """Read and check uploaded files: at most three, each a PDF, JPEG or PNG of at most
    5 MB (an image whole and within the pixel limit). Refuses the whole set when one file is
    refused."""
    files = list(files or ())
    limit = int(settings.TRADEPOST_MESSAGE_MAX_ATTACHMENTS)
    if len(files) > limit:
        raise _rejected(_("Attach at most %(limit)d files.") % {"limit": limit})
    max_bytes = attachment_max_bytes()
    checked = []
    for upload in files:
        name = os.path.basename(str(getattr(upload, "name", "") or "file")).strip()[:150]
        try:
            check_upload_size(upload, name=name or "?", limit=max_bytes)
        except FieldInvalid as refusal:
            raise _rejected(refusal.messages[0]) from None
        content = upload.read(max_bytes + 1)
        if not 0 < len(content) <= max_bytes:  # a file that declared a size it does not have
            raise _rejected(_("%(name)s is not a PDF, JPEG or PNG file.") % {"name": name or "?"})
        kind = next(
            ((ctype, ext) for sig, ctype, ext in ATTACHMENT_SIGNATURES if content.startswith(sig)),
            None,
        )
        if kind is None:
            raise _rejected(_("%(name)s is not a PDF, JPEG or PNG file.") % {"name": name or "?"})
        if kind[0].startswith("image/"):
            # Kept as sent, but only a whole image within the pixel limit (not a truncated
            # file, not a decompression bomb that would stall whoever opens it).
            try:
                check_image(content, max_bytes=max_bytes)
            except ImageRejected as exc:
                raise _rejected(
                    _("%(name)s: %(problem)s") % {"name": name or "?", "problem": exc}
                ) from None
        checked.append(
            CheckedAttachment(
                content=content,
                original_name=name or f"attachment.{kind[1]}",
                content_type=kind[0],
                extension=kind[1],
            )
        )
    return checked


def _store_attachments(message: Message, attachments: list[CheckedAttachment]) -> None:
    for item in attachments:
        attachment = MessageAttachment(
            message=message,
            original_name=item.original_name,
            content_type=item.content_type,
            size=len(item.content),
        )
        attachment.file.save(
            f"{secrets.token_hex(16)}.{item.extension}", ContentFile(item.content), save=False
        )
        attachment.full_clean()
        attachment.save()


# --- abuse limits ---------------------------------------------------------------------------


def _lock_sender(actor: User) -> None:
    """Serialise the actor's own writes so a limit can't be passed by sending in parallel.

    On PostgreSQL this locks the user's row; on SQLite every write transaction already holds
    the database's write lock from its start (IMMEDIATE transactions). The lock (like the
    conversation's below) is FOR NO KEY UPDATE: it serialises writers of the same row but not
    inserts that merely point at it. With FOR UPDATE, two people answering each other at once
    deadlocked: each held their own user row, and the notification the other was writing
    (which points at that row) waited for it while its writer waited for the conversation.
    """
    users = User.objects.select_for_update(no_key=True).filter(pk=actor.pk)
    users.values_list("pk", flat=True).first()


def _count_sending(actor: User, *, inquiry: bool) -> None:
    """Count one message of the actor (and one inquiry when it opens a conversation) with the
    one rate limiter, or refuse it when the hour already holds the limit. Called after
    `_lock_sender`, in the sending transaction: in the database store the counts commit or
    roll back with the message, and the lock keeps two sends of one person from both taking
    the last one (the cache store counts atomically by itself)."""
    limits = [(sender_throttle_key(MESSAGE_KEY, actor), messages_per_hour())]
    if inquiry:
        limits.insert(0, (sender_throttle_key(INQUIRY_KEY, actor), inquiries_per_hour()))
    answer = throttle(action=THROTTLE_ACTION, limits=limits, window=RATE_WINDOW)
    if answer:
        return
    if inquiry and answer.key == limits[0][0]:
        raise RateLimited(
            MessagingErrorCode.INQUIRY_RATE_LIMIT,
            _("You have sent %(limit)d inquiries in the last hour. Please try again later.")
            % {"limit": answer.limit},
        )
    raise RateLimited(
        MessagingErrorCode.MESSAGE_RATE_LIMIT,
        _("You have sent %(limit)d messages in the last hour. Please try again later.")
        % {"limit": answer.limit},
    )


def _flag_copies(message: Message, now: datetime) -> None:
    """Flag `message` and its copies when the same text went to many companies in a day."""
    copies = list(
        Message.objects.filter(
            sender_company_id=message.sender_company_id,
            body_hash=message.body_hash,
            created_at__gt=now - DUPLICATE_WINDOW,
        ).values_list("pk", "conversation__buyer_company_id", "conversation__supplier_company_id")
    )
    receivers = {
        supplier if buyer == message.sender_company_id else buyer for _pk, buyer, supplier in copies
    }
    if len(receivers) >= duplicate_companies_threshold():
        Message.objects.filter(pk__in=[pk for pk, _b, _s in copies]).update(flagged=True)
        message.flagged = True


# --- writes ---------------------------------------------------------------------------------


def _add_message(
    *, conversation: Conversation, actor: User, company_id: int, body: str, now: datetime
) -> Message:
    message = Message(
        conversation=conversation,
        sender_user=actor,
        sender_company_id=company_id,
        body=body,
        body_hash=body_fingerprint(body),
        created_at=now,
    )
    message.full_clean()
    message.save()
    _flag_copies(message, now)
    _mark(conversation=conversation, company_id=company_id, upto=message.pk, now=now)
    enqueue_on_commit(translate_messages, [message.pk])
    return message


def inquiry_send(
    *,
    actor: User,
    message: Any,
    product: Product | None = None,
    company: Company | None = None,
    quantity: Any = None,
    unit: Any = "",
    subject: str = "",
    attachments: Sequence[Any] = (),
    buyer_hidden: bool = False,
) -> Conversation:
    """Open a conversation from the actor's company to the supplier of `product` (or to
    `company`), with `message` as its first message; `buyer_hidden` withholds the buyer's name
    and people from the supplier (a request that hides its buyer) until the buyer shows them
    (`conversation_show_buyer`)."""
    sender = actor_for(actor).company
    if sender is None:
        raise MessagingError(
            MessagingErrorCode.NO_COMPANY,
            _("Create or join a company first: inquiries are sent on behalf of a company."),
        )
    _refuse_if_suspended(sender)
    if product is not None:
        if product.status != ProductStatus.PUBLISHED or product.company.is_suspended:
            raise MessagingError(
                MessagingErrorCode.TARGET_NOT_FOUND, _("This product is not available.")
            )
        supplier_id = product.company_id
    elif company is not None:
        if company.is_suspended:
            raise MessagingError(
                MessagingErrorCode.TARGET_NOT_FOUND, _("This company is not available.")
            )
        supplier_id = company.pk
    else:
        raise MessagingError(
            MessagingErrorCode.TARGET_NOT_FOUND, _("Choose a product or a company to ask.")
        )
    if supplier_id == sender.pk:
        raise MessagingError(
            MessagingErrorCode.OWN_COMPANY, _("You cannot send an inquiry to your own company.")
        )
    body = clean_body(message)
    quantity_value, unit_value = _clean_quantity(quantity, unit)
    files = check_attachments(attachments)
    subject = " ".join(str(subject or "").split())
    if not subject:
        subject = product.title if product is not None else " ".join(body.split())
    subject = subject[:SUBJECT_MAX_LENGTH]

    with transaction.atomic():
        _lock_sender(actor)
        now = timezone.now()
        _count_sending(actor, inquiry=True)
        conversation = Conversation(
            buyer_company_id=sender.pk,
            buyer_user=actor,
            supplier_company_id=supplier_id,
            subject=subject,
            product=product,
            quantity=quantity_value,
            unit=unit_value,
            created_at=now,
            last_message_at=now,
            buyer_hidden=buyer_hidden,
        )
        try:
            conversation.full_clean()
        except ValidationError as exc:
            raise MessagingError(
                MessagingErrorCode.TARGET_NOT_FOUND, " ".join(exc.messages)
            ) from exc
        conversation.save()
        first = _add_message(
            conversation=conversation,
            actor=actor,
            company_id=sender.pk,
            body=body,
            now=now,
        )
        _store_attachments(first, files)
        _notify_other_side(
            conversation=conversation,
            message=first,
            kind=NotificationKind.NEW_INQUIRY,
            recipients_company_id=supplier_id,
            sender_company=sender,
        )
        _emit_message_event(
            EventType.INQUIRY_CREATED,
            conversation=conversation,
            message=first,
            to_company_id=supplier_id,
            sender=sender,
        )
    return conversation


def message_send(
    *, actor: User, conversation: Conversation, body: Any, attachments: Sequence[Any] = ()
) -> Message:
    """Add the actor's reply to a conversation of their company."""
    company = actor_for(actor).company
    company_id = company.pk if company else None
    if company_id not in (conversation.buyer_company_id, conversation.supplier_company_id):
        if is_operator(actor):
            raise MessagingError(
                MessagingErrorCode.NOT_PARTICIPANT,
                _("Only members of the two companies can write in a conversation."),
            )
        raise ConversationNotFound(MessagingErrorCode.NOT_FOUND, _("No such conversation."))
    assert company is not None and company_id is not None
    _refuse_if_suspended(company)
    text = clean_body(body)
    files = check_attachments(attachments)
    with transaction.atomic():
        _lock_sender(actor)
        now = timezone.now()
        _count_sending(actor, inquiry=False)
        locked = Conversation.objects.select_for_update(no_key=True).get(pk=conversation.pk)
        message = _add_message(
            conversation=locked, actor=actor, company_id=company_id, body=text, now=now
        )
        _store_attachments(message, files)
        changes: dict[str, Any] = {"last_message_at": now}
        if company_id == locked.supplier_company_id and locked.supplier_first_reply_at is None:
            changes["supplier_first_reply_at"] = now
        Conversation.objects.filter(pk=locked.pk).update(**changes)
        for field, value in changes.items():
            setattr(conversation, field, value)
        _notify_other_side(
            conversation=locked,
            message=message,
            kind=NotificationKind.NEW_MESSAGE,
            recipients_company_id=locked.other_company_id(company_id),
            sender_company=company,
        )
        _emit_message_event(
            EventType.MESSAGE_CREATED,
            conversation=locked,
            message=message,
            to_company_id=locked.other_company_id(company_id),
            sender=company,
        )
    return message


# --- moderation ------------------------------------------------------------------------------


def _moderate(*, actor: Any, message: Message, hidden_at: datetime | None, action: str) -> Message:
    """Hide (`hidden_at`) or show again (None) a message, by an operator, with its audit
    entry (`message.<action>`); nothing is written when it is so already."""
    if not is_operator(actor):
        raise MessagingError(MessagingErrorCode.NOT_PARTICIPANT, _("Only operators can do this."))
    with transaction.atomic():
        locked = Message.objects.select_for_update().filter(pk=message.pk).first()
        if locked is None:
            raise ConversationNotFound(MessagingErrorCode.NOT_FOUND, _("No such conversation."))
        if (locked.hidden_at is None) == (hidden_at is None):
            return locked
        audit_record(
            actor=actor,
            action=f"message.{action}",
            target=locked,
            changes=field_changes({"hidden_at": locked.hidden_at}, {"hidden_at": hidden_at}),
            label=locked.body[:80],
        )
        locked.hidden_at = hidden_at
        locked.save(update_fields=["hidden_at"])
    return locked


def message_hide(*, actor: Any, message: Message) -> Message:
    """Hide a message by moderation (operators): the two companies see that a message was
    removed, not its text nor its files."""
    return _moderate(actor=actor, message=message, hidden_at=timezone.now(), action="hide")


def message_restore(*, actor: Any, message: Message) -> Message:
    """Show a hidden message again (operators)."""
    restored = _moderate(actor=actor, message=message, hidden_at=None, action="restore")
    enqueue_on_commit(translate_messages, [restored.pk])  # hidden, it was not translated
    return restored


def _mark(*, conversation: Conversation, company_id: int, upto: int, now: datetime) -> None:
    mark, created = ConversationRead.objects.select_for_update(no_key=True).get_or_create(
        conversation=conversation,
        company_id=company_id,
        defaults={"last_read_message_id": upto, "read_at": now},
    )
    if not created and mark.last_read_message_id < upto:
        mark.last_read_message_id = upto
        mark.read_at = now
        mark.save(update_fields=["last_read_message_id", "read_at"])


def conversation_show_buyer(*, actor: User, conversation: Conversation) -> Conversation:
    """The buyer shows its company name and people to the supplier of a conversation that
    withheld them (a member of the buyer company decides; what was sent stays as sent)."""
    company = actor_for(actor).company
    if company is None or company.pk != conversation.buyer_company_id:
        raise MessagingError(
            MessagingErrorCode.NOT_PARTICIPANT,
            _("Only the buyer's members can show its name in this conversation."),
        )
    _refuse_if_suspended(company)
    Conversation.objects.filter(pk=conversation.pk).update(buyer_hidden=False)
    conversation.buyer_hidden = False
    return conversation


def conversation_mark_read(*, actor: User, conversation: Conversation) -> None:
    """Mark every message so far read for the actor's company (and so for all its members).
    Operators looking at a conversation of other companies change nothing."""
    company = actor_for(actor).company
    company_id = company.pk if company else None
    if company_id not in (conversation.buyer_company_id, conversation.supplier_company_id):
        if is_operator(actor):
            return
        raise ConversationNotFound(MessagingErrorCode.NOT_FOUND, _("No such conversation."))
    assert company_id is not None
    with transaction.atomic():
        latest = conversation.messages.order_by("-id").values_list("id", flat=True).first() or 0
        _mark(conversation=conversation, company_id=company_id, upto=latest, now=timezone.now())


# --- notifications --------------------------------------------------------------------------


def _emit_message_event(
    event_type: str,
    *,
    conversation: Conversation,
    message: Message,
    to_company_id: int,
    sender: Company,
) -> None:
    """Tell the receiving company's webhooks of a new inquiry or message (docs/webhooks.md),
    in the transaction that writes it."""
    shown = conversation.shows_buyer_to(to_company_id) or sender.pk != conversation.buyer_company_id
    data: dict[str, object] = {
        "conversation": {"id": conversation.pk, "subject": conversation.subject},
        "message": {"id": message.pk, "body": message.body, "created_at": message.created_at},
        # A buyer that keeps its name to itself is described, never named or linked.
        "from_company": (
            {"id": sender.pk, "slug": sender.slug, "name": sender.legal_name}
            if shown
            else {"id": None, "slug": None, "name": company_described(sender, "en")}
        ),
    }
    if event_type == EventType.INQUIRY_CREATED:
        product = conversation.product
        data["product"] = {"id": product.pk, "title": product.title} if product else None
        data["quantity"] = conversation.quantity
        data["unit"] = conversation.unit
    emit(event_type, company_id=to_company_id, payload=data)


def _notify_other_side(
    *,
    conversation: Conversation,
    message: Message,
    kind: str,
    recipients_company_id: int,
    sender_company: Company,
) -> None:
    with translation.override("en"):
        link = reverse("messaging:detail", args=[conversation.pk])
    members = (
        Membership.objects.filter(company_id=recipients_company_id, user__is_active=True)
        .select_related("user")
        .order_by("pk")
    )
    for member in members:
        recipient = member.user
        language = normalise_ui_language(recipient.preferred_language)
        company_name = party_name(
            conversation,
            sender_company,
            viewer_company_id=recipients_company_id,
            language=language,
        )
        notification_create(
            recipient=recipient,
            kind=kind,
            params={"company": company_name, "subject": conversation.subject},
            link=link,
            now=message.created_at,
        )
        if wants_message_emails(recipient):
            _queue_message_email(
                recipient=recipient,
                language=language,
                kind=kind,
                conversation=conversation,
                message=message,
                company_name=company_name,
            )


def _queue_message_email(
    *,
    recipient: User,
    language: str,
    kind: str,
    conversation: Conversation,
    message: Message,
    company_name: str,
) -> None:
    with translation.override(language):
        link = link_in(language, "messaging:detail", args=[conversation.pk])
        unsubscribe = link_in(
            language, "messaging:unsubscribe", args=[unsubscribe_token(recipient)]
        )
        if kind == NotificationKind.NEW_INQUIRY:
            subject = _("New inquiry from %(company)s: %(subject)s")
            template = "messaging_new_inquiry"
        else:
            subject = _("New message from %(company)s in “%(subject)s”")
            template = "messaging_new_message"
        subject = subject % {"company": company_name, "subject": conversation.subject}
        unit = conversation.get_unit_display() if conversation.unit else ""
    queue_email(
        to=recipient.email,
        subject=subject,
        template=template,
        quoted={
            "excerpt": Quoted(
                message.body,
                message_language(message.body),
                Kind.MESSAGE,
                limit=EMAIL_EXCERPT_LENGTH,
            ),
            "subject": Quoted(
                conversation.subject, message_language(conversation.subject), Kind.TITLE
            ),
        },
        context={
            "recipient_name": recipient.get_short_name(),
            "company_name": company_name,
            "quantity": conversation.quantity,
            "unit": unit,
            "link": link,
            "unsubscribe_link": unsubscribe,
        },
        language=language,
    )
