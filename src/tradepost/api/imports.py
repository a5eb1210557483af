"""The signed-in supplier's catalogue in one file: /api/v1/me/imports (upload, check, confirm,
follow, result, rejected rows) and /api/v1/me/catalogue (export, template).

An upload (multipart: the sheet as `catalogue`, a ZIP of pictures as `pictures`) answers 201
with the job: `ready` with the preview's counts for a small file, `checking` for a large one
(poll `GET /me/imports/{id}` until it is `ready`). Nothing of the catalogue changes before
`POST /me/imports/{id}/confirm`. Another company's job answers exactly like a missing one
(404). Refusals become problem documents in one place, `api/urls.py`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.http import FileResponse, HttpRequest, HttpResponse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from ninja import File, Form, Query, Router, Schema, Status
from ninja.files import UploadedFile
from pydantic import Field

from tradepost.api.auth import API_AUTH, caller
from tradepost.api.bodies import JsonBody
from tradepost.api.pagination import Rows, paged
from tradepost.api.problems import validation_problem
from tradepost.catalog.permissions import products_company
from tradepost.core.downloads import file_download
from tradepost.imports import exports, selectors, services
from tradepost.imports.models import ImportJob, ImportRow

router = Router(auth=API_AUTH, tags=["catalogue import"])
catalogue_router = Router(auth=API_AUTH, tags=["catalogue import"])
IMPORTS_PATH = "/api/v1/me/imports"

# --- schemas ---------------------------------------------------------------------------------


class PreviewCounts(Schema):
    new: int = Field(description="Rows that add a product")
    changed: int = Field(description="Rows that change a product (found by its SKU)")
    unchanged: int = Field(description="Rows whose product is already as they say")
    rejected: int = Field(description="Rows refused, each with its reasons (see rows)")
    flagged: int = Field(description="Rows with text that looks garbled (mojibake)")


class ResultCounts(Schema):
    created: int
    updated: int
    unchanged: int
    failed: int = Field(description="Rows not imported (rejected)")
    pictures_added: int


class ImportOut(Schema):
    id: int
    status: str = Field(
        description="checking (the preview is being made), ready (waiting for confirm), "
        "importing, finished, failed (see message) or cancelled"
    )
    status_label: str
    file_name: str
    file_format: str = Field(description="csv or xlsx")
    pictures_name: str = Field(description="The ZIP of pictures sent with it, if any")
    detected_encoding: str = Field(description="The encoding found in a CSV file")
    encoding: str = Field(description="The encoding the file is read in")
    header_language: str = Field(description="The language of the column names: en, zh-hans…")
    mode: str = Field(description="all (all or nothing) or valid (valid rows only)")
    rows_total: int
    rows_done: int = Field(description="Rows checked or imported so far")
    percent: int
    preview: PreviewCounts
    result: ResultCounts
    notes: list[str] = Field(description="About the file as a whole, in the uploader's language")
    message: str = Field(description="Why it failed, in the uploader's language")
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    rows_url: str
    rejected_url: str = Field(description="The rejected rows as a file, with a reason column")


class RowError(Schema):
    column: str = Field(description="The column as the file names it; empty for the row")
    message: str


class Garbled(Schema):
    column: str
    damage: str = Field(description="mojibake, lost or pinyin")
    damage_label: str
    text: str
    suggestion: str | None = Field(description="The text repaired, when it can be")


class RowOut(Schema):
    line: int = Field(description="The row's number in the sheet (the header is 1)")
    sku: str
    outcome: str = Field(description="rejected, or new / changed / unchanged with garbled text")
    errors: list[RowError]
    garbled: list[Garbled]


class RowQuery(Schema):
    outcome: Literal["rejected", "flagged"] | None = None


class ConfirmIn(JsonBody):
    mode: str | None = Field(
        None, description="all (nothing unless every row is accepted) or valid (valid rows)"
    )


class RecheckIn(JsonBody):
    encoding: str = Field(description="utf-8, utf-8-sig, utf-16, gb18030, big5, big5hkscs…")


class DownloadQuery(Schema):
    format: Literal["csv", "xlsx"] = "csv"
    language: Literal["en", "zh-hans", "zh-hant"] | None = Field(
        None, description="The language of the column names (default: the request's)"
    )


# --- helpers ---------------------------------------------------------------------------------


def _job_out(request: HttpRequest, job: ImportJob) -> dict[str, Any]:
    summary = selectors.job_summary(job)
    summary["rows_url"] = request.build_absolute_uri(f"{IMPORTS_PATH}/{job.pk}/rows")
    summary["rejected_url"] = request.build_absolute_uri(f"{IMPORTS_PATH}/{job.pk}/rejected")
    return summary


def _row_out(row: ImportRow) -> dict[str, Any]:
    return {
        "line": row.line,
        "sku": row.sku,
        "outcome": row.outcome,
        "errors": row.errors,
        "garbled": [
            {**flag, "damage_label": selectors.damage_label(flag["damage"])}
            for flag in row.warnings
        ],
    }


def _access(request: HttpRequest, import_id: int) -> ImportJob:
    return selectors.access_import(user=caller(request), import_id=import_id)


def _download(download: exports.Download) -> HttpResponse | FileResponse:
    return file_download(
        download.content, name=download.filename, content_type=download.content_type
    )


# --- imports ---------------------------------------------------------------------------------


@router.post(
    "",
    response={201: ImportOut},
    summary="Upload a catalogue (multipart: catalogue, and pictures as a ZIP)",
)
def upload(
    request: HttpRequest,
    catalogue: File[UploadedFile],
    pictures: File[UploadedFile] = None,  # type: ignore[assignment]
    encoding: Form[str] = "",
    mode: Form[str] = "",
) -> Status[dict[str, Any]]:
    as_text = sorted({"catalogue", "pictures"} & set(request.POST))
    if as_text:
        message = _("Send the files as file parts, not as text.")
        raise validation_problem({name: [message] for name in as_text})
    user = caller(request)
    job = services.import_upload(
        actor=user,
        company=products_company(user=user),
        catalogue=catalogue,
        pictures=pictures,
        encoding=encoding,
        mode=mode,
        language=get_language() or "en",
    )
    return Status(201, _job_out(request, job))


@router.get("", response=list[ImportOut], summary="My company's catalogue imports, latest first")
@paged()
def list_imports(request: HttpRequest) -> Rows:
    company = products_company(user=caller(request))
    return Rows(selectors.imports_of(company), render=lambda job: _job_out(request, job))


@router.get("/{int:import_id}", response=ImportOut, summary="An import: status, progress, counts")
def get_import(request: HttpRequest, import_id: int) -> dict[str, Any]:
    return _job_out(request, _access(request, import_id))


@router.get(
    "/{int:import_id}/rows",
    response=list[RowOut],
    summary="An import's rejected rows (with reasons) and rows with garbled text",
)
@paged()
def list_rows(request: HttpRequest, import_id: int, query: Query[RowQuery]) -> Rows:
    job = _access(request, import_id)
    return Rows(selectors.job_rows(job, outcome=query.outcome), render=_row_out)


@router.get(
    "/{int:import_id}/rejected",
    response={200: None},
    summary="The rejected rows as a file (the upload's format) with a reason column",
)
def rejected(request: HttpRequest, import_id: int) -> HttpResponse | FileResponse:
    return _download(exports.rejected_download(_access(request, import_id)))


@router.post(
    "/{int:import_id}/confirm",
    response=ImportOut,
    summary="Import the checked rows (at once, or in the background for a large file)",
)
def confirm(request: HttpRequest, import_id: int, payload: ConfirmIn) -> dict[str, Any]:
    job = services.import_confirm(
        actor=caller(request),
        job=_access(request, import_id),
        mode=payload.mode or "",
    )
    return _job_out(request, job)


@router.post(
    "/{int:import_id}/recheck",
    response=ImportOut,
    summary="Check a CSV file's rows again, read in another encoding",
)
def recheck(request: HttpRequest, import_id: int, payload: RecheckIn) -> dict[str, Any]:
    job = services.import_recheck(
        actor=caller(request),
        job=_access(request, import_id),
        encoding=payload.encoding,
    )
    return _job_out(request, job)


@router.post("/{int:import_id}/cancel", response=ImportOut, summary="Cancel an import")
def cancel(request: HttpRequest, import_id: int) -> dict[str, Any]:
    job = services.import_cancel(
        actor=caller(request),
        job=_access(request, import_id),
    )
    return _job_out(request, job)


# --- the catalogue as a file -----------------------------------------------------------------


@catalogue_router.get(
    "/export",
    response={200: None},
    summary="My company's catalogue as CSV or XLSX (the import's format)",
)
def export(request: HttpRequest, query: Query[DownloadQuery]) -> HttpResponse | FileResponse:
    user = caller(request)
    download = exports.catalogue_export(
        user=user,
        company=products_company(user=user),
        file_format=query.format,
        language=query.language or get_language(),
    )
    return _download(download)


@catalogue_router.get(
    "/template",
    response={200: None},
    summary="An empty catalogue file with the columns named in a language",
)
def template(request: HttpRequest, query: Query[DownloadQuery]) -> HttpResponse | FileResponse:
    return _download(
        exports.template_file(file_format=query.format, language=query.language or get_language())
    )
