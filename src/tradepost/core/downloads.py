"""Serving a file a user uploaded (a message or a buying request attachment) or one the site
made (an invoice's PDF, a catalogue export), for the pages and the API alike."""

from __future__ import annotations

from typing import overload

from django.db.models.fields.files import FieldFile
from django.http import FileResponse, HttpResponse
from django.utils.http import content_disposition_header


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


def pdf_response(data: bytes, name: str) -> HttpResponse:
    """A PDF the site drew (an invoice) as a download named `name`: never sniffed, never kept
    by a shared cache (it holds a company's billing details)."""
    return file_download(data, name=name, content_type="application/pdf")


@overload
def file_download(data: bytes, *, name: str, content_type: str) -> HttpResponse: ...
@overload
def file_download(data: FieldFile, *, name: str, content_type: str) -> FileResponse: ...
@overload
def file_download(
    data: bytes | FieldFile, *, name: str, content_type: str
) -> HttpResponse | FileResponse: ...


def file_download(
    data: bytes | FieldFile, *, name: str, content_type: str
) -> HttpResponse | FileResponse:
    """A file the site made (an invoice's PDF, a catalogue export; made now, or made once
    and stored) as a download named `name`: never sniffed, never kept by a shared cache (it
    holds a company's own data)."""
    if isinstance(data, FieldFile):
        return uploaded_file_response(
            data, name=name, content_type=content_type, as_attachment=True
        )
    response = HttpResponse(data, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(True, name)
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    response["Cache-Control"] = "private, no-store"
    return response
