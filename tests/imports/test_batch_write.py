"""The import writes the new products of a chunk together (`products_create_many`): what it
stores is what writing the same file one row at a time through the services stores, and its
number of queries does not grow with the rows."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, connection
from django.test.utils import CaptureQueriesContext

from tests.factories.catalog import product_fields
from tests.factories.imports import product_rows
from tests.factories.screening import ban
from tests.imports.conftest import Supplier
from tradepost.catalog import services as catalog
from tradepost.catalog.errors import ProductError
from tradepost.catalog.models import Product, ProductStatus, ProductTranslation
from tradepost.catalog.services import products as catalog_products
from tradepost.imports import kept, running
from tradepost.imports.models import ImportJob, ImportStatus
from tradepost.search import sources
from tradepost.search.models import IndexOutbox

pytestmark = pytest.mark.django_db

#: Fields that differ between two companies' copies of the same product.
_OWN = {"id", "company", "created_at", "updated_at", "published_at"}


def _mixed_rows() -> list[dict[str, Any]]:
    """Drafts, published listings, translations, a banned term (held for review), a near
    duplicate of a row before it (kept as a draft), a refused row."""
    blank = {"title_zh_hans": "", "title_zh_hant": "", "description_zh_hant": ""}
    rows = product_rows(10, status="published", **blank)
    rows[1] = {**rows[1], "status": "draft", "title_zh_hans": "陶瓷咖啡杯"}
    rows[2] = {**rows[2], "title_zh_hant": "竹製砧板", "description_zh_hant": "<p>好</p>"}
    rows[3] = {**rows[3], "title": "Carved ivory figurine"}
    rows[4] = {**rows[4], "title": rows[0]["title"]}  # much like row 1, published before it
    rows[5] = {**rows[5], "moq": "-3"}  # refused
    rows[6] = {**rows[6], "original_language": "zh-hans", "title_zh_hans": "重复语言"}  # refused
    rows[7] = {**rows[7], "status": "draft"}
    return rows


def _stored(supplier: Supplier) -> dict[str, Any]:
    found = Product.objects.filter(company=supplier.company).order_by("sku")
    products = {
        product.sku: {
            name: value
            for name, value in vars(product).items()
            if not name.startswith("_") and name.removesuffix("_id") not in _OWN
        }
        for product in found
    }
    translations = sorted(
        (row.product.sku, row.language, row.title, row.description)
        for row in ProductTranslation.objects.filter(product__company=supplier.company)
    )
    ids = {product.pk: product.sku for product in found}
    queued = set(
        IndexOutbox.objects.filter(kind="product", object_id__in=ids).values_list(
            "object_id", flat=True
        )
    )
    documents = {
        ids[pk]: {
            name: value
            for name, value in vars(record).items()
            if name not in _OWN and name != "company"
        }
        for pk, record in sources.products().load(list(ids)).items()
    }
    job = ImportJob.objects.filter(company=supplier.company).latest("pk")
    outcomes = sorted(
        (row.line, row.sku, row.outcome, str(row.errors), str(row.warnings))
        for row in job.rows.all()
    )
    counters = (
        job.status,
        job.created_count,
        job.updated_count,
        job.skipped_count,
        job.failed_count,
    )
    return {
        "products": products,
        "translations": translations,
        "every product queued for the index": queued == set(ids),
        "search documents": documents,
        "rows": outcomes,
        "counters": counters,
    }


def test_a_file_written_in_batches_stores_what_one_row_at_a_time_stores(monkeypatch):
    ban("ivory")
    rows = _mixed_rows()
    batched = Supplier()
    written: list[int] = []
    create_many = catalog.products_create_many

    def spy(**arguments: Any) -> Any:
        written.append(len(arguments["drafts"]))
        return create_many(**arguments)

    with monkeypatch.context() as patched:
        patched.setattr(catalog, "products_create_many", spy)
        batched.run(rows, mode="valid")
    assert written == [8]  # the new rows of the file, in one batch
    with monkeypatch.context() as patched:
        patched.setattr(running, "_batchable", lambda plan: False)
        patched.setattr(kept, "keepable", lambda plan: False)  # every row planned again
        one_by_one = Supplier()
        one_by_one.run(rows, mode="valid")
    stored = _stored(batched)
    assert stored == _stored(one_by_one)
    products = stored["products"]
    assert products["VF-3"]["status"] == ProductStatus.HELD
    assert products["VF-4"]["status"] == ProductStatus.DRAFT  # a likely duplicate of VF-0
    assert products["VF-0"]["status"] == ProductStatus.PUBLISHED
    assert "VF-5" not in products and "VF-6" not in products
    assert stored["counters"] == (ImportStatus.FINISHED, 8, 0, 0, 2)
    assert stored["every product queued for the index"]
    assert set(stored["search documents"]) == {"VF-0", "VF-2", "VF-8", "VF-9"}
    assert [row[:2] for row in stored["translations"]] == [("VF-1", "zh-hans"), ("VF-2", "zh-hant")]


def test_changed_rows_and_new_rows_in_one_file_are_written_as_one_by_one(monkeypatch):
    first = product_rows(4)
    second = [{**first[0], "price_max": "9.90"}, *product_rows(7)[4:]]
    second[1] = {**second[1], "status": "published"}
    batched = Supplier()
    batched.run(first)
    batched.run(second)
    with monkeypatch.context() as patched:
        patched.setattr(running, "_batchable", lambda plan: False)
        patched.setattr(kept, "keepable", lambda plan: False)  # every row planned again
        one_by_one = Supplier()
        one_by_one.run(first)
        one_by_one.run(second)
    assert _stored(batched) == _stored(one_by_one)
    assert _stored(batched)["counters"] == (ImportStatus.FINISHED, 3, 1, 0, 0)


def _write_queries(count: int) -> list[str]:
    supplier = Supplier()
    rows = product_rows(count, title_zh_hans="保温杯")
    job = supplier.upload_rows(rows, mode="valid", inline=True)
    with CaptureQueriesContext(connection) as captured:
        job = supplier.confirm(job, inline=True)
    assert job.created_count == count
    # Inserts are split by the database's limit on parameters (999 on SQLite): those grow
    # with the rows, a statement per few dozen; every other statement must not.
    return [query["sql"] for query in captured.captured_queries]


def test_the_queries_of_a_batch_do_not_grow_with_its_rows():
    small, large = _write_queries(50), _write_queries(200)

    def others(queries: list[str]) -> int:
        return sum(1 for sql in queries if not sql.lstrip().upper().startswith("INSERT"))

    assert others(small) == others(large)
    assert len(large) < 40  # one at a time, it was more than ten statements a row


def test_a_sku_taken_refuses_only_its_own_draft():
    supplier = Supplier()
    catalog.product_create(
        actor=supplier.owner, company=supplier.company, **product_fields(sku="A")
    )
    drafts = [
        (product_fields(sku="A", title="Bamboo cutting board"), {}),
        (product_fields(sku="B", title="Glass teapot"), {"zh-hans": ("玻璃茶壶", "")}),
        (product_fields(sku="B", title="Glass teapot again"), {}),
        (product_fields(sku="C", title="", moq="0"), {}),
    ]
    results = catalog.products_create_many(
        actor=supplier.owner, company=supplier.company, drafts=drafts
    )
    assert [type(result) for result in results] == [
        ProductError,
        Product,
        ProductError,
        ProductError,
    ]
    assert results[0].message_dict == {"sku": ["Another of your products has this SKU."]}
    assert set(results[3].message_dict) == {"title", "moq"}
    created = results[1]
    assert isinstance(created, Product) and created.status == ProductStatus.DRAFT
    assert created.translations.get().title == "玻璃茶壶"
    assert IndexOutbox.objects.filter(kind="product", object_id=created.pk).exists()
    assert set(Product.objects.filter(company=supplier.company).values_list("sku", flat=True)) == {
        "A",
        "B",
    }


def test_someone_who_may_not_manage_the_products_creates_none():
    supplier, stranger = Supplier(), Supplier()
    with pytest.raises(ProductError):
        catalog.products_create_many(
            actor=stranger.owner, company=supplier.company, drafts=[(product_fields(), {})]
        )
    assert not Product.objects.filter(company=supplier.company).exists()


def test_a_batch_the_database_refuses_is_written_row_by_row(monkeypatch):
    supplier = Supplier()

    def refused(**_arguments: Any) -> Any:
        raise IntegrityError("a SKU taken meanwhile")

    monkeypatch.setattr(catalog, "products_create_many", refused)
    job = supplier.run(product_rows(3))
    assert (job.status, job.created_count, job.failed_count) == (ImportStatus.FINISHED, 3, 0)
    assert Product.objects.filter(company=supplier.company).count() == 3


def _cleanings(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each `_clean_fields` of the catalogue from now on (`creating` of each)."""
    cleaned: list[bool] = []
    clean_fields = catalog_products._clean_fields

    def spy(data: Any, *, creating: bool) -> Any:
        cleaned.append(creating)
        return clean_fields(data, creating=creating)

    monkeypatch.setattr(catalog_products, "_clean_fields", spy)
    return cleaned


