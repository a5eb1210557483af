"""Writes of the catalogue import: an upload, its confirmation, a change of encoding, a
cancellation, and picking up imports a crash stopped (docs/adr/0027-catalogue-import.md).

An upload is checked as a file before anything is stored (its size, its kind, its header,
the ZIP of pictures): a refusal stores nothing. Then its rows are checked (the preview,
`running.import_check`): during the request for a small file, in the background for a large
one (more than `TRADEPOST_IMPORT_INLINE_ROWS` rows), where the page follows its progress.
Nothing of the catalogue changes before the uploader confirms; the import itself
(`running.import_run`) runs the same way, small files at once, large ones in the background.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.files import File
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tradepost.accounts.models import User
from tradepost.accounts.selectors import is_operator
from tradepost.audit.services import audit_record
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company
from tradepost.core.cleaning import FieldErrors, FieldInvalid, clean_choice, clean_file_name
from tradepost.core.languages import normalise_ui_language
from tradepost.core.private_files import check_upload_size, upload_sha256, upload_size
from tradepost.core.queueing import enqueue_on_commit
from tradepost.imports import kept, running
from tradepost.imports.errors import ImportErrorCode, ImportJobError, ImportNotFound
from tradepost.imports.models import ImportFormat, ImportJob, ImportMode, ImportStatus
from tradepost.imports.pictures import PictureBox
from tradepost.imports.planning import Layout
from tradepost.imports.reading import (
    DETECTION_BYTES,
    ENCODINGS,
    FileRejected,
    Row,
    detect_encoding,
    estimate_rows,
    max_bytes,
    rows_of,
    sniff_format,
    xlsx_sniff,
)
from tradepost.imports.tasks import check_import, run_import

#: Told how many rows are done, of how many: `progress(done, total)`.
Progress = Callable[[int, int], None]


#: What an upload takes, as the page's form and the API's multipart body send it.
UPLOAD_FIELDS = frozenset({"catalogue", "pictures", "encoding", "mode"})


def inline_rows() -> int:
    """Files with at most this many rows are checked and imported during the request."""
    return int(settings.TRADEPOST_IMPORT_INLINE_ROWS)


def _ensure_can_import(actor: User, company: Company) -> None:
    if not actor_for(actor).works_for(company):
        raise ImportNotFound()


@dataclass(frozen=True)
class _Sheet:
    """An upload checked as a file: its cleaned name, format, detected encoding, the
    encoding to read it in, and its rows (the header included): counted, else None when
    only the background may count them (a large workbook), and the count to show meanwhile."""

    name: str
    file_format: str
    detected: str
    encoding: str
    rows: int | None
    shown_rows: int


def _check_sheet(upload: Any, encoding: Any) -> _Sheet:
    """The upload checked as a file, at a bounded cost whatever it holds (a workbook is only
    sniffed: its first row, and its rows counted when it is small, `reading.xlsx_sniff`);
    FieldInvalid when it cannot be a catalogue."""
    name = clean_file_name(getattr(upload, "name", ""), default="catalogue")
    check_upload_size(upload, name=name, limit=max_bytes(), splittable=True)
    try:
        file_format = sniff_format(upload.read(8), name)
        if file_format == ImportFormat.XLSX:
            sheet = _check_workbook(upload, name)
        else:
            sheet = _check_csv(upload, name, encoding)
    except FileRejected as refusal:
        raise FieldInvalid(str(refusal)) from None
    finally:
        upload.seek(0)
    return sheet


def _check_workbook(upload: Any, name: str) -> _Sheet:
    sniffed = xlsx_sniff(upload, name)
    if sniffed.header is not None:  # else the background reads it, and checks it
        Layout.from_header(Row(1, sniffed.header, tuple(sniffed.formulas)))
    elif sniffed.rows == 0:
        raise FileRejected(_("%(name)s holds no rows.") % {"name": name})
    shown = sniffed.rows or sniffed.declared_rows or 0
    return _Sheet(name, ImportFormat.XLSX, "", "", sniffed.rows, shown)


def _check_csv(upload: Any, name: str, encoding: Any) -> _Sheet:
    upload.seek(0)
    detected = detect_encoding(upload.read(DETECTION_BYTES + 1))
    upload.seek(0)
    chosen = detected if not encoding else str(encoding)
    rows = rows_of(upload, file_format=ImportFormat.CSV, encoding=chosen, name=name)
    try:
        header = next(rows)
    except StopIteration:
        raise FileRejected(_("%(name)s holds no rows.") % {"name": name}) from None
    finally:
        rows.close()
        upload.seek(0)
    Layout.from_header(header)
    counted = estimate_rows(upload)
    return _Sheet(name, ImportFormat.CSV, detected, chosen, counted, counted)


def _check_pictures(upload: Any) -> str:
    name = clean_file_name(getattr(upload, "name", ""), default="pictures.zip")
    limit = int(settings.TRADEPOST_IMPORT_PICTURES_MAX_BYTES)
    check_upload_size(upload, name=name, limit=limit, splittable=True)
    try:
        PictureBox(upload, name).close()
    except FileRejected as refusal:
        raise FieldInvalid(str(refusal)) from None
    finally:
        upload.seek(0)
    return name


def _clean_encoding(value: Any, *, required: bool = False) -> str:
    return clean_choice(
        value,
        allowed=ENCODINGS,
        required=required,
        message=_("Choose an encoding from the list."),
        case=str.lower,
    )


def _clean_mode(value: Any) -> str:
    return (
        clean_choice(
            value,
            allowed=ImportMode.values,
            message=_("Choose all or nothing, or valid rows only."),
        )
        or ImportMode.ALL_OR_NOTHING
    )


def _small(estimate: int | None) -> bool:
    return estimate is not None and estimate <= inline_rows() + 1


def _check_later(job: ImportJob) -> None:
    enqueue_on_commit(check_import, job.pk)


def import_upload(
    *,
    actor: User,
    company: Company,
    catalogue: Any,
    pictures: Any = None,
    encoding: Any = "",
    mode: Any = "",
    language: str = "en",
    inline: bool | None = None,
    progress: Progress | None = None,
) -> ImportJob:
    """Store an uploaded catalogue (and its ZIP of pictures) and check its rows: the job is
    "ready" when this returns for a small file, "checking" (in the background) for a large
    one. Refused (`ImportJobError`, messages under `catalogue`, `pictures`, `encoding`, `mode`)
    with nothing stored when the file cannot be read as a catalogue. `inline` checks the
    rows now whatever the size (the command line), calling `progress(done, total)`."""
    _ensure_can_import(actor, company)
    errors = FieldErrors()
    chosen_encoding = errors.clean("encoding", _clean_encoding, encoding)
    chosen_mode = errors.clean("mode", _clean_mode, mode)
    checked = None
    if catalogue is None or isinstance(catalogue, str):
        errors.add("catalogue", _("Choose a CSV or XLSX file."))
    elif chosen_encoding is not None:
        checked = errors.clean("catalogue", _check_sheet, catalogue, encoding=chosen_encoding)
    pictures_name = ""
    if pictures is not None and not isinstance(pictures, str):
        pictures_name = errors.clean("pictures", _check_pictures, pictures) or ""
    elif isinstance(pictures, str) and pictures:
        errors.add("pictures", _("Choose a ZIP file of pictures."))
    errors.raise_if_any(ImportJobError, ImportErrorCode.FILE_REJECTED)
    assert checked is not None and chosen_mode is not None
    now = timezone.now()
    job = ImportJob(
        company=company,
        created_by=actor,
        created_at=now,
        updated_at=now,
        original_name=checked.name,
        file_format=checked.file_format,
        size=upload_size(catalogue),
        sha256=upload_sha256(catalogue),
        detected_encoding=checked.detected,
        encoding=checked.encoding,
        language=normalise_ui_language(language),
        mode=chosen_mode,
        pictures_name=pictures_name,
    )
    job.rows_total = checked.shown_rows
    now_inline = _small(checked.rows) if inline is None else inline
    stored: list[str] = []
    try:
        with transaction.atomic():
            job.file.save(checked.name, File(catalogue), save=False)
            stored.append(str(job.file.name))
            if pictures_name:
                job.pictures.save(pictures_name, File(pictures), save=False)
                stored.append(str(job.pictures.name))
            job.save()
            if is_operator(actor):
                audit_record(actor=actor, action="import.upload", target=job)
            if not now_inline:
                _check_later(job)
    except BaseException:
        for stored_name in stored:
            job.file.storage.delete(stored_name)
        raise
    if now_inline:
        running.import_check(job_id=job.pk, progress=progress)
    job.refresh_from_db()
    return job


def _locked(job: ImportJob) -> ImportJob:
    locked = ImportJob.objects.select_for_update().filter(pk=job.pk).first()
    if locked is None:
        raise ImportNotFound()
    return locked


def _not_ready(job: ImportJob) -> ImportJobError:
    return ImportJobError(
        ImportErrorCode.NOT_READY,
        _("This import is “%(status)s”: it cannot be confirmed now.")
        % {"status": job.get_status_display()},
    )


def import_confirm(
    *,
    actor: User,
    job: ImportJob,
    mode: Any = "",
    inline: bool | None = None,
    progress: Progress | None = None,
) -> ImportJob:
    """Import the checked rows: at once for a small file (or with `inline`, calling
    `progress(done, total)`), in the background for a large one. All or nothing (the
    default) refuses while any row is rejected."""
    now_inline = job.rows_total <= inline_rows() if inline is None else inline
    confirmed = _confirm(actor, job, mode, later=not now_inline)
    if now_inline:
        running.import_run(job_id=confirmed.pk, progress=progress)
        confirmed.refresh_from_db()
    return confirmed


@transaction.atomic
def _confirm(actor: User, job: ImportJob, mode: Any, *, later: bool) -> ImportJob:
    locked = _locked(job)
    _ensure_can_import(actor, locked.company)
    errors = FieldErrors()
    chosen = errors.clean("mode", _clean_mode, mode or locked.mode)
    errors.raise_if_any(ImportJobError, ImportErrorCode.INVALID)
    if locked.status != ImportStatus.READY:
        raise _not_ready(locked)
    locked.mode = chosen or locked.mode
    if locked.mode == ImportMode.ALL_OR_NOTHING and locked.rejected_rows:
        raise ImportJobError(
            ImportErrorCode.ROWS_REJECTED,
            _(
                "%(count)d rows were rejected, so nothing was imported. Fix them and upload "
                "the file again, or import the valid rows only."
            )
            % {"count": locked.rejected_rows},
        )
    now = timezone.now()
    locked.status = ImportStatus.IMPORTING
    locked.rows_done = 0
    locked.started_at = now
    locked.updated_at = now
    locked.created_by = locked.created_by or actor
    locked.save()
    if is_operator(actor):
        audit_record(
            actor=actor, action="import.confirm", target=locked, changes={"mode": [None, chosen]}
        )
    if later:
        enqueue_on_commit(run_import, locked.pk)
    return locked


def import_recheck(*, actor: User, job: ImportJob, encoding: Any) -> ImportJob:
    """Check a CSV file's rows again, read in another encoding."""
    locked = _recheck(actor, job, encoding)
    if _small(locked.rows_total or None):
        running.import_check(job_id=locked.pk)
        locked.refresh_from_db()
    return locked


