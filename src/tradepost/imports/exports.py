"""Files the import gives out: a company's catalogue (CSV or XLSX, the import's own format,
so that exporting and importing it again changes nothing), the empty template, and an
upload's rejected rows with a column saying why (fix them, upload the file again).

Every text cell goes through the formula guard (`core.spreadsheets.safe_cell`: a cell
starting like a formula gets an apostrophe, which the import takes off again); CSV is UTF-8
with a byte-order mark, as Excel wants it for Chinese.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models.fields.files import FieldFile
from django.utils import timezone, translation
from django.utils.text import slugify

from tradepost.catalog.models import (
    Category,
    PaymentTerm,
    Product,
    ProductImage,
    ProductStatus,
    Unit,
)
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company
from tradepost.core.incoterms import Incoterm
from tradepost.core.languages import LISTING_LANGUAGES, normalise_ui_language
from tradepost.core.spreadsheets import safe_cell, write_csv
from tradepost.imports.columns import COLUMNS, HEADER_LANGUAGES, REASON, column, product_cells
from tradepost.imports.errors import ImportNotFound
from tradepost.imports.models import ImportedPicture, ImportFormat, ImportJob
from tradepost.imports.planning import Layout
from tradepost.imports.reading import FileRejected, Row
from tradepost.imports.selectors import rejected_rows

#: Products read per query while exporting.
EXPORT_BATCH = 1000
CONTENT_TYPES: dict[str, str] = {
    ImportFormat.CSV: "text/csv; charset=utf-8",
    ImportFormat.XLSX: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}
#: Characters an XLSX file cannot hold (control characters): left out of its cells.
_NOT_IN_XLSX = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


@dataclass(frozen=True)
class Download:
    content: bytes | FieldFile
    filename: str
    content_type: str


def clean_format(value: Any) -> str:
    """ "xlsx" when asked for, else "csv"."""
    return ImportFormat.XLSX if str(value or "").lower() == ImportFormat.XLSX else ImportFormat.CSV


def header_language(value: Any, default: str = "en") -> str:
    language = str(value or "").lower()
    return language if language in HEADER_LANGUAGES else normalise_ui_language(default)


def _xlsx_cell(value: Any) -> Any:
    value = safe_cell(value)
    return _NOT_IN_XLSX.sub("", value) if isinstance(value, str) else value


def _sheet(
    file_format: str,
    header: Sequence[Any],
    rows: Iterable[Sequence[Any]],
    *,
    title: str,
    extra: dict[str, list[list[Any]]] | None = None,
) -> bytes:
    if file_format == ImportFormat.CSV:
        text = io.StringIO()
        write_csv(text, header=header, rows=rows)
        return text.getvalue().encode("utf-8")
    from openpyxl import Workbook

    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet(title[:31])
    sheet.append([_xlsx_cell(cell) for cell in header])
    for row in rows:
        sheet.append([_xlsx_cell(cell) for cell in row])
    for name, lines in (extra or {}).items():
        more = workbook.create_sheet(name[:31])
        for line in lines:
            more.append([_xlsx_cell(cell) for cell in line])
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


# --- the catalogue ---------------------------------------------------------------------------


def _pictures_by_product(products: Sequence[Product]) -> dict[int, list[str]]:
    """Each product's picture names in order: the name it was imported as, else the stored
    file's own name."""
    imported = dict(
        ImportedPicture.objects.filter(product__in=products).values_list("image_id", "name")
    )
    names: dict[int, list[str]] = {}
    images = ProductImage.objects.filter(product__in=products).order_by("position", "id")
    for image_id, product_id, stored in images.values_list("id", "product_id", "image"):
        name = imported.get(image_id) or str(stored).rsplit("/", 1)[-1]
        names.setdefault(product_id, []).append(name)
    return names


def catalogue_rows(company: Company) -> Iterator[list[Any]]:
    """The company's products (deleted ones left out) as rows of COLUMNS, oldest first."""
    slugs = dict(Category.objects.values_list("id", "slug"))
    products = (
        Product.objects.filter(company=company)
        .exclude(status=ProductStatus.DELETED)
        .prefetch_related("translations")
        .order_by("pk")
    )
    last = 0
    while batch := list(products.filter(pk__gt=last)[:EXPORT_BATCH]):
        last = batch[-1].pk
        pictures = _pictures_by_product(batch)
        for product in batch:
            cells = product_cells(
                product,
                category_slug=slugs.get(product.category_id, ""),
                translations={
                    item.language: (item.title, item.description)
                    for item in product.translations.all()
                },
                pictures=pictures.get(product.pk, []),
            )
            yield [cells[column.key] for column in COLUMNS]