def test_each_new_row_is_cleaned_once_in_the_whole_import(monkeypatch):
    """The check cleans a new row (`product_draft_check`) and keeps the checked draft
    (`imports.kept`); the import writes it as checked: a row's fields are cleaned once from
    upload to import."""
    supplier = Supplier()
    rows = product_rows(12, title_zh_hans="保温杯")
    cleaned = _cleanings(monkeypatch)
    job = supplier.upload_rows(rows, mode="valid", inline=True)
    assert cleaned == [True] * 12
    job = supplier.confirm(job, inline=True)
    assert job.created_count == 12
    assert cleaned == [True] * 12
    created = Product.objects.filter(company=supplier.company)
    assert {product.slug for product in created} != {""}
    assert ProductTranslation.objects.filter(product__company=supplier.company).count() == 12


def test_without_the_kept_rows_the_write_cleans_each_new_row_once(monkeypatch):
    """A job whose check kept nothing (checked by an earlier version, or the file lost): the
    chunk's plan cleans each row again, once, and its batch writes it as checked."""
    supplier = Supplier()
    job = supplier.upload_rows(product_rows(12, title_zh_hans="保温杯"), mode="valid", inline=True)
    kept.forget(job)
    cleaned = _cleanings(monkeypatch)
    job = supplier.confirm(job, inline=True)
    assert job.created_count == 12
    assert cleaned == [True] * 12


