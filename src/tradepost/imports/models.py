"""A catalogue upload and what came of it (docs/adr/0027-catalogue-import.md).

An `ImportJob` is one file (CSV or XLSX, with a ZIP of pictures or not) a company's member
uploaded: checked first (the preview: how many rows are new, changed, unchanged or rejected,
and why), imported once confirmed, row by row through the catalogue's services. Its counters
are the progress bar and the result. `ImportRow` keeps the rows worth showing: rejected ones
with their reasons (in the uploader's language) and their cells (for the file of rejected
rows), and rows with cells that look garbled. `ImportedPicture` remembers which file of a
ZIP became which picture of a product, so the same upload twice adds nothing.

Written only by `imports.services`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from tradepost.catalog.models import Product, ProductImage
from tradepost.companies.models import Company
from tradepost.imports.storage import import_files, pictures_path, sheet_path


class ImportFormat(models.TextChoices):
    CSV = "csv", "CSV"
    XLSX = "xlsx", "XLSX"


class ImportMode(models.TextChoices):
    ALL_OR_NOTHING = "all", _("All or nothing")
    VALID_ROWS = "valid", _("Valid rows only")


class ImportStatus(models.TextChoices):
    CHECKING = "checking", _("Checking the file")
    READY = "ready", _("Checked, waiting for your confirmation")
    IMPORTING = "importing", _("Importing")
    FINISHED = "finished", _("Finished")
    FAILED = "failed", _("Failed")
    CANCELLED = "cancelled", _("Cancelled")


#: Statuses in which a background task works on the job (the page polls its progress).
WORKING = frozenset({ImportStatus.CHECKING, ImportStatus.IMPORTING})


class ImportJob(models.Model):
    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="imports")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("uploaded by"),
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
    )
    created_at = models.DateTimeField(_("uploaded at"))
    #: Written with every checkpoint: a job working whose time stands still is stalled.
    updated_at = models.DateTimeField(_("last progress"))
    started_at = models.DateTimeField(_("import started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    file = models.FileField(upload_to=sheet_path, storage=import_files, max_length=200)
    original_name = models.CharField(_("file name"), max_length=200)
    file_format = models.CharField(_("format"), max_length=4, choices=ImportFormat.choices)
    size = models.PositiveBigIntegerField(_("size in bytes"))
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    pictures = models.FileField(
        upload_to=pictures_path, storage=import_files, max_length=200, blank=True
    )
    pictures_name = models.CharField(_("pictures file name"), max_length=200, blank=True)
    #: The file's first row as read (its column names), kept by the check: the file of
    #: rejected rows is written under it without reading the upload again.
    header = models.JSONField(_("column names as uploaded"), default=list, blank=True)
    #: The rejected rows with their reasons, in the upload's format: written once when the
    #: check ends (and again when the import refuses rows), served from here.
    rejected_file = models.FileField(
        _("file of rejected rows"),
        upload_to=sheet_path,
        storage=import_files,
        max_length=200,
        blank=True,
    )
    #: The text encoding found in a CSV file ("" for XLSX) and the one it is read in (the
    #: uploader may choose another after the preview).
    detected_encoding = models.CharField(_("detected encoding"), max_length=20, blank=True)
    encoding = models.CharField(_("encoding"), max_length=20, blank=True)
    #: The language of the file's column names (en, zh-hans, zh-hant), which the file of
    #: rejected rows is written in; the uploader's language, which the reasons are written in.
    header_language = models.CharField(_("column names"), max_length=10, default="en")
    language = models.CharField(_("language"), max_length=10, default="en")
    mode = models.CharField(
        _("mode"), max_length=5, choices=ImportMode.choices, default=ImportMode.ALL_OR_NOTHING
    )
    status = models.CharField(
        _("status"), max_length=10, choices=ImportStatus.choices, default=ImportStatus.CHECKING
    )
    #: Why a job failed, in the uploader's language.
    message = models.TextField(_("message"), blank=True)
    #: What the uploader should know about the file as a whole (columns left out, products
    #: that will stay drafts), in their language.
    notes = models.JSONField(_("notes"), default=list, blank=True)

    #: The file's rows (the header left out), and how far the current pass has come.
    rows_total = models.PositiveIntegerField(_("rows"), default=0)
    rows_done = models.PositiveIntegerField(_("rows done"), default=0)
    #: The preview's counts.
    new_rows = models.PositiveIntegerField(_("new"), default=0)
    changed_rows = models.PositiveIntegerField(_("changed"), default=0)
    unchanged_rows = models.PositiveIntegerField(_("unchanged"), default=0)
    rejected_rows = models.PositiveIntegerField(_("rejected"), default=0)
    flagged_rows = models.PositiveIntegerField(_("with garbled text"), default=0)
    #: The import's counts, written with each checkpoint.
    created_count = models.PositiveIntegerField(_("products added"), default=0)
    updated_count = models.PositiveIntegerField(_("products changed"), default=0)
    skipped_count = models.PositiveIntegerField(_("rows unchanged"), default=0)
    failed_count = models.PositiveIntegerField(_("rows not imported"), default=0)
    pictures_added = models.PositiveIntegerField(_("pictures added"), default=0)

    class Meta:
        verbose_name = _("catalogue import")
        verbose_name_plural = _("catalogue imports")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["company", "-created_at"], name="import_company_recent")]

    def __str__(self) -> str:
        return f"{self.original_name} ({self.get_status_display()})"

    @property
    def working(self) -> bool:
        return self.status in WORKING

    @property
    def percent(self) -> int:
        """How far the current pass has come, 0 to 100."""
        if not self.rows_total:
            return 100 if self.status == ImportStatus.FINISHED else 0
        return min(100, self.rows_done * 100 // self.rows_total)


class RowOutcome(models.TextChoices):
    NEW = "new", _("New")
    CHANGED = "changed", _("Changed")
    UNCHANGED = "unchanged", _("Unchanged")
    REJECTED = "rejected", _("Rejected")


class ImportRow(models.Model):
    """A row of the file worth showing: rejected (by the preview or, rarely, when written) or
    with cells that look garbled."""

    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="rows")
    #: The row's line in the file (the header is line 1).
    line = models.PositiveIntegerField(_("line"))
    sku = models.CharField(_("SKU"), max_length=200, blank=True)
    outcome = models.CharField(_("outcome"), max_length=10, choices=RowOutcome.choices)
    #: [{"column": the column's name in the file, "message": why, in the uploader's language}]
    errors = models.JSONField(_("reasons"), default=list, blank=True)
    #: [{"column", "damage": garbled.Damage, "text", "suggestion": str | None}]
    warnings = models.JSONField(_("garbled cells"), default=list, blank=True)
    #: The row's cells as read, by column position (rejected rows: the file of rejected rows).
    cells = models.JSONField(_("cells"), default=list, blank=True)

    class Meta:
        verbose_name = _("import row")
        verbose_name_plural = _("import rows")
        ordering = ["job", "line"]
        constraints = [
            models.UniqueConstraint(fields=["job", "line"], name="one_import_row_per_line")
        ]

    def __str__(self) -> str:
        return f"{self.job_id}:{self.line} {self.outcome}"


class ImportedPicture(models.Model):
    """A product picture that came from a file of an upload's ZIP, by the file's name: the
    same name with the same content is that picture again, not a new one."""

    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="+")
    image = models.OneToOneField(ProductImage, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(_("file name"), max_length=200)
    sha256 = models.CharField(_("SHA-256"), max_length=64)

    class Meta:
        verbose_name = _("imported picture")
        verbose_name_plural = _("imported pictures")
        indexes = [models.Index(fields=["product", "name"], name="imported_picture_name")]

    def __str__(self) -> str:
        return self.name
