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
from typing import IO, Any

from django.conf import settings
from django.core.files.storage import FileSystemStorage
from django.utils import timezone
from django.utils.translation import gettext as _

from tradepost.core.cleaning import FieldInvalid


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


def megabytes(size: int) -> int:
    """A byte limit in whole megabytes, as messages state it (at least 1)."""
    return max(1, size // (1024 * 1024))


def upload_size(upload: Any) -> int:
    """An uploaded file's size in bytes: the size it declares, else measured by seeking to its
    end; rewound after."""
    size = getattr(upload, "size", None)
    if size is None:
        upload.seek(0, 2)
        size = upload.tell()
    upload.seek(0)
    return int(size)


def check_upload_size(upload: Any, *, name: str, limit: int, splittable: bool = False) -> int:
    """The upload's size, or `FieldInvalid` when it is empty or larger than `limit` bytes
    (`splittable`: the message says to split the file, for a file of many rows)."""
    size = upload_size(upload)
    if size == 0:
        raise FieldInvalid(_("%(name)s is empty.") % {"name": name})
    if size > limit:
        message = (
            _("%(name)s is larger than %(limit)d MB; split it into smaller files.")
            if splittable
            else _("%(name)s is larger than %(limit)d MB.")
        )
        raise FieldInvalid(message % {"name": name, "limit": megabytes(limit)})
    return size
