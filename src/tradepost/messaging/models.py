"""Inquiries and conversations between a buyer company and a supplier company.

A conversation belongs to two companies, not to people: every member of either company sees it
and the unread state is kept per company (`ConversationRead`).
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.files.storage import FileSystemStorage
from django.core.validators import MaxLengthValidator, MinValueValidator
from django.db import models
from django.utils.functional import cached_property
from django.utils.translation import gettext_lazy as _

from tradepost.catalog.models import Product, Unit
from tradepost.companies.models import Company

#: The longest message body accepted, in characters.
MESSAGE_MAX_LENGTH = 5000
SUBJECT_MAX_LENGTH = 200


class Conversation(models.Model):
    """A thread between a buyer (person and company) and a supplier company.

    A conversation about a buying request is linked to it by the sourcing app
    (`sourcing.RequestConversation`), which sits above this one (ADR 0015).
    """

    buyer_company = models.ForeignKey(
        Company,
        on_delete=models.CASCADE,
        related_name="buyer_conversations",
        verbose_name=_("buyer company"),
    )
    buyer_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="started_conversations",
        verbose_name=_("buyer"),
    )
    supplier_company = models.ForeignKey(
        Company,
        on_delete=models.CASCADE,
        related_name="supplier_conversations",
        verbose_name=_("supplier company"),
    )
    subject = models.CharField(_("subject"), max_length=SUBJECT_MAX_LENGTH)
    product = models.ForeignKey(
        Product,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="conversations",
        verbose_name=_("product"),
    )
    quantity = models.DecimalField(
        _("quantity"),
        max_digits=14,
        decimal_places=3,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
    )
    unit = models.CharField(_("unit"), max_length=12, choices=Unit.choices, blank=True)
    created_at = models.DateTimeField(_("started at"), db_index=True)
    last_message_at = models.DateTimeField(_("last message at"))
    supplier_first_reply_at = models.DateTimeField(
        _("supplier's first reply at"), null=True, blank=True
    )
    #: The buyer's company name and people are withheld from the supplier: a conversation
    #: opened from a buying request that hides its buyer, until the buyer shows its name.
    buyer_hidden = models.BooleanField(_("buyer's name withheld"), default=False)

    class Meta:
        verbose_name = _("conversation")
        verbose_name_plural = _("conversations")
        ordering = ["-last_message_at", "-id"]
        indexes = [
            models.Index(fields=["buyer_company", "-last_message_at"], name="conv_buyer_recent"),
            models.Index(
                fields=["supplier_company", "-last_message_at"], name="conv_supplier_recent"
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(buyer_company=models.F("supplier_company")),
                name="conversation_two_companies",
            ),
            models.CheckConstraint(
                condition=models.Q(quantity__isnull=True) | models.Q(quantity__gt=0),
                name="conversation_quantity_positive",
            ),
        ]

    def __str__(self) -> str:
        return self.subject

    def shows_buyer_to(self, company_id: int | None) -> bool:
        """Whether a member of `company_id` sees the buyer's name and people (the buyer's own
        members always do; an operator reads them in the admin)."""
        return not self.buyer_hidden or company_id == self.buyer_company_id

    def other_company_id(self, company_id: int) -> int:
        """The id of the company on the other side from `company_id`."""
        if company_id == self.buyer_company_id:
            return self.supplier_company_id
        return self.buyer_company_id


class Message(models.Model):
    """Plain text written by a member of one of the conversation's two companies.

    The body is stored as typed and escaped when shown; `body_hash` (of the body with
    whitespace and case folded) finds the same text sent to many companies.
    """

    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="messages"
    )
    sender_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="sent_messages",
        verbose_name=_("sender"),
    )
    sender_company = models.ForeignKey(
        Company, on_delete=models.CASCADE, related_name="+", verbose_name=_("sender company")
    )
    body = models.TextField(_("message"), validators=[MaxLengthValidator(MESSAGE_MAX_LENGTH)])
    body_hash = models.CharField(max_length=64, db_index=True)
    flagged = models.BooleanField(
        _("flagged"),
        default=False,
        help_text=_("The same text was sent to many companies within a day."),
    )
    created_at = models.DateTimeField(_("sent at"))
    #: When an operator hid the message (moderation): its text and files are no longer shown
    #: to the two companies; None while it is shown.
    hidden_at = models.DateTimeField(_("hidden by moderation at"), null=True, blank=True)

    class Meta:
        verbose_name = _("message")
        verbose_name_plural = _("messages")
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(fields=["conversation", "id"], name="message_conversation_id"),
            models.Index(fields=["sender_user", "created_at"], name="message_sender_recent"),
        ]

    def __str__(self) -> str:
        return self.body[:60]

    @property
    def is_hidden(self) -> bool:
        return self.hidden_at is not None


class ConversationRead(models.Model):
    """How far one company has read a conversation; shared by all its members."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="reads")
    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="+")
    last_read_message_id = models.PositiveBigIntegerField(default=0)
    read_at = models.DateTimeField()

    class Meta:
        verbose_name = _("conversation read mark")
        verbose_name_plural = _("conversation read marks")
        constraints = [
            models.UniqueConstraint(
                fields=["conversation", "company"], name="one_read_mark_per_company"
            )
        ]

    def __str__(self) -> str:
        return f"{self.company_id} read {self.conversation_id} to {self.last_read_message_id}"


class PrivateAttachmentStorage(FileSystemStorage):
    """Files beside MEDIA_ROOT, not under it: /media/ is served to anyone, attachments only
    through the conversation's access check."""

    @cached_property
    def base_location(self) -> str:
        default = str(Path(settings.MEDIA_ROOT).parent / "private" / "attachments")
        return self._value_or_setting(getattr(self, "_location", None), default)


def _attachment_storage() -> PrivateAttachmentStorage:
    return PrivateAttachmentStorage()


class MessageAttachment(models.Model):
    """A PDF, JPEG or PNG sent with a message (type checked from its first bytes)."""

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="attachments")
    file = models.FileField(upload_to="%Y/%m/", storage=_attachment_storage, max_length=200)
    original_name = models.CharField(_("file name"), max_length=150)
    content_type = models.CharField(_("type"), max_length=40)
    size = models.PositiveIntegerField(_("size in bytes"))

    class Meta:
        verbose_name = _("attachment")
        verbose_name_plural = _("attachments")
        ordering = ["id"]

    def __str__(self) -> str:
        return self.original_name
