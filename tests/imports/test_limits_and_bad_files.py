"""Limits (the file's size and rows, what an XLSX unpacks to) and bad files: each refused with
a message that says why, storing nothing, never a crash; bad cells (NUL characters, lone
surrogates, huge texts) refused or cleaned by the services as the product form's are."""

from __future__ import annotations

import io
import zipfile

import pytest

from tests.factories.images import png_bytes
from tests.factories.imports import csv_bytes, product_rows, table, xlsx_bytes
from tradepost.catalog.models import Product
from tradepost.imports.errors import ImportJobError
from tradepost.imports.models import ImportStatus
from tradepost.imports.reading import _text

pytestmark = pytest.mark.django_db


def refusal(supplier, data: bytes, name: str = "catalogue.csv", **options) -> str:
    with pytest.raises(ImportJobError) as refused:
        supplier.upload(data, name, **options)
    assert not supplier.company.imports.exists()
    return " ".join(" ".join(texts) for texts in refused.value.message_dict.values())


def test_a_file_over_the_size_limit_is_refused(supplier, settings):
    settings.TRADEPOST_IMPORT_MAX_BYTES = 1024 * 1024
    data = csv_bytes(table(product_rows(1))) + b"," * (1024 * 1024)
    assert "larger than 1 MB" in refusal(supplier, data)


@pytest.mark.parametrize(
    ("data", "name", "says"),
    [
        (b"", "catalogue.csv", "is empty"),
        (png_bytes(), "photo.png", "not a CSV or XLSX file"),
        (b"%PDF-1.4\n%%EOF\n", "catalogue.pdf", "not a CSV or XLSX file"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512, "old.xls", "old Excel file"),
        (b"PK\x03\x04" + b"\0" * 100, "catalogue.xlsx", "not a valid XLSX file"),
        (b"\n\n\n", "blank.csv", "holds no rows"),
    ],
)
def test_a_file_that_is_no_catalogue_is_refused(supplier, data, name, says):
    assert says in refusal(supplier, data, name)


def test_an_xlsx_file_that_unpacks_to_too_much_is_refused(supplier, settings):
    settings.TRADEPOST_IMPORT_MAX_UNPACKED_BYTES = 1024 * 1024
    data = xlsx_bytes(table(product_rows(1)))
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bomb,
    ):
        for item in source.infolist():
            bomb.writestr(item, source.read(item))
        bomb.writestr("xl/media/padding.bin", b"\0" * (4 * 1024 * 1024))
    assert "unpacks to more than 1 MB" in refusal(supplier, buffer.getvalue(), "big.xlsx")


def test_a_file_with_too_many_rows_fails_saying_so(supplier, settings):
    settings.TRADEPOST_IMPORT_MAX_ROWS = 5
    job = supplier.upload_rows(product_rows(8))
    assert job.status == ImportStatus.FAILED
    assert job.message == "The file has more than 5 rows; split it into smaller files."
    assert Product.objects.count() == 0


def test_an_unknown_encoding_or_mode_is_refused(supplier):
    data = csv_bytes(table(product_rows(1)))
    assert "Choose an encoding from the list." in refusal(supplier, data, encoding="klingon")
    assert "Choose all or nothing" in refusal(supplier, data, mode="some")


def test_nul_characters_in_cells_are_dropped_as_the_product_form_drops_them(supplier):
    rows = product_rows(1, title="Vacuum\x00 flask", keywords="\x00\x00")
    supplier.run(rows)
    product = Product.objects.get()
    assert (product.title, product.keywords) == ("Vacuum flask", "")


def test_bytes_that_are_no_text_become_flagged_replacement_characters(supplier):
    rows = product_rows(3, title_zh_hans="不锈钢保温杯")
    rows[1]["title"] = "Flask SURROGATE"
    data = csv_bytes(table(rows))
    data = data.replace(b"SURROGATE", b"\xed\xa0\x80")  # a lone surrogate, UTF-8 encoded
    job = supplier.upload(data, mode="valid")
    assert (job.status, job.flagged_rows) == (ImportStatus.READY, 1)
    (row,) = job.rows.all()
    assert row.warnings[0]["damage"] == "lost"
    supplier.confirm(job)
    assert Product.objects.get(sku="VF-1").title == "Flask \ufffd\ufffd\ufffd"  # one a byte


def test_a_lone_surrogate_in_a_cell_is_never_stored():
    assert _text("ab\ud800cd") == "ab\ufffdcd"


def test_a_huge_cell_is_refused_by_the_service_and_a_giant_one_fails_the_file(supplier, errors_of):
    rows = product_rows(2)
    rows[1]["description"] = "x" * 150_000
    job = supplier.upload_rows(rows)
    assert errors_of(job)[3] == [("Description", "Use at most 20000 characters.")]
    rows[1]["description"] = "x" * 250_000
    job = supplier.upload_rows(rows)
    assert job.status == ImportStatus.FAILED
    assert "longer than 200000 characters" in job.message


def test_a_text_cell_that_starts_like_a_formula_stays_text(supplier):
    supplier.run(product_rows(1, title='=HYPERLINK("http://example.com") flask'))
    assert Product.objects.get().title == '=HYPERLINK("http://example.com") flask'


def test_semicolon_and_tab_separated_files_are_read(supplier):
    lines = table(product_rows(2))
    for delimiter in (";", "\t"):
        job = supplier.upload(csv_bytes(lines, delimiter=delimiter))
        assert (job.new_rows, job.rejected_rows) == (2, 0)