def test_a_checked_draft_is_written_once_and_for_its_own_company():
    supplier, other = Supplier(), Supplier()
    checked = catalog.product_draft_check(company=supplier.company, **product_fields(sku="K"))
    with pytest.raises(TypeError):
        catalog.products_create_many(
            actor=other.owner, company=other.company, drafts=[(checked, {})]
        )
    checked = catalog.product_draft_check(company=supplier.company, **product_fields(sku="K"))
    [created] = catalog.products_create_many(
        actor=supplier.owner, company=supplier.company, drafts=[(checked, {})]
    )
    assert isinstance(created, Product) and created.pk and created.sku == "K"
    with pytest.raises(TypeError):
        catalog.products_create_many(
            actor=supplier.owner, company=supplier.company, drafts=[(checked, {})]
        )
    assert Product.objects.filter(sku="K").count() == 1


def test_a_checked_draft_is_stored_as_product_create_stores_its_fields():
    supplier = Supplier()
    fields = product_fields(sku="S-1", title="  Steel   water bottle ", price_max="12.5")
    checked = catalog.product_draft_check(company=supplier.company, **fields)
    [batched] = catalog.products_create_many(
        actor=supplier.owner, company=supplier.company, drafts=[(checked, {})]
    )
    single = catalog.product_create(
        actor=supplier.owner, company=supplier.company, **{**fields, "sku": "S-2"}
    )
    assert isinstance(batched, Product)

    def stored(product: Product) -> dict[str, Any]:
        product.refresh_from_db()
        return {
            name: value
            for name, value in vars(product).items()
            if not name.startswith("_") and name not in {"id", "sku", "created_at", "updated_at"}
        }

    assert stored(batched) == stored(single)


def test_the_write_checks_each_new_translation_once(monkeypatch):
    supplier = Supplier()
    rows = product_rows(5, title_zh_hans="保温杯")
    job = supplier.upload_rows(rows, mode="valid", inline=True)
    checked: list[str] = []
    translation_check = catalog_products.product_translation_check

    def spy(**arguments: Any) -> Any:
        checked.append(arguments["language"])
        return translation_check(**arguments)

    monkeypatch.setattr(catalog_products, "product_translation_check", spy)
    job = supplier.confirm(job, inline=True)
    assert job.created_count == 5
    assert checked == []  # by the check, kept with the row: the batch writes them as checked
    again = supplier.upload_rows(product_rows(10, title_zh_hans="保温杯")[5:], inline=True)
    kept.forget(again)
    assert checked == ["zh-hans"] * 5
    again = supplier.confirm(again, inline=True)
    assert again.created_count == 5
    assert checked == ["zh-hans"] * 10  # by the chunk's plan; the batch writes them as checked
    assert (
        sorted(
            ProductTranslation.objects.filter(product__company=supplier.company).values_list(
                "language", "title"
            )
        )
        == [("zh-hans", "保温杯")] * 10
    )


def test_a_translation_other_than_the_checked_one_is_checked_by_the_batch():
    supplier = Supplier()
    checked = catalog.product_draft_check(company=supplier.company, **product_fields(sku="T"))
    checked.translation_check(language="zh-hans", title="保温杯", description="")
    results = catalog.products_create_many(
        actor=supplier.owner,
        company=supplier.company,
        drafts=[(checked, {"zh-hans": ("  ", "")})],
    )
    assert isinstance(results[0], ProductError)
    assert set(results[0].message_dict) == {"title"}
