"""`tradepost export-products --company SLUG`: a company's catalogue as a CSV or XLSX file
that `tradepost import-products` (or an upload on the site) reads back unchanged.

    tradepost export-products --company ningbo-flask-works --format xlsx --language zh-hans \\
        --output catalogue.xlsx
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tradepost.companies.models import Company
from tradepost.imports.exports import catalogue_export
from tradepost.imports.models import ImportFormat


class Command(BaseCommand):
    help = "Export a company's catalogue as a CSV or XLSX file the import reads back."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--company", required=True, help="The company's slug.")
        parser.add_argument("--format", choices=ImportFormat.values, default=ImportFormat.CSV)
        parser.add_argument(
            "--language",
            choices=["en", "zh-hans", "zh-hant"],
            default="en",
            help="The language of the column names.",
        )
        parser.add_argument("--output", help="The file to write (default: the file's own name).")

    def handle(self, *args: Any, **options: Any) -> None:
        company = Company.objects.filter(slug=options["company"]).first()
        if company is None:
            raise CommandError(f"No company with the slug {options['company']!r}.")
        download = catalogue_export(
            user=None,
            company=company,
            file_format=options["format"],
            language=options["language"],
            command_line=True,
        )
        path = Path(options["output"] or download.filename)
        assert isinstance(download.content, bytes)  # made now, never a stored file
        path.write_bytes(download.content)
        self.stdout.write(f"Wrote {path} ({len(download.content):,} bytes).")
