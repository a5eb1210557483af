"""Where catalogue uploads (the sheet and its ZIP of pictures) are kept while their import
is checked, run and reported: `TRADEPOST_PRIVATE_ROOT/imports`, never under `MEDIA_ROOT`,
under random names. A supplier's catalogue is its own business: the files are read by the
import and sent back to nobody."""

from __future__ import annotations

from typing import Any

from tradepost.core.private_files import PrivateStorage, private_file_name

FOLDER = "imports"


class ImportFileStorage(PrivateStorage):
    folder = FOLDER


def import_files() -> ImportFileStorage:
    return ImportFileStorage()


def sheet_path(instance: Any, filename: str) -> str:
    return private_file_name(getattr(instance, "file_format", "") or "bin")


def pictures_path(instance: Any, filename: str) -> str:
    return private_file_name("zip")
