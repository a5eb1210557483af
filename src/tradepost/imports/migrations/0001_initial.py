# The catalogue import: uploads, their rows worth showing, and pictures taken from their ZIPs
# (docs/adr/0027-catalogue-import.md).

import django.db.models.deletion
import tradepost.imports.storage
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("catalog", "0005_product_sku"),
        ("companies", "0002_company_standing"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ImportJob",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("created_at", models.DateTimeField(verbose_name="uploaded at")),
                ("updated_at", models.DateTimeField(verbose_name="last progress")),
                (
                    "started_at",
                    models.DateTimeField(blank=True, null=True, verbose_name="import started"),
                ),
                (
                    "finished_at",
                    models.DateTimeField(blank=True, null=True, verbose_name="finished at"),
                ),
                (
                    "file",
                    models.FileField(
                        max_length=200,
                        storage=tradepost.imports.storage.import_files,
                        upload_to=tradepost.imports.storage.sheet_path,
                    ),
                ),
                ("original_name", models.CharField(max_length=200, verbose_name="file name")),
                (
                    "file_format",
                    models.CharField(
                        choices=[("csv", "CSV"), ("xlsx", "XLSX")],
                        max_length=4,
                        verbose_name="format",
                    ),
                ),
                ("size", models.PositiveBigIntegerField(verbose_name="size in bytes")),
                ("sha256", models.CharField(max_length=64, verbose_name="SHA-256")),
                (
                    "pictures",
                    models.FileField(
                        blank=True,
                        max_length=200,
                        storage=tradepost.imports.storage.import_files,
                        upload_to=tradepost.imports.storage.pictures_path,
                    ),
                ),
                (
                    "pictures_name",
                    models.CharField(blank=True, max_length=200, verbose_name="pictures file name"),
                ),
                (
                    "detected_encoding",
                    models.CharField(blank=True, max_length=20, verbose_name="detected encoding"),
                ),
                ("encoding", models.CharField(blank=True, max_length=20, verbose_name="encoding")),
                (
                    "header_language",
                    models.CharField(default="en", max_length=10, verbose_name="column names"),
                ),
                (
                    "language",
                    models.CharField(default="en", max_length=10, verbose_name="language"),
                ),
                (
                    "mode",
                    models.CharField(
                        choices=[("all", "All or nothing"), ("valid", "Valid rows only")],
                        default="all",
                        max_length=5,
                        verbose_name="mode",
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("checking", "Checking the file"),
                            ("ready", "Checked, waiting for your confirmation"),
                            ("importing", "Importing"),
                            ("finished", "Finished"),
                            ("failed", "Failed"),
                            ("cancelled", "Cancelled"),
                        ],
                        default="checking",
                        max_length=10,
                        verbose_name="status",
                    ),
                ),
                ("message", models.TextField(blank=True, verbose_name="message")),
                ("notes", models.JSONField(blank=True, default=list, verbose_name="notes")),
                ("rows_total", models.PositiveIntegerField(default=0, verbose_name="rows")),
                ("rows_done", models.PositiveIntegerField(default=0, verbose_name="rows done")),
                ("new_rows", models.PositiveIntegerField(default=0, verbose_name="new")),
                ("changed_rows", models.PositiveIntegerField(default=0, verbose_name="changed")),
                (
                    "unchanged_rows",
                    models.PositiveIntegerField(default=0, verbose_name="unchanged"),
                ),
                ("rejected_rows", models.PositiveIntegerField(default=0, verbose_name="rejected")),
                (
                    "flagged_rows",
                    models.PositiveIntegerField(default=0, verbose_name="with garbled text"),
                ),
                (
                    "created_count",
                    models.PositiveIntegerField(default=0, verbose_name="products added"),
                ),
                (
                    "updated_count",
                    models.PositiveIntegerField(default=0, verbose_name="products changed"),
                ),
                (
                    "skipped_count",
                    models.PositiveIntegerField(default=0, verbose_name="rows unchanged"),
                ),
                (
                    "failed_count",
                    models.PositiveIntegerField(default=0, verbose_name="rows not imported"),
                ),
                (
                    "pictures_added",
                    models.PositiveIntegerField(default=0, verbose_name="pictures added"),
                ),
                (
                    "company",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="imports",
                        to="companies.company",
                    ),
                ),
                (
                    "created_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="uploaded by",
                    ),
                ),
            ],
            options={
                "verbose_name": "catalogue import",
                "verbose_name_plural": "catalogue imports",
                "ordering": ["-created_at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="ImportRow",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("line", models.PositiveIntegerField(verbose_name="line")),
                ("sku", models.CharField(blank=True, max_length=200, verbose_name="SKU")),
                (
                    "outcome",
                    models.CharField(
                        choices=[
                            ("new", "New"),
                            ("changed", "Changed"),
                            ("unchanged", "Unchanged"),
                            ("rejected", "Rejected"),
                        ],
                        max_length=10,
                        verbose_name="outcome",
                    ),
                ),
                ("errors", models.JSONField(blank=True, default=list, verbose_name="reasons")),
                (
                    "warnings",
                    models.JSONField(blank=True, default=list, verbose_name="garbled cells"),
                ),
                ("cells", models.JSONField(blank=True, default=list, verbose_name="cells")),
                (
                    "job",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="rows",
                        to="imports.importjob",
                    ),
                ),
            ],
            options={
                "verbose_name": "import row",
                "verbose_name_plural": "import rows",
                "ordering": ["job", "line"],
            },
        ),
        migrations.CreateModel(
            name="ImportedPicture",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=200, verbose_name="file name")),
                ("sha256", models.CharField(max_length=64, verbose_name="SHA-256")),
                (
                    "image",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="catalog.productimage",
                    ),
                ),
                (
                    "product",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="catalog.product",
                    ),
                ),
            ],
            options={
                "verbose_name": "imported picture",
                "verbose_name_plural": "imported pictures",
                "indexes": [models.Index(fields=["product", "name"], name="imported_picture_name")],
            },
        ),
        migrations.AddIndex(
            model_name="importjob",
            index=models.Index(fields=["company", "-created_at"], name="import_company_recent"),
        ),
        migrations.AddConstraint(
            model_name="importrow",
            constraint=models.UniqueConstraint(
                fields=("job", "line"), name="one_import_row_per_line"
            ),
        ),
    ]