def _ensure_may_export(user: Any, company: Company) -> None:
    if not actor_for(user).works_for(company):
        raise ImportNotFound()


def catalogue_export(
    *, user: Any, company: Company, file_format: Any, language: Any, command_line: bool = False
) -> Download:
    """The company's catalogue as a file to import again, the columns named in `language`,
    for `user` if they manage its products (or for whoever runs the command line)."""
    if not command_line:
        _ensure_may_export(user, company)
    chosen = clean_format(file_format)
    language = header_language(language)
    header = [column.name(language) for column in COLUMNS]
    content = _sheet(chosen, header, catalogue_rows(company), title="Products")
    stamp = timezone.now().strftime("%Y%m%d")
    name = slugify(company.slug) or "company"
    return Download(content, f"{name}-catalogue-{stamp}.{chosen}", CONTENT_TYPES[chosen])


# --- the template ----------------------------------------------------------------------------


def _lists(language: str) -> dict[str, list[list[Any]]]:
    """The template's second sheet: every accepted code, and the leaf categories."""
    with translation.override(language):
        lines: list[list[Any]] = []
        for key, choices in (
            ("moq_unit", Unit.choices),
            ("incoterms", Incoterm.choices),
            ("payment_terms", PaymentTerm.choices),
            ("original_language", LISTING_LANGUAGES),
            (
                "status",
                [
                    (ProductStatus.DRAFT, ProductStatus.DRAFT.label),
                    (ProductStatus.PUBLISHED, ProductStatus.PUBLISHED.label),
                ],
            ),
        ):
            lines.append([column(key).name(language)])
            lines.extend([str(code), str(label)] for code, label in choices)
            lines.append([])
        lines.append([column("category").name(language)])
        leaves = Category.objects.filter(is_leaf=True).order_by("path")
        for category in leaves.only("slug", "name_en", "name_zh_hans", "name_zh_hant"):
            lines.append([category.slug, category.name_for(language)])
    return {"Lists": lines}


def template_file(*, file_format: Any, language: Any) -> Download:
    """An empty catalogue: the header in `language` and one example row (XLSX: a second
    sheet lists the accepted codes and the categories)."""
    chosen = clean_format(file_format)
    language = header_language(language)
    header = [column.name(language) for column in COLUMNS]
    example = [column.example for column in COLUMNS]
    extra = _lists(language) if chosen == ImportFormat.XLSX else None
    content = _sheet(chosen, header, [example], title="Products", extra=extra)
    return Download(
        content, f"tradepost-catalogue-template-{language}.{chosen}", CONTENT_TYPES[chosen]
    )


# --- rejected rows ---------------------------------------------------------------------------


def _reason(errors: list[dict[str, str]]) -> str:
    return "; ".join(
        f"{item['column']}: {item['message']}" if item.get("column") else item["message"]
        for item in errors
    )


def _header(job: ImportJob) -> tuple[list[str], int | None]:
    """The file's header as the check kept it, and the position of its column of reasons
    (a file of rejected rows uploaded again), if any."""
    header = [str(cell) for cell in job.header]
    try:
        reason = Layout.from_header(Row(1, header)).positions.get("reason") if header else None
    except FileRejected:
        reason = None
    return header, reason


def rejected_name(job: ImportJob) -> str:
    stem = job.original_name.rsplit(".", 1)[0] or "catalogue"
    return f"{stem}-rejected.{job.file_format}"


def rejected_download(job: ImportJob) -> Download:
    """The file of rejected rows as the check stored it; made now (and not kept) for a job
    whose check has not ended."""
    if job.rejected_file:
        return Download(job.rejected_file, rejected_name(job), CONTENT_TYPES[job.file_format])
    return rejected_file(job)


def rejected_file(job: ImportJob) -> Download:
    """The job's rejected rows, cells as uploaded, under the file's own header, with a last
    column saying why (in the uploader's language); the format of the upload. Written once
    by the check (`running`, kept in `ImportJob.rejected_file`): the upload is never read
    again for it."""
    header, reason = _header(job)
    kept = [position for position in range(len(header)) if position != reason]

    def cells(row: list[str]) -> list[str]:
        return [row[position] if position < len(row) else "" for position in kept]

    rows = (
        [*cells(row.cells), _reason(row.errors)]
        for row in rejected_rows(job).iterator(chunk_size=500)
    )
    header = cells(header)
    content = _sheet(
        job.file_format,
        [*header, REASON.name(job.header_language)],
        rows,
        title="Rejected",
    )
    return Download(content, rejected_name(job), CONTENT_TYPES[job.file_format])
