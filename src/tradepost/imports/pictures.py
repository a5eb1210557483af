"""The ZIP of pictures sent with a catalogue file: its files found by name (the folders in
the ZIP do not matter), each read only when a row names it, and only up to the picture size
limit, so that no file in it can be bigger than that once unpacked, whatever the ZIP says.

Nothing is unpacked to the disk and no name from the ZIP is ever used as a path. The ZIP is
refused, before any row is read, when it is not a ZIP, is encrypted, has more files than
`TRADEPOST_IMPORT_PICTURES_MAX_FILES`, says it unpacks to more than
`TRADEPOST_IMPORT_MAX_UNPACKED_BYTES` (a "ZIP bomb"), holds a name that climbs out of it
("../", an absolute path) or a link, or two files of the same name. Each picture then goes
through the same checks as one uploaded on the product's page (`core.images`, through
`catalog.services.product_image_add`).
"""

from __future__ import annotations

import hashlib
import stat
import zipfile
import zlib
from dataclasses import dataclass
from typing import IO

from django.conf import settings
from django.utils.translation import gettext as _

from tradepost.core.cleaning import clean_file_name
from tradepost.core.private_files import megabytes
from tradepost.imports.reading import FileRejected

#: Files a ZIP made on a Mac or Windows holds beside the pictures: skipped.
_SKIPPED = ("__MACOSX/", ".DS_Store", "Thumbs.db", "desktop.ini")


@dataclass(frozen=True)
class Picture:
    name: str
    info: zipfile.ZipInfo


def _unsafe(name: str) -> bool:
    parts = name.replace("\\", "/").split("/")
    return name.startswith(("/", "\\")) or ".." in parts or (len(name) > 1 and name[1] == ":")


def _is_link(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


class PictureBox:
    """The pictures of one ZIP, by file name (exactly, else ignoring case)."""

    def __init__(self, stream: IO[bytes], name: str) -> None:
        self.zip_name = name
        try:
            self.archive = zipfile.ZipFile(stream)
            infos = self.archive.infolist()
        except (zipfile.BadZipFile, OSError, EOFError, ValueError):
            raise FileRejected(_("%(name)s is not a valid ZIP file.") % {"name": name}) from None
        files = [
            info
            for info in infos
            if not info.is_dir()
            and not info.filename.startswith(_SKIPPED[0])
            and info.filename.rsplit("/", 1)[-1] not in _SKIPPED[1:]
            and not info.filename.rsplit("/", 1)[-1].startswith("._")
        ]
        limit = int(settings.TRADEPOST_IMPORT_PICTURES_MAX_FILES)
        if len(files) > limit:
            raise FileRejected(
                _("%(name)s holds %(count)d files; at most %(limit)d are accepted.")
                % {"name": name, "count": len(files), "limit": limit}
            )
        unpacked = int(settings.TRADEPOST_IMPORT_MAX_UNPACKED_BYTES)
        if sum(info.file_size for info in files) > unpacked:
            raise FileRejected(
                _("%(name)s unpacks to more than %(limit)d MB; split it into smaller files.")
                % {"name": name, "limit": megabytes(unpacked)}
            )
        self.by_name: dict[str, Picture] = {}
        self.by_folded: dict[str, Picture] = {}
        for info in files:
            if _unsafe(info.filename) or _is_link(info):
                raise FileRejected(
                    _("%(name)s holds a file whose name is not safe to open: %(entry)s")
                    % {"name": name, "entry": clean_file_name(info.filename, default="?")}
                )
            if info.flag_bits & 0x1:
                raise FileRejected(
                    _("%(name)s is protected by a password; send it without one.") % {"name": name}
                )
            base = clean_file_name(info.filename, default="")
            if not base:
                continue
            if base.casefold() in self.by_folded:
                raise FileRejected(
                    _("%(name)s holds two files named %(entry)s; give each picture its own name.")
                    % {"name": name, "entry": base}
                )
            picture = Picture(base, info)
            self.by_name[base] = picture
            self.by_folded[base.casefold()] = picture

    def __len__(self) -> int:
        return len(self.by_name)

    def find(self, name: str) -> Picture | None:
        return self.by_name.get(name) or self.by_folded.get(name.casefold())

    def read(self, picture: Picture) -> bytes:
        """The picture's bytes, at most one more than the picture size limit (a bigger file
        is refused by the picture checks for its size; nothing beyond is unpacked)."""
        limit = int(settings.TRADEPOST_IMAGE_MAX_BYTES)
        try:
            with self.archive.open(picture.info) as opened:
                return opened.read(limit + 1)
        except (
            zipfile.BadZipFile,
            OSError,
            EOFError,
            RuntimeError,
            ValueError,
            NotImplementedError,
            zlib.error,
        ):
            return b""  # refused by the picture checks as an empty file

    def close(self) -> None:
        self.archive.close()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
