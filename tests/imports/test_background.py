"""Large files are checked and imported by the worker (the durable task queue), with progress
on the job; a job a crash stopped is picked up again by the worker's timer and goes on from
its checkpoint; the command line does the same in its own process, with a progress bar."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from tests.factories.imports import csv_bytes, product_rows, table
from tradepost.catalog.models import Product
from tradepost.imports import running, services
from tradepost.imports.models import ImportJob, ImportStatus
from tradepost.ops.periodic import JOBS

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_inline(settings):
    settings.TRADEPOST_IMPORT_INLINE_ROWS = 5


def test_a_large_file_is_checked_and_imported_by_the_worker(
    supplier, small_inline, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(running, "CHECK_CHUNK", 4)
    monkeypatch.setattr(running, "WRITE_CHUNK", 4)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        job = supplier.upload_rows(product_rows(12), mode="valid")
    assert job.status == ImportStatus.CHECKING and len(queued) == 1
    queued[0]()  # the worker takes the task (the immediate backend runs it now)
    job.refresh_from_db()
    assert (job.status, job.new_rows, job.rows_done) == (ImportStatus.READY, 12, 12)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        job = supplier.confirm(job)
    assert job.status == ImportStatus.IMPORTING and Product.objects.count() == 0
    progress = []
    original = running._write_chunk

    def watched(*args, **kwargs):
        original(*args, **kwargs)
        progress.append(ImportJob.objects.get(pk=job.pk).rows_done)

    monkeypatch.setattr(running, "_write_chunk", watched)
    queued[0]()
    job.refresh_from_db()
    assert (job.status, job.created_count) == (ImportStatus.FINISHED, 12)
    assert progress == [4, 8, 12]


def test_a_stalled_import_goes_on_from_its_checkpoint(
    supplier, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(running, "WRITE_CHUNK", 3)
    job = supplier.upload_rows(product_rows(9), mode="valid")
    # A worker wrote the first chunk, then died: the checkpoint says 3 rows are done.
    with django_capture_on_commit_callbacks(execute=False):
        job = services._confirm(supplier.owner, job, "valid", later=True)
    running._write_chunk(
        job,
        supplier.owner,
        running.Planner(
            company=supplier.company,
            layout=running.Layout.from_header(running.Row(1, table(product_rows(1))[0])),
            pictures=None,
        ),
        None,
        [running.Row(n + 2, line) for n, line in enumerate(table(product_rows(3))[1:])],
        start=0,
    )
    assert Product.objects.count() == 3
    an_hour_ago = timezone.now() - timedelta(hours=1)
    ImportJob.objects.filter(pk=job.pk).update(updated_at=an_hour_ago)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.imports_resume_stalled() == 1
    job.refresh_from_db()
    assert (job.status, job.created_count, job.rows_done) == (ImportStatus.FINISHED, 9, 9)
    assert Product.objects.count() == 9
    # Nothing stalled any more.
    assert services.imports_resume_stalled() == 0


def test_the_workers_timer_picks_up_stalled_imports():
    assert "resume stalled catalogue imports" in [name for name, _interval, _job in JOBS]


def test_the_command_checks_imports_and_reports(supplier, tmp_path):
    path = tmp_path / "catalogue.csv"
    rows = product_rows(3)
    rows[2]["moq"] = "-1"
    path.write_bytes(csv_bytes(table(rows)))
    out = StringIO()
    call_command(
        "import-products",
        str(path),
        company=supplier.company.slug,
        mode="valid",
        no_progress=True,
        stdout=out,
    )
    text = out.getvalue()
    assert "new 2, changed 0, unchanged 0, rejected 1" in text
    assert "row 4 [Minimum order quantity]: Enter a number greater than zero." in text
    assert "2 added, 0 changed, 0 unchanged, 1 not imported" in text
    assert Product.objects.filter(company=supplier.company).count() == 2


def test_the_command_dry_run_writes_nothing_and_all_or_nothing_refuses(supplier, tmp_path):
    path = tmp_path / "catalogue.csv"
    rows = product_rows(2)
    rows[1]["currency"] = "dollars"
    path.write_bytes(csv_bytes(table(rows)))
    out = StringIO()
    call_command(
        "import-products", str(path), company=supplier.company.slug, dry_run=True, stdout=out
    )
    assert "rejected 1" in out.getvalue() and Product.objects.count() == 0
    with pytest.raises(CommandError, match="rows were rejected"):
        call_command("import-products", str(path), company=supplier.company.slug, stdout=StringIO())
    assert Product.objects.count() == 0


def test_the_command_shows_a_progress_bar(supplier, tmp_path, capsys):
    path = tmp_path / "catalogue.csv"
    path.write_bytes(csv_bytes(table(product_rows(3))))
    call_command("import-products", str(path), company=supplier.company.slug, stdout=StringIO())
    bars = capsys.readouterr().err
    assert "Checking" in bars and "Importing" in bars and "3/3" in bars


def test_the_export_command_writes_a_file_the_import_reads_back(supplier, tmp_path):
    supplier.run(product_rows(2))
    path = tmp_path / "export.xlsx"
    call_command(
        "export-products",
        company=supplier.company.slug,
        format="xlsx",
        output=str(path),
        stdout=StringIO(),
    )
    out = StringIO()
    call_command(
        "import-products", str(path), company=supplier.company.slug, dry_run=True, stdout=out
    )
    assert "new 0, changed 0, unchanged 2, rejected 0" in out.getvalue()


def test_the_command_refuses_an_unknown_company(tmp_path, db):
    with pytest.raises(CommandError, match="No company"):
        call_command("import-products", str(tmp_path / "x.csv"), company="nobody")


def test_a_finished_import_is_announced_to_the_companys_webhooks(supplier, monkeypatch):
    from tradepost.core import events

    told = []
    monkeypatch.setattr(
        events, "_recorder", lambda kind, company, payload: told.append((kind, company, payload))
    )
    job = supplier.run(product_rows(2))
    ((kind, company, payload),) = told
    assert (kind, company) == ("import.finished", supplier.company.pk)
    assert payload["import_id"] == job.pk and payload["status"] == "finished"
    assert (payload["created"], payload["failed"]) == (2, 0)
