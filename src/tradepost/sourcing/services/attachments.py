"""Files attached to a buying request or a quotation: PDFs and images (re-encoded), checked,
stored, removed."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils.translation import gettext as _

from tradepost.accounts.selectors import user_can_publish
from tradepost.companies.actors import actor_for
from tradepost.core.cleaning import storable
from tradepost.core.images import ImageRejected, process_image
from tradepost.sourcing.errors import SourcingError, SourcingErrorCode
from tradepost.sourcing.models import Attachment, BuyingRequest, Quotation, RequestStatus
from tradepost.sourcing.services._common import _buyer_company, _lock_request

ATTACHMENTS_MAX_PER_OBJECT = 5
ATTACHMENT_NAME_MAX_LENGTH = 200
PDF_CONTENT_TYPE = "application/pdf"


def attachment_max_bytes() -> int:
    return int(settings.TRADEPOST_ATTACHMENT_MAX_BYTES)


def _attachment_file(upload: Any) -> tuple[ContentFile, str, int]:
    """Check an upload (a PDF, or an image that is re-encoded) and return what to store."""
    size = getattr(upload, "size", None) or 0
    if size > attachment_max_bytes():
        raise SourcingError(
            SourcingErrorCode.INVALID,
            {
                "file": [
                    _("The file is too large (%(size)d KB); the limit is %(limit)d KB.")
                    % {"size": size // 1024, "limit": attachment_max_bytes() // 1024}
                ]
            },
        )
    if size == 0:
        raise SourcingError(SourcingErrorCode.INVALID, {"file": [_("The file is empty.")]})
    upload.seek(0)
    head = upload.read(5)
    upload.seek(0)
    if head == b"%PDF-":
        data = upload.read()
        if b"%%EOF" not in data[-2048:]:
            raise SourcingError(
                SourcingErrorCode.INVALID, {"file": [_("The PDF file is damaged or incomplete.")]}
            )
        return ContentFile(data, name=f"{secrets.token_hex(16)}.pdf"), PDF_CONTENT_TYPE, len(data)
    try:
        processed = process_image(upload, max_bytes=attachment_max_bytes())
    except ImageRejected as exc:
        if not exc.not_an_image:  # an image, but too many pixels: say so
            raise SourcingError(SourcingErrorCode.INVALID, {"file": [str(exc)]}) from None
        raise SourcingError(
            SourcingErrorCode.INVALID,
            {"file": [_("Only PDF files and JPEG, PNG, WebP or GIF images are accepted.")]},
        ) from None
    name = processed.image.name or ""
    content_type = "image/png" if name.endswith(".png") else "image/jpeg"
    return processed.image, content_type, processed.image.size


def _original_name(upload: Any) -> str:
    name = storable(str(getattr(upload, "name", "") or "file"))
    name = name.replace("\\", "/").rsplit("/", 1)[-1].strip() or "file"
    return name[-ATTACHMENT_NAME_MAX_LENGTH:]


def _store_attachment(
    *, actor: Any, upload: Any, request: BuyingRequest | None, quotation: Quotation | None
) -> Attachment:
    parent_filter = {"request": request} if request is not None else {"quotation": quotation}
    if Attachment.objects.filter(**parent_filter).count() >= ATTACHMENTS_MAX_PER_OBJECT:
        raise SourcingError(
            SourcingErrorCode.INVALID,
            {
                "file": [
                    _("Attach at most %(count)d files.") % {"count": ATTACHMENTS_MAX_PER_OBJECT}
                ]
            },
        )
    content, content_type, size = _attachment_file(upload)
    attachment = Attachment(
        request=request,
        quotation=quotation,
        original_name=_original_name(upload),
        content_type=content_type,
        size=size,
        uploaded_by=actor,
    )
    attachment.file.save(content.name or "file", content, save=False)
    stored_name = attachment.file.name or ""
    try:
        attachment.full_clean()
        attachment.save()
    except Exception:
        attachment.file.storage.delete(stored_name)
        raise
    return attachment


@transaction.atomic
def attachment_add_to_request(
    *, actor: Any, buying_request: BuyingRequest, upload: Any
) -> Attachment:
    """Attach a specification or drawing to an open request of the actor's company."""
    _buyer_company(actor, buying_request.buyer)
    request = BuyingRequest.objects.select_for_update().get(pk=buying_request.pk)
    if request.status != RequestStatus.OPEN:
        raise SourcingError(
            SourcingErrorCode.REQUEST_NOT_OPEN, _("Only open requests can be changed.")
        )
    return _store_attachment(actor=actor, upload=upload, request=request, quotation=None)


@transaction.atomic
def attachment_add_to_quotation(*, actor: Any, quotation: Quotation, upload: Any) -> Attachment:
    """Attach a file to the actor's company's quotation while it can still be revised."""
    company = actor_for(actor).company
    if not user_can_publish(actor) or company is None:
        raise SourcingError(SourcingErrorCode.NOT_ALLOWED, _("You cannot change this quotation."))
    _lock_request(quotation.request_id)
    locked = Quotation.objects.select_for_update().get(pk=quotation.pk)
    if company.pk != locked.supplier_id:
        raise SourcingError(SourcingErrorCode.NOT_ALLOWED, _("You cannot change this quotation."))
    if not locked.is_revisable:
        raise SourcingError(
            SourcingErrorCode.WRONG_STATE, _("This quotation can no longer be revised.")
        )
    return _store_attachment(actor=actor, upload=upload, request=None, quotation=locked)


@transaction.atomic
def attachment_remove(*, actor: Any, attachment: Attachment) -> None:
    """Remove an attachment the actor's company added; the file goes once the row is gone."""
    company = actor_for(actor).company
    owner_id = (
        attachment.request.buyer_id
        if attachment.request_id is not None and attachment.request is not None
        else attachment.quotation.supplier_id
        if attachment.quotation is not None
        else None
    )
    if company is None or owner_id != company.pk:
        raise SourcingError(SourcingErrorCode.NOT_ALLOWED, _("You cannot remove this file."))
    name, storage = attachment.file.name or "", attachment.file.storage
    attachment.delete()
    if name:
        transaction.on_commit(lambda: storage.delete(name))
