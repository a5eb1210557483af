"""Files only their company and the operators may read (verification documents, catalogue
uploads): each kind in a folder of its own under `TRADEPOST_PRIVATE_ROOT`, beside
`MEDIA_ROOT` and never under it (`/media/` is served to anyone), under random names. The
storage has no URL: such a file is only ever sent by a view that checked who asks
(docs/adr/0019-verification-documents.md)."""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path
from typing import IO

from django.conf import settings
from django.core.files.storage import FileSystemStorage
from django.utils import timezone


class PrivateStorage(FileSystemStorage):
    """Files under `TRADEPOST_PRIVATE_ROOT/<folder>`, read from the settings at each use (the
    tests give each test its own folder). Subclasses name their `folder`."""

    folder = ""

    @property  # type: ignore[override]
    def base_location(self) -> str:
        return str(Path(settings.TRADEPOST_PRIVATE_ROOT) / self.folder)

    @property  # type: ignore[override]
    def location(self) -> str:
        return os.path.abspath(self.base_location)

    def url(self, name: str | None) -> str:
        raise ValueError("Private files have no public address.")


def private_file_name(extension: str) -> str:
    """`YYYY/MM/<32 random hex digits>.<extension>`: nothing of who sent it or of its name."""
    return f"{timezone.now():%Y/%m}/{secrets.token_hex(16)}.{extension}"


def upload_sha256(upload: IO[bytes], *, chunk: int = 1024 * 1024) -> str:
    """The SHA-256 of an uploaded file's whole content, in hex, read `chunk` bytes at a time
    (so a large upload is never held in memory); read from the start and rewound after."""
    digest = hashlib.sha256()
    upload.seek(0)
    while block := upload.read(chunk):
        digest.update(block)
    upload.seek(0)
    return digest.hexdigest()
