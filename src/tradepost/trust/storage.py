"""Where verification documents are kept: a folder of their own under
`TRADEPOST_PRIVATE_ROOT`, beside `MEDIA_ROOT` and never under it (`/media/` is served to
anyone). The storage has no URL: a document is only ever sent by a view that ran
`trust.selectors.access_verification_document` (docs/adr/0019-verification-documents.md)."""

from __future__ import annotations

from typing import Any

from tradepost.core.private_files import PrivateStorage, private_file_name

#: The folder under the private root.
FOLDER = "verification"
#: The extension a stored file gets from its checked type (never from the name it was sent as).
EXTENSIONS = {"application/pdf": "pdf", "image/jpeg": "jpg", "image/png": "png"}


class PrivateDocumentStorage(PrivateStorage):
    """Files under `TRADEPOST_PRIVATE_ROOT/verification`."""

    folder = FOLDER


def private_documents() -> PrivateDocumentStorage:
    return PrivateDocumentStorage()


def document_path(instance: Any, filename: str) -> str:
    """`YYYY/MM/<32 random hex digits>.<ext>`: nothing of the company or of the sent name."""
    return private_file_name(EXTENSIONS.get(getattr(instance, "content_type", ""), "bin"))
