"""Where verification documents are kept: a folder of their own under
`TRADEPOST_PRIVATE_ROOT`, beside `MEDIA_ROOT` and never under it (`/media/` is served to
anyone). The storage has no URL: a document is only ever sent by a view that ran
`trust.selectors.access_verification_document` (docs/adr/0019-verification-documents.md)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.storage import FileSystemStorage
from django.utils import timezone

#: The folder under the private root.
FOLDER = "verification"
#: The extension a stored file gets from its checked type (never from the name it was sent as).
EXTENSIONS = {"application/pdf": "pdf", "image/jpeg": "jpg", "image/png": "png"}


class PrivateDocumentStorage(FileSystemStorage):
    """Files under `TRADEPOST_PRIVATE_ROOT/verification`, read from the settings at each use
    (the tests give each test its own folder)."""

    @property  # type: ignore[override]
    def base_location(self) -> str:
        return str(Path(settings.TRADEPOST_PRIVATE_ROOT) / FOLDER)

    @property  # type: ignore[override]
    def location(self) -> str:
        return os.path.abspath(self.base_location)

    def url(self, name: str | None) -> str:
        raise ValueError("Verification documents have no public address.")


def private_documents() -> PrivateDocumentStorage:
    return PrivateDocumentStorage()


def document_path(instance: Any, filename: str) -> str:
    """`YYYY/MM/<32 random hex digits>.<ext>`: nothing of the company or of the sent name."""
    extension = EXTENSIONS.get(getattr(instance, "content_type", ""), "bin")
    return f"{timezone.now():%Y/%m}/{secrets.token_hex(16)}.{extension}"
