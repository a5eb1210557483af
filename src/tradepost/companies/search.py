"""The companies' records for the search index (`search.sources`): every company in good
standing is searchable, whatever its products' state; a suspended or banned one is absent
(the indexer removes it, and its products, whose records need their company's). Registered in
`CompaniesConfig.ready`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from tradepost.companies.models import BusinessType, Company, Standing
from tradepost.core.database import id_chunks
from tradepost.search.documents import (
    CompanyRecord,
    Select,
    id_batches,
    plain_text_memo,
    sql_in,
    string_list_memo,
)
from tradepost.search.sources import CompanySource

COLUMNS = (
    "id",
    "legal_name",
    "english_name",
    "country",
    "is_verified",
    "business_types",
    "main_products",
    "description",
    "original_language",
    "standing",
    "updated_at",
)
_COMPANIES = Select(Company, COLUMNS)


def company_record(row: dict[str, Any]) -> CompanyRecord:
    return CompanyRecord(
        id=row["id"],
        legal_name=row["legal_name"] or "",
        english_name=row["english_name"] or "",
        country=(row["country"] or "").upper(),
        is_verified=bool(row["is_verified"]),
        business_types=list(string_list_memo(row["business_types"])),
        main_products=row["main_products"] or "",
        description=plain_text_memo(row["description"] or ""),
        original_language=row["original_language"] or "",
        updated_at=row["updated_at"],
    )


def _searchable() -> Any:
    return Company.objects.filter(standing=Standing.ACTIVE)


def load_companies(ids: Iterable[int]) -> dict[int, CompanyRecord]:
    """The companies in good standing among `ids` (the standing is checked here rather than
    in SQL, as `catalog.search` checks a product's status)."""
    found: dict[int, CompanyRecord] = {}
    for chunk in id_batches(ids):
        for row in _COMPANIES.rows(sql_in(Company, "id", len(chunk)), chunk):
            if row["standing"] == Standing.ACTIVE:
                found[row["id"]] = company_record(row)
    return found


def company_chunks(chunk_size: int) -> Iterator[list[CompanyRecord]]:
    for rows in id_chunks(_searchable, COLUMNS, chunk_size):
        yield [company_record(row) for row in rows]


def company_versions() -> Iterator[tuple[int, datetime]]:
    yield from _searchable().order_by("id").values_list("id", "updated_at").iterator(5000)


def companies_by_id(ids: list[int]) -> dict[int, Any]:
    """The companies a page of results names that are still in good standing."""
    return _searchable().in_bulk(ids)


def business_types() -> dict[str, str]:
    return {value: str(label) for value, label in BusinessType.choices}


SOURCE = CompanySource(
    load=load_companies,
    chunks=company_chunks,
    versions=company_versions,
    objects=companies_by_id,
    business_types=business_types,
)
