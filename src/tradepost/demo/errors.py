"""Error codes of the demo marketplace loader."""

from __future__ import annotations

from enum import StrEnum


class DemoErrorCode(StrEnum):
    DATABASE_NOT_EMPTY = "database_not_empty"
    NO_CATEGORIES = "no_categories"
    INVALID_COUNTS = "invalid_counts"


class DemoError(Exception):
    """The demo marketplace cannot be loaded; the message is for the person running it."""

    def __init__(self, message: str, *, code: DemoErrorCode) -> None:
        super().__init__(message)
        self.code = code
