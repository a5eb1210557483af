"""The header row: column names in English, Simplified or Traditional Chinese (or the
services' field names), whatever the case and the spaces; the templates in each language."""

from __future__ import annotations

import io

import pytest
from openpyxl import load_workbook

from tests.factories.images import png_bytes
from tests.factories.imports import csv_bytes, pictures_zip, product_rows, table
from tradepost.imports.columns import COLUMNS, read_heading
from tradepost.imports.errors import ImportJobError
from tradepost.imports.exports import template_file

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("language", ["en", "zh-hans", "zh-hant"])
def test_a_file_with_headers_in_each_language_is_read(supplier, language):
    job = supplier.upload(csv_bytes(table(product_rows(2), language=language)))
    assert (job.new_rows, job.rejected_rows, job.header_language) == (2, 0, language)


@pytest.mark.parametrize(
    ("heading", "key"),
    [
        ("sku", "sku"),
        ("  S K U ", "sku"),
        ("MINIMUM ORDER QUANTITY", "moq"),
        ("MOQ", "moq"),
        ("moq_unit", "moq_unit"),
        ("交货期(天)", "lead_time_days"),  # ASCII brackets for full-width ones
        ("交貨期（天）", "lead_time_days"),
        ("Title (Simplified Chinese)", "title_zh_hans"),
        ("标题（繁体中文）", "title_zh_hant"),
        ("貨號", "sku"),
    ],
)
def test_headings_are_read_whatever_the_case_spaces_and_brackets(heading, key):
    found = read_heading(heading)
    assert found is not None and found[0] == key


def test_every_column_has_three_distinct_names_read_back():
    for column in COLUMNS:
        for name in column.names:
            assert read_heading(name)[0] == column.key


def test_unknown_columns_are_left_out_and_said(supplier):
    lines = table(product_rows(1))
    lines[0].append("Colour")
    lines[1].append("Red")
    job = supplier.upload(csv_bytes(lines))
    assert job.new_rows == 1
    assert job.notes == ["These columns are not known and were left out: “Colour”."]


def test_a_file_without_a_sku_column_is_refused_at_once(supplier):
    with pytest.raises(ImportJobError) as refused:
        supplier.upload(csv_bytes([["Title", "Category"], ["Flask", "home-garden-vacuum-flasks"]]))
    assert "SKU" in refused.value.message_dict["catalogue"][0]
    assert not supplier.company.imports.exists()


def test_a_column_twice_is_refused(supplier):
    with pytest.raises(ImportJobError) as refused:
        supplier.upload(csv_bytes([["SKU", "Title", "标题"], ["A-1", "Flask", "保温杯"]]))
    assert "appears twice" in refused.value.message_dict["catalogue"][0]


@pytest.mark.parametrize("language", ["en", "zh-hans", "zh-hant"])
def test_the_templates_name_the_columns_in_their_language_and_import_as_they_are(
    supplier, language
):
    csv_template = template_file(file_format="csv", language=language)
    header = csv_template.content.decode("utf-8-sig").splitlines()[0].split(",")
    assert header[:2] == [COLUMNS[0].name(language), COLUMNS[1].name(language)]
    xlsx_template = template_file(file_format="xlsx", language=language)
    workbook = load_workbook(io.BytesIO(xlsx_template.content))
    assert workbook.sheetnames == ["Products", "Lists"]
    # The example row is a valid product (with the two pictures it names).
    pictures = pictures_zip({"VF-500-BLK-1.jpg": png_bytes(), "VF-500-BLK-2.jpg": png_bytes()})
    job = supplier.upload(xlsx_template.content, xlsx_template.filename, pictures=pictures)
    assert (job.new_rows, job.rejected_rows) == (1, 0), list(job.rows.values("errors"))
