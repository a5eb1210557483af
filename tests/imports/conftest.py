"""Fixtures of the catalogue import's tests: a supplier (owner and member) and helpers that
upload a file and confirm it through the services."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from tests.factories.companies import add_member, make_trader
from tests.factories.imports import csv_bytes, table, upload, xlsx_bytes
from tradepost.imports import services
from tradepost.imports.models import ImportJob


class Supplier:
    def __init__(self) -> None:
        self.owner, self.company = make_trader(legal_name="Ningbo Flask Works")
        self.member = add_member(self.company)

    def upload(
        self,
        data: bytes,
        name: str = "catalogue.csv",
        *,
        pictures: bytes | None = None,
        actor: Any = None,
        **options: Any,
    ) -> ImportJob:
        return services.import_upload(
            actor=actor or self.owner,
            company=self.company,
            catalogue=upload(data, name),
            pictures=upload(pictures, "pictures.zip") if pictures is not None else None,
            **options,
        )

    def upload_rows(
        self, rows: Sequence[dict[str, Any]], *, xlsx: bool = False, **options: Any
    ) -> ImportJob:
        lines = table(rows, language=options.pop("language_of_headers", "en"))
        if xlsx:
            return self.upload(xlsx_bytes(lines), "catalogue.xlsx", **options)
        return self.upload(csv_bytes(lines), **options)

    def confirm(self, job: ImportJob, **options: Any) -> ImportJob:
        return services.import_confirm(actor=self.owner, job=job, **options)

    def run(self, rows: Sequence[dict[str, Any]], **options: Any) -> ImportJob:
        """Upload and confirm (valid rows only unless told)."""
        mode = options.pop("mode", "valid")
        job = self.upload_rows(rows, mode=mode, **options)
        return self.confirm(job)


@pytest.fixture
def supplier(db) -> Supplier:
    return Supplier()


@pytest.fixture
def errors_of() -> Callable[[ImportJob], dict[int, list[tuple[str, str]]]]:
    """The reasons of a job's rejected rows: {row number: [(column, message)]}."""

    def read(job: ImportJob) -> dict[int, list[tuple[str, str]]]:
        return {
            row.line: [(error["column"], error["message"]) for error in row.errors]
            for row in job.rows.filter(outcome="rejected")
        }

    return read
