"""Reads of the catalogue import: a job fetched on a user's behalf, a company's jobs, the
rows a job keeps, and what the pages and the API show of a job."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext_lazy

from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company
from tradepost.core.garbled import Damage
from tradepost.core.ids import parse_id
from tradepost.imports.errors import ImportNotFound
from tradepost.imports.models import ImportJob, ImportRow, ImportStatus, RowOutcome
from tradepost.imports.reading import encoding_label

#: Rows a page or an API answer lists at most (the file of rejected rows holds them all).
ROWS_SHOWN = 200


def access_import(*, user: Any, import_id: Any) -> ImportJob:
    """The import `import_id` if `user` manages its company's products (members, operators);
    else `ImportNotFound`, for a missing, a nonsense and another company's id alike."""
    pk = parse_id(import_id)
    job = (
        ImportJob.objects.select_related("company", "created_by").filter(pk=pk).first()
        if pk is not None
        else None
    )
    if job is None or not actor_for(user).works_for(job.company):
        raise ImportNotFound()
    return job


def imports_of(company: Company) -> QuerySet[ImportJob]:
    """A company's imports, the latest first."""
    return ImportJob.objects.filter(company=company).select_related("created_by")


def job_rows(job: ImportJob, *, outcome: str | None = None) -> QuerySet[ImportRow]:
    """The rows a job keeps (rejected ones, and ones with garbled cells), in file order."""
    rows = ImportRow.objects.filter(job=job).order_by("line")
    if outcome == "flagged":
        return rows.exclude(warnings=[])
    if outcome:
        return rows.filter(outcome=outcome)
    return rows


def rejected_rows(job: ImportJob) -> QuerySet[ImportRow]:
    return job_rows(job, outcome=RowOutcome.REJECTED)


DAMAGE_LABELS = {
    Damage.MOJIBAKE: gettext_lazy("Looks garbled: read in the wrong encoding once"),
    Damage.LOST: gettext_lazy("Characters are missing or unreadable"),
    Damage.PINYIN: gettext_lazy("Pinyin left in brackets by a converter"),
}


def damage_label(damage: str) -> str:
    """What a flagged cell's damage is, in the active language."""
    try:
        return str(DAMAGE_LABELS[Damage(damage)])
    except (ValueError, KeyError):
        return damage


def job_summary(job: ImportJob) -> dict[str, Any]:
    """What the pages and the API say of a job (its status, progress and counts)."""
    return {
        "id": job.pk,
        "status": job.status,
        "status_label": job.get_status_display(),
        "working": job.working,
        "file_name": job.original_name,
        "file_format": job.file_format,
        "pictures_name": job.pictures_name,
        "detected_encoding": job.detected_encoding,
        "encoding": job.encoding,
        "encoding_label": encoding_label(job.encoding) if job.encoding else "",
        "header_language": job.header_language,
        "mode": job.mode,
        "rows_total": job.rows_total,
        "rows_done": job.rows_done,
        "percent": job.percent,
        "preview": {
            "new": job.new_rows,
            "changed": job.changed_rows,
            "unchanged": job.unchanged_rows,
            "rejected": job.rejected_rows,
            "flagged": job.flagged_rows,
        },
        "result": {
            "created": job.created_count,
            "updated": job.updated_count,
            "unchanged": job.skipped_count,
            "failed": job.failed_count,
            "pictures_added": job.pictures_added,
        },
        "notes": list(job.notes or []),
        "message": job.message,
        "created_at": job.created_at,
        "started_at": job.started_at,
        "finished_at": job.finished_at,
        "finished": job.status == ImportStatus.FINISHED,
    }
