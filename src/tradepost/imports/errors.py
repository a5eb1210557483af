"""Errors raised by the catalogue import's services and access helper (a `core.errors`
family). A refused row is not an error: the preview lists it with its reasons."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from tradepost.core.errors import DomainError, ErrorCode, ErrorKind, NotFound


class ImportErrorCode(ErrorCode):
    """Why an upload, a confirmation or an export was refused, and how a client treats it."""

    INVALID = "invalid", ErrorKind.INVALID
    #: The file cannot be read as a catalogue: not CSV or XLSX, empty, too large, too many
    #: rows, no SKU column, a ZIP of pictures that is not safe to open.
    FILE_REJECTED = "import-file-rejected", ErrorKind.INVALID
    NOT_FOUND = "import-not-found", ErrorKind.NOT_FOUND
    NO_COMPANY = "no-company", ErrorKind.FORBIDDEN, gettext_lazy("You do not act for a company")
    #: The job is not waiting for a confirmation (still being checked, running, done).
    NOT_READY = "import-not-ready", ErrorKind.CONFLICT, gettext_lazy("Not ready to import")
    #: All or nothing, and some rows were refused.
    ROWS_REJECTED = (
        "import-rows-rejected",
        ErrorKind.CONFLICT,
        gettext_lazy("Some rows were rejected"),
    )


class ImportJobError(DomainError):
    """A refused upload, confirmation or export."""

    code: ImportErrorCode


class ImportNotFound(ImportJobError, NotFound):
    """No such import, or not one of a company the user manages products of: alike (404)."""

    not_found_code = ImportErrorCode.NOT_FOUND
