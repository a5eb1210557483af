"""Checking the files of a verification request before anything is stored, and sending a
stored one back to a user who may read it.

A file is accepted by what it is, never by its name: its first bytes must be those of a PDF,
a JPEG or a PNG, and an image must open with Pillow as a whole picture within the pixel limit
(`core.images`). Each file is at most `TRADEPOST_VERIFICATION_MAX_BYTES`; a request holds 1 to
`TRADEPOST_VERIFICATION_MAX_FILES` of them. One refused file refuses the whole request, each
refusal named against its kind of document, in the user's language.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import FileResponse
from django.utils.translation import gettext as _

from tradepost.core.cleaning import FieldErrors, FieldInvalid, clean_file_name
from tradepost.core.downloads import uploaded_file_response
from tradepost.core.images import ImageRejected, check_image
from tradepost.core.private_files import check_upload_size, upload_sha256
from tradepost.trust.errors import TrustError, TrustErrorCode, VerificationNotFound
from tradepost.trust.models import DocumentKind, VerificationDocument

#: The types accepted, recognised from the file's first bytes.
SIGNATURES = (
    (b"%PDF-", "application/pdf"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
)


@dataclass(frozen=True)
class CheckedDocument:
    """An upload that passed every check, with what is stored about it."""

    upload: Any
    kind: str
    original_name: str
    content_type: str
    size: int
    sha256: str


def max_document_bytes() -> int:
    return int(settings.TRADEPOST_VERIFICATION_MAX_BYTES)


def max_documents() -> int:
    return int(settings.TRADEPOST_VERIFICATION_MAX_FILES)


def _content_type(upload: Any, name: str) -> str:
    upload.seek(0)
    head = upload.read(8)
    upload.seek(0)
    for signature, content_type in SIGNATURES:
        if head.startswith(signature):
            return content_type
    raise FieldInvalid(_("%(name)s is not a PDF, JPEG or PNG file.") % {"name": name})


def _check_one(upload: Any, *, kind: str) -> CheckedDocument:
    name = clean_file_name(getattr(upload, "name", ""))
    limit = max_document_bytes()
    size = check_upload_size(upload, name=name, limit=limit)
    content_type = _content_type(upload, name)
    if content_type.startswith("image/"):
        try:
            upload.seek(0)
            check_image(upload.read(), max_bytes=limit)
        except ImageRejected as exc:
            raise FieldInvalid(
                _("%(name)s: %(problem)s") % {"name": name, "problem": exc}
            ) from None
    return CheckedDocument(
        upload=upload,
        kind=kind,
        original_name=name,
        content_type=content_type,
        size=size,
        sha256=upload_sha256(upload, chunk=64 * 1024),
    )


def check_documents(files: Mapping[str, Sequence[Any]]) -> list[CheckedDocument]:
    """Check the uploads given per kind (`DocumentKind` values); answer them in the kinds'
    order, or refuse them all (`TrustError`, each message under its kind)."""
    unknown = sorted(set(files) - set(DocumentKind.values))
    if unknown:
        raise TrustError(
            TrustErrorCode.INVALID, {name: _("This field is not known here.") for name in unknown}
        )
    uploads = [(kind, upload) for kind in DocumentKind.values for upload in files.get(kind) or ()]
    if not uploads:
        raise TrustError(TrustErrorCode.DOCUMENT_REJECTED, _("Attach at least one document."))
    if len(uploads) > max_documents():
        raise TrustError(
            TrustErrorCode.DOCUMENT_REJECTED,
            _("Attach at most %(limit)d documents.") % {"limit": max_documents()},
        )
    errors = FieldErrors()
    checked = [errors.clean(kind, _check_one, upload, kind=kind) for kind, upload in uploads]
    errors.raise_if_any(TrustError, TrustErrorCode.DOCUMENT_REJECTED)
    return [document for document in checked if document is not None]


def document_response(document: VerificationDocument) -> FileResponse:
    """The document as a download under its original name: an attachment, never sniffed,
    never kept by a cache (`core.downloads`). Call it with a document from
    `access_verification_document` only. A file missing from the disk answers like a missing
    document (404)."""
    try:
        return uploaded_file_response(
            document.file,
            name=document.original_name,
            content_type=document.content_type,
            as_attachment=True,
        )
    except FileNotFoundError:
        raise VerificationNotFound() from None
