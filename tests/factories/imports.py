"""Catalogue files for the import: rows of products as CSV (in any encoding) or XLSX, ZIPs
of pictures, and uploads of them."""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile

from tests.factories.images import png_bytes
from tradepost.imports.columns import column

#: A complete product row, by column key.
BASE_ROW: dict[str, Any] = {
    "sku": "VF-500",
    "title": "Stainless steel vacuum flask 500 ml",
    "original_language": "en",
    "category": "home-garden-vacuum-flasks",
    "description": "<p>Double wall.</p>",
    "keywords": "thermos",
    "attributes": "Material: 304 steel\nCapacity: 500 ml",
    "moq": "500",
    "moq_unit": "pieces",
    "price_min": "2.5",
    "price_max": "3.8",
    "currency": "USD",
    "incoterms": "FOB, CIF",
    "port_of_loading": "Ningbo",
    "payment_terms": "tt",
    "lead_time_days": "30",
    "supply_capacity": "20000",
    "supply_capacity_unit": "pieces",
    "hs_code": "",
    "origin_country": "CN",
    "status": "draft",
}


#: Titles unlike each other (the catalogue holds back a listing much like one the company
#: already published: ADR 0024's near-duplicates).
TITLES = [
    "Stainless steel vacuum flask",
    "Ceramic coffee mug with lid",
    "Bamboo cutting board",
    "LED desk lamp with dimmer",
    "Cotton canvas tote bag",
    "Glass teapot with infuser",
    "Silicone baking mat",
    "Wooden kitchen spoon set",
    "Memory foam travel pillow",
    "Folding camping chair",
    "Waterproof hiking backpack",
    "Wireless charging pad",
    "Cast iron skillet",
    "Enamel camping mug",
    "Yoga mat non slip",
    "Electric kettle 1.7 l",
    "Insulated lunch box",
    "Aluminium water bottle",
    "Ceramic plant pot",
    "Linen table napkins",
]


def title_of(n: int) -> str:
    return TITLES[n] if n < len(TITLES) else f"{TITLES[n % len(TITLES)]} type {n}"


def product_rows(count: int, **changes: Any) -> list[dict[str, Any]]:
    """`count` rows of BASE_ROW with SKUs VF-0, VF-1, ... and titles unlike each other."""
    return [{**BASE_ROW, "sku": f"VF-{n}", "title": title_of(n), **changes} for n in range(count)]


def table(
    rows: Sequence[Mapping[str, Any]], *, language: str = "en", keys: Sequence[str] | None = None
) -> list[list[Any]]:
    """The header (named in `language`) and the rows, in the columns of `keys` (the first
    row's, by default)."""
    keys = list(keys or rows[0].keys())
    return [[column(key).name(language) for key in keys]] + [
        [row.get(key, "") for key in keys] for row in rows
    ]


def csv_bytes(
    lines: Iterable[Sequence[Any]], *, encoding: str = "utf-8", delimiter: str = ","
) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter)
    for line in lines:
        writer.writerow(line)
    return buffer.getvalue().encode(encoding)


def xlsx_bytes(lines: Iterable[Sequence[Any]]) -> bytes:
    from openpyxl import Workbook

    workbook = Workbook()
    sheet = workbook.active
    for line in lines:
        sheet.append(list(line))
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def upload(data: bytes, name: str = "catalogue.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, "application/octet-stream")


def pictures_zip(files: Mapping[str, bytes] | None = None, **options: Any) -> bytes:
    """A ZIP of pictures, by name (two small PNGs by default)."""
    files = (
        files
        if files is not None
        else {"flask-1.png": png_bytes(), "flask-2.png": png_bytes(colour=(0, 90, 200))}
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, **options) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def upload_catalogue(actor: Any, company: Any, rows: Sequence[Mapping[str, Any]] | None = None):
    """An uploaded (and checked) catalogue of `company`, not imported yet."""
    from tradepost.imports.services import import_upload

    return import_upload(
        actor=actor,
        company=company,
        catalogue=upload(csv_bytes(table(rows or product_rows(1)))),
    )
