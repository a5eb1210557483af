"""Background jobs of the catalogue import: checking and importing large files (the
durable task queue, docs/adr/0003-background-tasks.md). Each goes on from the job's
checkpoint when run again (`services.imports_resume_stalled`)."""

from __future__ import annotations

from django_tasks import task

from tradepost.imports import running


@task()
def check_import(job_id: int) -> None:
    """Check the rows of an uploaded file (the preview)."""
    running.import_check(job_id=job_id)


@task()
def run_import(job_id: int) -> None:
    """Import the rows of a confirmed file."""
    running.import_run(job_id=job_id)
