"""Serving a file a user uploaded (a message or a buying request attachment), for the pages
and the API alike."""

from __future__ import annotations

from django.db.models.fields.files import FieldFile
from django.http import FileResponse


def uploaded_file_response(
    file: FieldFile, *, name: str, content_type: str, as_attachment: bool
) -> FileResponse:
    """The stored file under its original name, sent so that a browser never runs it (no
    type sniffing, sandboxed) and no shared cache keeps it."""
    response = FileResponse(
        file.open("rb"), content_type=content_type, as_attachment=as_attachment, filename=name
    )
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    response["Cache-Control"] = "private, no-store"
    return response
