"""`tradepost import-products FILE --company SLUG`: a supplier's catalogue from a CSV or XLSX
file, checked, shown, then imported, with a progress bar on the terminal.

    tradepost import-products catalogue.xlsx --company ningbo-flask-works
    tradepost import-products catalogue.csv --company ningbo-flask-works --pictures photos.zip \\
        --encoding gb18030 --mode valid --user sales@flask-works.example
    tradepost import-products catalogue.csv --company ningbo-flask-works --dry-run
    tradepost import-products --resume 42

The same checks and services as an upload on the supplier's page (docs/adr/0027): rows are
found by their SKU, so running the command again after a crash (or `--resume` the job it
left) completes the import and changes nothing already done.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.core.files import File
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import translation

from tradepost.accounts.models import User
from tradepost.companies.models import Company, Membership, Role
from tradepost.core.errors import DomainError
from tradepost.core.management.progress import progress_bar
from tradepost.imports import running, services
from tradepost.imports.models import ImportJob, ImportMode, ImportStatus
from tradepost.imports.reading import encoding_label
from tradepost.imports.selectors import job_rows

#: Rejected rows printed (the page and the file of rejected rows hold them all).
SHOWN_ROWS = 20


class Command(BaseCommand):
    help = "Import a company's catalogue from a CSV or XLSX file (rows found by their SKU)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", nargs="?", help="The CSV or XLSX file.")
        parser.add_argument("--company", help="The company's slug (its address on the site).")
        parser.add_argument("--pictures", help="A ZIP file of the pictures the rows name.")
        parser.add_argument("--encoding", default="", help="Read a CSV file in this encoding.")
        parser.add_argument(
            "--mode",
            choices=[ImportMode.ALL_OR_NOTHING, ImportMode.VALID_ROWS],
            default=ImportMode.ALL_OR_NOTHING,
            help="all: nothing unless every row is accepted (default); valid: the valid rows.",
        )
        parser.add_argument(
            "--user", help="Who imports (a member's email address; default: the owner)."
        )
        parser.add_argument("--dry-run", action="store_true", help="Check and show, no import.")
        parser.add_argument("--resume", type=int, help="Go on with the import job of this id.")
        parser.add_argument("--no-progress", action="store_true", help="No progress bar.")

    def handle(self, *args: Any, **options: Any) -> None:
        self.quiet = options["no_progress"]
        if options["resume"]:
            self._resume(options["resume"])
            return
        if not options["file"] or not options["company"]:
            raise CommandError("Give the FILE and --company SLUG (or --resume JOB).")
        company = Company.objects.filter(slug=options["company"]).first()
        if company is None:
            raise CommandError(f"No company with the slug {options['company']!r}.")
        actor = self._actor(company, options["user"])
        language = getattr(actor, "preferred_language", "") or "en"
        with translation.override(language):
            job = self._upload(actor, company, options, language)
            self._show(job)
            if job.status != ImportStatus.READY or options["dry_run"]:
                if job.status == ImportStatus.FAILED:
                    raise CommandError(job.message)
                return
            try:
                with self._bar("Importing", job.rows_total) as progress:
                    job = services.import_confirm(
                        actor=actor, job=job, mode=options["mode"], inline=True, progress=progress
                    )
            except DomainError as refusal:
                raise CommandError(refusal.message) from None
            self._result(job)

    def _actor(self, company: Company, email: str | None) -> User:
        if email:
            user = User.objects.filter(email__iexact=email.strip()).first()
            if user is None:
                raise CommandError(f"No user with the email address {email!r}.")
            return user
        owner = (
            Membership.objects.filter(company=company, role=Role.OWNER)
            .select_related("user")
            .first()
        )
        if owner is None:
            raise CommandError("The company has no owner: name who imports with --user.")
        return owner.user

    def _upload(
        self, actor: User, company: Company, options: dict[str, Any], language: str
    ) -> ImportJob:
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"No file at {path}.")
        pictures_path = Path(options["pictures"]) if options["pictures"] else None
        if pictures_path is not None and not pictures_path.is_file():
            raise CommandError(f"No file at {pictures_path}.")
        with path.open("rb") as sheet:
            pictures = pictures_path.open("rb") if pictures_path else None
            try:
                with self._bar("Checking", 0) as progress:
                    return services.import_upload(
                        actor=actor,
                        company=company,
                        catalogue=File(sheet, name=path.name),
                        pictures=(
                            File(pictures, name=pictures_path.name)
                            if pictures is not None and pictures_path is not None
                            else None
                        ),
                        encoding=options["encoding"],
                        mode=options["mode"],
                        language=language,
                        inline=True,
                        progress=progress,
                    )
            except DomainError as refusal:
                raise CommandError(refusal.message) from None
            finally:
                if pictures is not None:
                    pictures.close()

    def _resume(self, job_id: int) -> None:
        job = ImportJob.objects.select_related("created_by").filter(pk=job_id).first()
        if job is None:
            raise CommandError(f"No import job {job_id}.")
        if job.status not in (ImportStatus.IMPORTING, ImportStatus.CHECKING):
            raise CommandError(f"Import job {job_id} is {job.status}: nothing to resume.")
        if job.status == ImportStatus.CHECKING:
            with self._bar("Checking", job.rows_total) as progress:
                running.import_check(job_id=job.pk, progress=progress)
            job.refresh_from_db()
            self._show(job)
            return
        with self._bar("Importing", job.rows_total, start=job.rows_done) as progress:
            running.import_run(job_id=job.pk, progress=progress)
        job.refresh_from_db()
        self._result(job)

    @contextmanager
    def _bar(self, label: str, total: int, start: int = 0) -> Iterator[Callable[[int, int], None]]:
        """A bar as a `progress(done, total)` callback (the total may grow as rows are read)."""
        with progress_bar(
            self, total=total, unit=" rows", quiet=self.quiet, label=label, start=start
        ) as bar:

            def progress(done: int, total: int) -> None:
                if total and bar.total != total:
                    bar.total = total
                bar.update(max(0, done - bar.n))

            yield progress

    def _show(self, job: ImportJob) -> None:
        out = self.stdout
        out.write(f"Import job {job.pk}: {job.original_name} ({job.file_format.upper()})")
        if job.encoding:
            detected = encoding_label(job.detected_encoding) if job.detected_encoding else "-"
            out.write(f"Encoding: {encoding_label(job.encoding)} (detected: {detected})")
        if job.status == ImportStatus.FAILED:
            out.write(f"Failed: {job.message}")
            return
        out.write(
            f"Rows: {job.rows_total} — new {job.new_rows}, changed {job.changed_rows}, "
            f"unchanged {job.unchanged_rows}, rejected {job.rejected_rows}, "
            f"with garbled text {job.flagged_rows}"
        )
        for note in job.notes or []:
            out.write(f"Note: {note}")
        for row in job_rows(job)[:SHOWN_ROWS]:
            for error in row.errors:
                out.write(f"  row {row.line} [{error['column'] or '-'}]: {error['message']}")
            for flag in row.warnings:
                suggestion = f" -> {flag['suggestion']}" if flag.get("suggestion") else ""
                out.write(
                    f"  row {row.line} [{flag['column']}] garbled: {flag['text']}{suggestion}"
                )

    def _result(self, job: ImportJob) -> None:
        if job.status == ImportStatus.FAILED:
            raise CommandError(job.message)
        self.stdout.write(
            f"Import job {job.pk} {job.status}: {job.created_count} added, "
            f"{job.updated_count} changed, {job.skipped_count} unchanged, "
            f"{job.failed_count} not imported, {job.pictures_added} pictures added."
        )
