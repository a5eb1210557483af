"""The preview (what each row would do, and why a row is refused) and the import itself:
through the catalogue's services, idempotent by SKU, all or nothing or the valid rows."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest
from django.utils import translation

from tests.factories.catalog import make_product
from tests.factories.imports import BASE_ROW, csv_bytes, product_rows, table, xlsx_bytes
from tradepost.catalog.models import Product, ProductStatus, ProductTranslation
from tradepost.imports.errors import ImportJobError
from tradepost.imports.models import ImportStatus
from tradepost.search.models import IndexOutbox

pytestmark = pytest.mark.django_db


def products(supplier) -> dict[str, Product]:
    return {
        product.sku: product
        for product in Product.objects.filter(company=supplier.company).exclude(
            status=ProductStatus.DELETED
        )
    }


def test_the_preview_counts_and_writes_nothing(supplier):
    job = supplier.upload_rows(product_rows(3))
    assert job.status == ImportStatus.READY
    assert (job.rows_total, job.new_rows, job.changed_rows, job.rejected_rows) == (3, 3, 0, 0)
    assert products(supplier) == {}
    assert not IndexOutbox.objects.filter(kind="product").exists()


def test_a_confirmed_import_writes_every_field_through_the_services(supplier):
    rows = product_rows(2, status="published", title_zh_hans="不锈钢保温杯")
    job = supplier.run(rows)
    assert job.status == ImportStatus.FINISHED, job.message
    assert (job.created_count, job.updated_count, job.failed_count) == (2, 0, 0)
    found = products(supplier)
    flask = found["VF-1"]
    assert flask.title == "Ceramic coffee mug with lid"
    assert flask.category.slug == "home-garden-vacuum-flasks"
    assert flask.moq == Decimal("500") and flask.moq_unit == "pieces"
    assert flask.price_min == Decimal("2.5") and flask.price_max == Decimal("3.8")
    assert flask.incoterms == ["FOB", "CIF"] and flask.payment_terms == ["tt"]
    assert flask.attributes == [
        {"name": "Material", "value": "304 steel"},
        {"name": "Capacity", "value": "500 ml"},
    ]
    assert flask.lead_time_days == 30 and flask.origin_country == "CN"
    assert flask.status == ProductStatus.PUBLISHED
    assert flask.translations.get().title == "不锈钢保温杯"
    # Each written product is queued for the search index, as the product pages do.
    assert IndexOutbox.objects.filter(kind="product", object_id=flask.pk).exists()


def test_the_same_file_twice_changes_nothing(supplier):
    rows = product_rows(3, status="published", title_zh_hant="不鏽鋼保溫杯")
    supplier.run(rows)
    before = {sku: product.updated_at for sku, product in products(supplier).items()}
    again = supplier.upload_rows(rows)
    assert (again.new_rows, again.changed_rows, again.unchanged_rows) == (0, 0, 3)
    done = supplier.confirm(again)
    assert (done.created_count, done.updated_count, done.skipped_count) == (0, 0, 3)
    assert {sku: product.updated_at for sku, product in products(supplier).items()} == before


def test_an_edited_file_changes_only_what_changed(supplier):
    rows = product_rows(3)
    supplier.run(rows)
    before = products(supplier)
    rows[1] = {**rows[1], "price_max": "4.20", "keywords": "thermos, bottle"}
    job = supplier.upload_rows(rows)
    assert (job.new_rows, job.changed_rows, job.unchanged_rows) == (0, 1, 2)
    supplier.confirm(job)
    after = products(supplier)
    assert after["VF-1"].price_max == Decimal("4.2")
    assert after["VF-1"].keywords == "thermos, bottle"
    assert after["VF-1"].title == before["VF-1"].title
    assert after["VF-0"].updated_at == before["VF-0"].updated_at
    assert after["VF-2"].updated_at == before["VF-2"].updated_at


def test_a_file_with_some_columns_changes_only_those(supplier):
    supplier.run(product_rows(2))
    job = supplier.upload(csv_bytes([["SKU", "Lowest unit price"], ["VF-0", "1.99"]]))
    assert (job.changed_rows, job.rejected_rows) == (1, 0)
    supplier.confirm(job)
    flask = products(supplier)["VF-0"]
    assert flask.price_min == Decimal("1.99") and flask.title == "Stainless steel vacuum flask"


def test_another_companys_product_with_the_same_sku_is_untouched(supplier, cast):
    theirs = make_product(company=cast.company, sku="VF-0", title="Their flask")
    supplier.run(product_rows(1))
    theirs.refresh_from_db()
    assert theirs.title == "Their flask"
    assert products(supplier)["VF-0"].title == "Stainless steel vacuum flask"


def test_rejected_rows_say_line_column_and_reason_in_the_uploaders_language(supplier, errors_of):
    rows = product_rows(4)
    rows[0]["moq"] = "many"
    rows[2]["category"] = "no-such-category"
    rows[3]["sku"] = ""
    headers = "zh-hans"
    with translation.override("zh-hans"):
        job = supplier.upload(
            csv_bytes(table(rows, language=headers)), language="zh-hans", mode="valid"
        )
    assert (job.new_rows, job.rejected_rows) == (1, 3)
    reasons = errors_of(job)
    assert set(reasons) == {2, 4, 5}  # the header is row 1
    assert reasons[2] == [("最小起订量", "请输入数字。")]
    assert [column for column, _message in reasons[4]] == ["类目"]
    assert reasons[5][0][0] == "货号"


def test_all_or_nothing_refuses_while_a_row_is_rejected(supplier):
    rows = product_rows(3)
    rows[1]["currency"] = "dollars"
    job = supplier.upload_rows(rows, mode="all")
    assert job.rejected_rows == 1
    with pytest.raises(ImportJobError) as refused:
        supplier.confirm(job)
    assert refused.value.code == "import-rows-rejected"
    assert products(supplier) == {}


def test_valid_rows_only_imports_the_others(supplier):
    rows = product_rows(3)
    rows[1]["currency"] = "dollars"
    job = supplier.confirm(supplier.upload_rows(rows, mode="all"), mode="valid")
    assert (job.created_count, job.failed_count) == (2, 1)
    assert set(products(supplier)) == {"VF-0", "VF-2"}


def test_a_sku_twice_in_a_file_is_refused_the_second_time(supplier, errors_of):
    rows = product_rows(2)
    rows[1]["sku"] = "VF-0"
    job = supplier.upload_rows(rows)
    assert errors_of(job)[3] == [("SKU", "This SKU is on row 2 already.")]


def test_the_rejected_rows_file_can_be_fixed_and_uploaded_again(supplier):
    from tradepost.imports.exports import rejected_file

    rows = product_rows(3)
    rows[2]["moq"] = "-5"
    job = supplier.confirm(supplier.upload_rows(rows), mode="valid")
    download = rejected_file(job)
    header, line = list(csv.reader(io.StringIO(download.content.decode("utf-8-sig"))))
    assert header[-1] == "Reason" and line[0] == "VF-2" and "greater than zero" in line[-1]
    fixed = download.content.replace(b"'-5", b"5")  # the guard kept "-5" from being a formula
    again = supplier.upload(fixed, "catalogue-rejected.csv")
    assert (again.new_rows, again.rejected_rows) == (1, 0), list(again.rows.values("errors"))
    supplier.confirm(again)
    assert set(products(supplier)) == {"VF-0", "VF-1", "VF-2"}


@pytest.mark.parametrize("file_format", ["csv", "xlsx"])
def test_export_then_import_changes_nothing(supplier, file_format):
    from tradepost.imports.exports import catalogue_export

    rows = product_rows(3, status="published", title_zh_hans="不锈钢保温杯")
    rows[0]["description"] = "<p>Double <strong>wall</strong>, 12 h.</p><ul><li>BPA free</li></ul>"
    rows[1]["title"] = "=cmd|' /C calc'!A0 flask"  # would be a formula in a spreadsheet
    rows[2]["status"] = "draft"
    rows[2]["attributes"] = ""
    supplier.run(rows)
    before = {sku: product.updated_at for sku, product in products(supplier).items()}
    download = catalogue_export(
        user=supplier.owner, company=supplier.company, file_format=file_format, language="zh-hant"
    )
    job = supplier.upload(download.content, download.filename)
    assert (job.new_rows, job.changed_rows, job.unchanged_rows, job.rejected_rows) == (
        0,
        0,
        3,
        0,
    ), list(job.rows.values("errors"))
    assert job.header_language == "zh-hant"
    supplier.confirm(job)
    assert {sku: product.updated_at for sku, product in products(supplier).items()} == before
    assert products(supplier)["VF-1"].title.startswith("=cmd")


def test_the_export_guards_cells_that_start_like_formulas(supplier):
    from tradepost.imports.exports import catalogue_export

    supplier.run(product_rows(1, title="@SUM(A1:A9) flask", keywords="-1+1"))
    text = catalogue_export(
        user=supplier.owner, company=supplier.company, file_format="csv", language="en"
    ).content.decode("utf-8-sig")
    assert "'@SUM(A1:A9) flask" in text and "'-1+1" in text
    workbook_bytes = catalogue_export(
        user=supplier.owner, company=supplier.company, file_format="xlsx", language="en"
    ).content
    from io import BytesIO

    from openpyxl import load_workbook

    sheet = load_workbook(BytesIO(workbook_bytes)).active
    cells = [cell for row in sheet.iter_rows() for cell in row]
    assert not [cell for cell in cells if cell.data_type == "f"]


def test_xlsx_rows_import_like_csv_rows(supplier):
    job = supplier.upload_rows(product_rows(2), xlsx=True, mode="valid")
    assert (job.file_format, job.new_rows, job.encoding) == ("xlsx", 2, "")
    supplier.confirm(job)
    assert set(products(supplier)) == {"VF-0", "VF-1"}


def test_a_formula_cell_in_xlsx_is_refused(supplier, errors_of):
    lines = table(product_rows(1))
    lines[1][lines[0].index("Minimum order quantity")] = "=10*50"
    job = supplier.upload(xlsx_bytes(lines), "catalogue.xlsx")
    assert errors_of(job)[2] == [
        ("Minimum order quantity", "This cell holds a formula; paste its value instead.")
    ]


def test_status_published_and_draft_follow_the_file(supplier):
    supplier.run(product_rows(1, status="published"))
    assert products(supplier)["VF-0"].status == ProductStatus.PUBLISHED
    job = supplier.run(product_rows(1, status="draft"))
    assert job.updated_count == 1
    assert products(supplier)["VF-0"].status == ProductStatus.DRAFT


def test_an_unconfirmed_email_keeps_the_products_drafts_and_says_so(supplier):
    supplier.owner.email_verified_at = None
    supplier.owner.save()
    job = supplier.upload_rows(product_rows(1, status="published"), mode="valid")
    assert any("email" in note for note in job.notes)
    job = supplier.confirm(job)
    assert job.created_count == 1
    assert products(supplier)["VF-0"].status == ProductStatus.DRAFT
    (row,) = job.rows.all()
    assert "not published" in row.errors[0]["message"]


def test_an_emptied_translation_is_removed_and_a_new_one_added(supplier):
    supplier.run(product_rows(1, title_zh_hans="保温杯"))
    job = supplier.run(product_rows(1, title_zh_hans="", title_zh_hant="保溫杯"))
    assert job.updated_count == 1
    assert dict(ProductTranslation.objects.values_list("language", "title")) == {
        "zh-hant": "保溫杯"
    }


def test_headers_in_chinese_with_chinese_values(supplier):
    row = {
        **BASE_ROW,
        "original_language": "简体中文",
        "category": "保温瓶",
        "moq_unit": "件",
        "payment_terms": "T/T, L/C",
        "origin_country": "中国",
        "status": "已发布",
    }
    job = supplier.run([row], language_of_headers="zh-hans")
    assert job.created_count == 1, list(job.rows.values("errors"))
    flask = products(supplier)["VF-500"]
    assert (flask.original_language, flask.moq_unit, flask.origin_country) == (
        "zh-hans",
        "pieces",
        "CN",
    )
    assert flask.payment_terms == ["tt", "lc"] and flask.status == ProductStatus.PUBLISHED