@transaction.atomic
def _recheck(actor: User, job: ImportJob, encoding: Any) -> ImportJob:
    locked = _locked(job)
    _ensure_can_import(actor, locked.company)
    errors = FieldErrors()
    chosen = errors.clean("encoding", _clean_encoding, encoding, required=True)
    if locked.file_format != ImportFormat.CSV:
        errors.add("encoding", _("Only a CSV file is read in an encoding."))
    errors.raise_if_any(ImportJobError, ImportErrorCode.INVALID)
    if locked.status not in (ImportStatus.READY, ImportStatus.FAILED) or locked.started_at:
        raise _not_ready(locked)
    locked.encoding = chosen or locked.encoding
    locked.status = ImportStatus.CHECKING
    locked.message = ""
    locked.rows_done = 0
    locked.updated_at = timezone.now()
    locked.save()
    if not _small(locked.rows_total or None):
        _check_later(locked)
    return locked


@transaction.atomic
def import_cancel(*, actor: User, job: ImportJob) -> ImportJob:
    """Stop an import: nothing more is written (what was imported stays; an import that
    was not confirmed imports nothing)."""
    locked = _locked(job)
    _ensure_can_import(actor, locked.company)
    if locked.status in (ImportStatus.FINISHED, ImportStatus.FAILED, ImportStatus.CANCELLED):
        raise _not_ready(locked)
    locked.status = ImportStatus.CANCELLED
    locked.finished_at = timezone.now()
    locked.save(update_fields=["status", "finished_at"])
    kept.forget(locked)  # the check's cache, no longer needed
    if is_operator(actor):
        audit_record(actor=actor, action="import.cancel", target=locked)
    return locked


def stalled_after() -> timedelta:
    return timedelta(minutes=int(settings.TRADEPOST_IMPORT_STALLED_MINUTES))


def imports_resume_stalled(*, now: datetime | None = None) -> int:
    """Queue again the checks and imports that made no progress for
    `TRADEPOST_IMPORT_STALLED_MINUTES` (their worker was killed): each goes on from its last
    checkpoint. Run by the worker's timer; answers how many were queued."""
    now = now or timezone.now()
    queued = 0
    stalled = ImportJob.objects.filter(
        status__in=(ImportStatus.CHECKING, ImportStatus.IMPORTING),
        updated_at__lt=now - stalled_after(),
    ).values_list("pk", "status")
    for pk, status in stalled:
        with transaction.atomic():
            claimed = ImportJob.objects.filter(
                pk=pk, status=status, updated_at__lt=now - stalled_after()
            ).update(updated_at=now)
            if not claimed:
                continue
            task = check_import if status == ImportStatus.CHECKING else run_import
            enqueue_on_commit(task, pk)
            queued += 1
    return queued
